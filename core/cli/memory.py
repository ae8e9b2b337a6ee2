"""``python -m core memory list --user U`` shows what is remembered of a user (standing rules, newest snippets);
``memory forget --user U --rule CODE`` forgets one rule, ``--all`` everything (rules, snippets, conversations);
``memory recall --user U --query TEXT`` the snippets most like the text. JSON on stdout."""

from __future__ import annotations

import argparse
import json
from typing import Any

from core.cli import request_context


def cmd_list(args: argparse.Namespace) -> int:
    from core.app import memory as memory_app

    print(memory_app.view(request_context(user=args.user), episodes=args.episodes).model_dump_json())
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from core.app import memory as memory_app
    from core.errors import InputError

    ctx = request_context(user=args.user)
    if args.all:
        print(json.dumps(memory_app.forget_everything(ctx)))
        return 0
    if not args.rule:
        raise InputError("say which rule to forget (--rule CODE) or --all", field="rule")
    print(json.dumps({"rule": args.rule, "forgotten": memory_app.forget(ctx, args.rule)}))
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    from core.app import memory as memory_app

    found = memory_app.recall(request_context(user=args.user), args.query, k=args.k)
    print(json.dumps([e.model_dump(mode="json") for e in found], ensure_ascii=False))
    return 0


def add_parsers(sub: Any) -> None:
    mem = sub.add_parser("memory", help="what is remembered of a user: list | forget --rule CODE | --all | recall")
    cmds = mem.add_subparsers(dest="memory_command", metavar="COMMAND", required=True)
    shown = cmds.add_parser("list", help="the user's standing rules and newest snippets")
    shown.add_argument("--user", required=True)
    shown.add_argument("--episodes", type=int, default=20, help="how many snippets (newest first)")
    shown.set_defaults(func=cmd_list)
    gone = cmds.add_parser("forget", help="forget one rule (--rule no_spicy) or everything (--all)")
    gone.add_argument("--user", required=True)
    gone.add_argument("--rule", default=None)
    gone.add_argument("--all", action="store_true")
    gone.set_defaults(func=cmd_forget)
    back = cmds.add_parser("recall", help="the snippets most like --query")
    back.add_argument("--user", required=True)
    back.add_argument("--query", required=True)
    back.add_argument("--k", type=int, default=3)
    back.set_defaults(func=cmd_recall)
