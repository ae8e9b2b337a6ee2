"""``python -m core apikey new USER``: a fresh API key for USER and the ``OMNI_API_KEYS`` value that stores it
(core/auth.py keeps the keys' rules)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from core.auth import issue_key
from core.cli import settings


def cmd_new(args: argparse.Namespace) -> int:
    issued = issue_key(args.user, settings())
    print(json.dumps(issued, ensure_ascii=False, indent=2))
    return 0


def add_parsers(sub: Any) -> None:
    apikey = sub.add_parser("apikey", help="API keys of the HTTP API")
    actions = apikey.add_subparsers(dest="apikey_command", required=True, parser_class=type(apikey))
    new = actions.add_parser("new", help="print a fresh key for USER and the OMNI_API_KEYS value that stores it")
    new.add_argument("user")
    new.set_defaults(func=cmd_new)
