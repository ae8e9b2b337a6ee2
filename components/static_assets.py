"""Leaflet served by Streamlit itself, so the route map draws with no CDN.

Leaflet's files come from the ``xstatic-leaflet`` package (a pinned requirement) and are
copied into ``<project>/static/leaflet/`` (gitignored: third-party code is never committed).
With ``[server] enableStaticServing = true`` Streamlit serves that folder at
``<baseUrlPath>/app/static/leaflet/...``; the st_folium component (an iframe on the same
origin) loads the script and stylesheet from there.

This module has no Streamlit import at module level so ``scripts/install_leaflet.py`` can use it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
STATIC_DIR = PROJECT_ROOT / "static"
LEAFLET_DIR = STATIC_DIR / "leaflet"

# Files copied from xstatic/pkg/leaflet/data (source maps are left out).
LEAFLET_FILES: tuple[str, ...] = (
    "leaflet.js",
    "leaflet.css",
    "images/layers.png",
    "images/layers-2x.png",
    "images/marker-icon.png",
    "images/marker-icon-2x.png",
    "images/marker-shadow.png",
)


def leaflet_source_dir() -> Path:
    """Where the xstatic-leaflet package keeps Leaflet's distribution files."""
    try:
        from xstatic.pkg import leaflet as xstatic_leaflet
    except ImportError as exc:  # pragma: no cover - a broken install
        raise RuntimeError(
            "xstatic-leaflet is not installed; install requirements.txt (it provides Leaflet for the offline map)"
        ) from exc
    return Path(xstatic_leaflet.BASE_DIR)


def leaflet_version() -> str:
    from xstatic.pkg import leaflet as xstatic_leaflet

    return str(xstatic_leaflet.VERSION)


def leaflet_installed(target: Path = LEAFLET_DIR) -> bool:
    return all((target / name).is_file() for name in LEAFLET_FILES)


def install_leaflet(target: Path = LEAFLET_DIR, *, force: bool = False) -> list[Path]:
    """Copy Leaflet's JS, CSS and images into ``target``; return the files written.

    Idempotent: files that are already there with the same size are skipped unless ``force``.
    """
    source = leaflet_source_dir()
    written: list[Path] = []
    for name in LEAFLET_FILES:
        src = source / name
        dst = target / name
        if not src.is_file():
            raise RuntimeError(f"xstatic-leaflet is missing {name} (looked in {source})")
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
