"""Copy Leaflet and Leaflet.markercluster from their xstatic packages into ./static/leaflet/ (run at install time).

    python scripts/install_leaflet.py [--force]

Streamlit serves ./static at /app/static/ (``server.enableStaticServing``), so the route map
loads Leaflet from the app itself and needs no CDN. ./static is gitignored.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from components.static_assets import LEAFLET_DIR, install_leaflet, leaflet_installed, leaflet_version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="overwrite files that are already there")
    args = parser.parse_args(argv)
    written = install_leaflet(force=args.force)
    if not leaflet_installed():
        print(f"Leaflet was not installed completely in {LEAFLET_DIR}", file=sys.stderr)
        return 1
    print(
        f"Leaflet {leaflet_version()} and Leaflet.markercluster {leaflet_version('leaflet_markercluster')} in "
        f"{LEAFLET_DIR} ({len(written)} file(s) written)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
