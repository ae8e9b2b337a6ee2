"""``python -m core pack ...``: region-pack commands (``validate NAME``, ``build --pbf FILE --name NAME``,
``serve REGION``). They plan nothing: the settings in force come from the command's services."""

from __future__ import annotations

import argparse
from typing import Any

from core.cli import settings as settings_in_force


def cmd_validate(args: argparse.Namespace) -> int:
    from core.packs.validate import format_report, validate_pack

    rep, pack = validate_pack(args.name, settings=settings_in_force())
    print(format_report(rep, pack, strict=args.strict))
    return 1 if rep.failed(strict=args.strict) else 0


def cmd_build(args: argparse.Namespace) -> int:
    from pathlib import Path

    from core.packs.build import build_pack

    report = build_pack(
        Path(args.pbf),
        name=args.name,
        data_dir=Path(args.data_dir) if args.data_dir else settings_in_force().data_dir,
        city=args.city,
        city_zh=args.city_zh,
        country=args.country,
        timezone=args.timezone,
        source=args.source,
        tiles=not args.no_tiles,
        names_zh=Path(args.names_zh) if args.names_zh else None,
    )
    print(report.model_dump_json(indent=2))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from core.errors import InputError
    from core.geo.valhalla_server import ValhallaServer
    from core.packs.loader import load_region

    settings = settings_in_force()
    pack = load_region(args.region or settings.region, settings.data_dir)
    if pack.tile_dir is None:
        raise InputError(
            f"the region '{pack.name}' has no road network (python -m core pack build ...)", field="region"
        )
    import signal

    server = ValhallaServer(pack.tile_dir, host=args.host, port=args.port, threads=args.threads).start()
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))  # stop the child too
    print(
        f"Valhalla for {pack.name} on {server.url} (export OMNI_VALHALLA_URL={server.url}); Ctrl-C stops it", flush=True
    )
    try:
        return server.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()


def add_parsers(sub: Any) -> None:
    pack = sub.add_parser("pack", help="region packs: validate NAME | build --pbf FILE --name NAME")
    cmds = pack.add_subparsers(dest="pack_command", required=True, metavar="COMMAND")
    v = cmds.add_parser("validate", help="check a pack's places, region.json and demo scenarios")
    v.add_argument("name", nargs="?", default="shanghai", help="region pack name (default: shanghai)")
    v.add_argument("--strict", action="store_true", help="treat warnings as errors")
    v.set_defaults(func=cmd_validate)
    b = cmds.add_parser("build", help="build a pack (gazetteer, basemap, Valhalla tiles) from an OSM extract")
    b.add_argument("--pbf", required=True, help="an OpenStreetMap extract (.osm.pbf)")
    b.add_argument("--name", required=True, help="the pack's name (lower-case letters, digits, '-')")
    b.add_argument("--city", default=None, help="the city's name as its people write it (default: the pack name)")
    b.add_argument("--city-zh", default=None, help="the city's name in Chinese")
    b.add_argument("--country", default="", help="ISO 3166 country code, e.g. FI (public holidays)")
    b.add_argument("--timezone", default="UTC", help="IANA time zone of the city, e.g. Europe/Helsinki")
    b.add_argument("--source", default=None, help="where the extract came from (shown in the attribution)")
    b.add_argument("--data-dir", default=None, help="the data folder holding regions/ (default: OMNI_DATA_DIR)")
    b.add_argument("--no-tiles", action="store_true", help="gazetteer and basemap only, no road network")
    b.add_argument("--names-zh", help="a table of curated Chinese names (osm_id,name_zh,source: data/names/)")
    b.set_defaults(func=cmd_build)
    s = cmds.add_parser("serve", help="serve a pack's road network over HTTP with valhalla_service")
    s.add_argument("region", nargs="?", default=None, help="region pack with tiles (default: OMNI_REGION)")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8002)
    s.add_argument("--threads", type=int, default=2)
    s.set_defaults(func=cmd_serve)
