"""``python -m core venues serve [--port P] [--region R]``: the demo venue websites (hotel rooms per night, a
restaurant's menu and tables, a theatre's shows and seats, one page behind a captcha) on 127.0.0.1. Their figures
are demo data (data/venues/<region>.json); the default browse allowlist holds this server (OMNI_VENUES_PORT) when
OMNI_VENUES_SERVE says it runs (make run sets it)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def cmd_serve(args: argparse.Namespace) -> int:
    from core.clock import clock_from_settings
    from core.config import get_settings
    from core.errors import InputError
    from core.venues.serve import serve_forever

    settings = get_settings()
    port = settings.venues_port if args.port is None else args.port
    if not 0 < port < 65_536:
        raise InputError(f"--port must be between 1 and 65535, not {port}", field="port")
    print(json.dumps({"base_url": f"http://127.0.0.1:{port}", "region": args.region}), flush=True)
    serve_forever(settings.venues_dir, args.region or settings.region, port, clock=clock_from_settings(settings))
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("venues", help="the demo venue websites on 127.0.0.1 (demo data)")
    venues = p.add_subparsers(dest="venues_command", required=True)
    s = venues.add_parser("serve", help="serve the demo venue sites until stopped")
    s.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default: OMNI_VENUES_PORT, 8765)")
    s.add_argument("--region", default=None, help="the region whose venues it serves (default: OMNI_REGION)")
    s.set_defaults(func=cmd_serve)
