"""Leaflet served by Streamlit itself, so every map draws with no CDN.

Leaflet's files come from the ``xstatic-leaflet`` package, and Leaflet.markercluster's (every map's pin
clusters) from ``xstatic-leaflet-markercluster`` (both pinned requirements); they are copied into
``<project>/static/leaflet/`` (markercluster under ``markercluster/``; gitignored: third-party code is never
committed).
With ``[server] enableStaticServing = true`` Streamlit serves that folder at
``<baseUrlPath>/app/static/leaflet/...``; the st_folium component (an iframe on the same
origin) loads the script and stylesheet from there.

This module has no Streamlit import at module level so ``scripts/install_leaflet.py`` can use it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

PROJECT_ROOT = Path(__file__).resolve().parent.parent
STATIC_DIR = PROJECT_ROOT / "static"
LEAFLET_DIR = STATIC_DIR / "leaflet"

#: (xstatic package, file in its data folder, where it goes under static/leaflet); source maps are left out
_SOURCES: tuple[tuple[str, str, str], ...] = (
    ("leaflet", "leaflet.js", "leaflet.js"),
    ("leaflet", "leaflet.css", "leaflet.css"),
    ("leaflet", "images/layers.png", "images/layers.png"),
    ("leaflet", "images/layers-2x.png", "images/layers-2x.png"),
    ("leaflet", "images/marker-icon.png", "images/marker-icon.png"),
    ("leaflet", "images/marker-icon-2x.png", "images/marker-icon-2x.png"),
    ("leaflet", "images/marker-shadow.png", "images/marker-shadow.png"),
    ("leaflet_markercluster", "leaflet.markercluster.js", "markercluster/leaflet.markercluster.js"),
    ("leaflet_markercluster", "MarkerCluster.css", "markercluster/MarkerCluster.css"),
    ("leaflet_markercluster", "MarkerCluster.Default.css", "markercluster/MarkerCluster.Default.css"),
)
#: the files installed under static/leaflet
LEAFLET_FILES: tuple[str, ...] = tuple(target for _, _, target in _SOURCES)


def _xstatic(package: str) -> ModuleType:
    import importlib

    try:
        return importlib.import_module(f"xstatic.pkg.{package}")
    except ImportError as exc:  # pragma: no cover - a broken install
        raise RuntimeError(
            f"xstatic-{package.replace('_', '-')} is not installed; install requirements.txt (it provides the offline "
            "map's scripts)"
        ) from exc


def leaflet_source_dir(package: str = "leaflet") -> Path:
    """Where an xstatic package (``leaflet``, ``leaflet_markercluster``) keeps its distribution files."""
    return Path(_xstatic(package).BASE_DIR)


def leaflet_version(package: str = "leaflet") -> str:
    return str(_xstatic(package).VERSION)


def leaflet_installed(target: Path = LEAFLET_DIR) -> bool:
    return all((target / name).is_file() for name in LEAFLET_FILES)


def install_leaflet(target: Path = LEAFLET_DIR, *, force: bool = False) -> list[Path]:
    """Copy Leaflet's JS, CSS and images, and Leaflet.markercluster's JS and CSS, into ``target``; return the files
    written.

    Idempotent: files that are already there with the same size are skipped unless ``force``.
    """
    written: list[Path] = []
    for package, name, target_name in _SOURCES:
        source = leaflet_source_dir(package)
        src = source / name
        dst = target / target_name
        if not src.is_file():
            raise RuntimeError(f"xstatic-{package} is missing {name} (looked in {source})")
        if not force and dst.is_file() and dst.stat().st_size == src.stat().st_size:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        written.append(dst)
    return written


def ensure_leaflet() -> bool:
    """Install Leaflet into ./static/leaflet if it is missing; True when the files are there.

    The app calls this at start-up as a safety net for a fresh checkout where
    ``scripts/install_leaflet.py`` has not been run yet.
    """
    if leaflet_installed():
        return True
    try:
        install_leaflet()
    except (OSError, RuntimeError):
        return False
    return leaflet_installed()


def static_url(relative: str, base_url_path: str = "") -> str:
    """URL of a file under ./static as served by Streamlit (``/app/static/...``).

    The URL is absolute on the app's origin, so it works from inside component iframes
    (served from ``/component/...`` on the same origin).
    """
    base = "/" + base_url_path.strip("/") if base_url_path.strip("/") else ""
    return f"{base}/app/static/{relative.lstrip('/')}"


def leaflet_urls(base_url_path: str = "") -> tuple[str, str]:
    """(leaflet.js URL, leaflet.css URL) served locally."""
    return static_url("leaflet/leaflet.js", base_url_path), static_url("leaflet/leaflet.css", base_url_path)


def markercluster_urls(base_url_path: str = "") -> tuple[str, tuple[str, str]]:
    """(leaflet.markercluster.js URL, (MarkerCluster.css URL, MarkerCluster.Default.css URL)) served locally."""
    return static_url("leaflet/markercluster/leaflet.markercluster.js", base_url_path), (
        static_url("leaflet/markercluster/MarkerCluster.css", base_url_path),
        static_url("leaflet/markercluster/MarkerCluster.Default.css", base_url_path),
    )
