"""``python -m core pack ...``: region-pack commands (``validate NAME``)."""

from __future__ import annotations

import argparse
from typing import Any


def cmd_validate(args: argparse.Namespace) -> int:
    from core.config import get_settings
    from core.packs.validate import format_report, validate_pack

    rep, pack = validate_pack(args.name, settings=get_settings())
    print(format_report(rep, pack, strict=args.strict))
    return 1 if rep.failed(strict=args.strict) else 0


def add_parsers(sub: Any) -> None:
    pack = sub.add_parser("pack", help="region packs: validate NAME")
    cmds = pack.add_subparsers(dest="pack_command", required=True, metavar="COMMAND")
    v = cmds.add_parser("validate", help="check a pack's places, region.json and demo scenarios")
    v.add_argument("name", nargs="?", default="shanghai", help="region pack name (default: shanghai)")
    v.add_argument("--strict", action="store_true", help="treat warnings as errors")
    v.set_defaults(func=cmd_validate)
