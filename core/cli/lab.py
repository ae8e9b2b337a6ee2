"""``python -m core lab ...``: the strategy lab's commands (docs/ARCHITECTURE.md, "Strategy lab").

* ``lab generate --region R --kind delivery|sightseeing|trip-day --n N --stops LO-HI --seed S --out FILE.jsonl``
* ``lab run BATCH [--grid GRID.json] --out results.parquet [--workers N] [--resume] [--no-progress]``
* ``lab summary results.parquet [--a STRATEGY --b STRATEGY] [--optimiser NAME] [--text [--lang en|zh]]``
* ``lab schema [--out DIR]``: the JSON schemas of a batch line and a grid
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from core.cli import settings
from core.errors import InputError
from core.i18n import Lang


def _stops(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m:
        raise InputError(f"--stops takes a count or a range like 5-25, not {text!r}", field="stops")
    lo = int(m.group(1))
    return lo, int(m.group(2) or lo)


def cmd_generate(args: argparse.Namespace) -> int:
    from core.lab.generate import generate_batch, write_batch

    items = generate_batch(
        region=args.region, kind=args.kind, n=args.n, stops=_stops(args.stops), seed=args.seed, settings=settings()
    )
    path = write_batch(items, Path(args.out))
    print(json.dumps({"out": str(path), "requests": len(items), "region": args.region, "kind": args.kind}))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from core.lab.batch import read_grid
    from core.lab.runner import run_batch

    if args.workers is not None and args.workers < 1:
        raise InputError(f"--workers must be at least 1, not {args.workers}", field="workers")
    grid = read_grid(args.grid)
    try:
        report = run_batch(
            args.batch,
            grid,
            Path(args.out),
            workers=args.workers,
            resume=args.resume,
            bar=not args.no_progress,
            settings=settings(),
        )
    except KeyboardInterrupt:
        print(
            json.dumps(
                {"interrupted": True, "resume": f"python -m core lab run {args.batch} --out {args.out} --resume"}
            ),
            file=sys.stderr,
        )
        return 130
    print(report.model_dump_json())
    return 0


_WORDS = {
    "en": {
        "pair": "{a} vs {b} ({region}, {provider}, {mode}): n={n}, differ in {d}",
        "saved": "  time saved (s)",
        "added": "  distance added (m)",
        "opt": "{region} {mode:<8} {optimiser:<18} {objective:<10} {bucket:>6}  n={n:<4} gap mean {mean} median {median} p90 {p90} "
        "worst {worst}  time median {t} s worst {tw} s  stopped by {stops}; reproducible rows {rep}",
        "STRATEGIES_CANNOT_DIFFER": "{region} {provider} {mode}: all figures are offline straight-line estimates; "
        "the strategies cannot differ here",
        "PARTLY_ESTIMATED": "{region} {provider} {mode}: {count} routes include estimated legs",
        "ERRORS": "{count} error rows: {detail}",
    },
    "zh": {
        "pair": "{a} 对比 {b}（{region}，{provider}，{mode}）：n={n}，不同路线 {d} 条",
        "saved": "  节省时间（秒）",
        "added": "  增加距离（米）",
        "opt": "{region} {mode:<8} {optimiser:<18} {objective:<10} {bucket:>6}  n={n:<4} 差距 均值 {mean} 中位数 {median} p90 {p90} "
        "最差 {worst}  用时 中位数 {t} 秒 最差 {tw} 秒  停止原因 {stops}；可复现的行 {rep}",
        "STRATEGIES_CANNOT_DIFFER": "{region} {provider} {mode}：全部为离线直线估算，各策略在此不可能有差别",
        "PARTLY_ESTIMATED": "{region} {provider} {mode}：{count} 条路线含估算路段",
        "ERRORS": "{count} 行出错：{detail}",
    },
}


def _num(value: float | None, pct: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value * 100:.2f}%" if pct else f"{value:,.1f}"


def render_text(summary: Any, lang: Lang = "en") -> str:
    """The summary in words for people (en / zh)."""
    words = _WORDS[lang]
    lines: list[str] = []
    for flag in summary.flags:
        lines.append(words[flag.code].format(**flag.model_dump()))
    for p in summary.pairs:
        lines.append(
            words["pair"].format(a=p.a, b=p.b, region=p.region, provider=p.provider, mode=p.mode, n=p.n, d=p.n_differ)
        )
        for label, s in ((words["saved"], p.time_saved_s), (words["added"], p.distance_added_m)):
            lines.append(
                f"{label}: median {_num(s.median)} [{_num(s.median_ci_low)}, {_num(s.median_ci_high)}], "
                f"p10 {_num(s.p10)}, p90 {_num(s.p90)}"
            )
    for o in summary.optimisers:
        lines.append(
            words["opt"].format(
                region=o.region,
                mode=o.mode,
                optimiser=o.optimiser,
                objective=o.objective,
                bucket=o.size_bucket,
                n=o.n,
                mean=_num(o.gap.mean, pct=True),
                median=_num(o.gap.median, pct=True),
                p90=_num(o.gap.p90, pct=True),
                worst=_num(o.worst_gap, pct=True),
                t=f"{o.time_s.median:.3f}" if o.time_s.median is not None else "-",
                tw=f"{o.worst_time_s:.3f}" if o.worst_time_s is not None else "-",
                stops=", ".join(f"{k} {v}" for k, v in o.stops.items()) or "-",
                rep=o.n_reproducible,
            )
        )
    return "\n".join(lines)


def cmd_summary(args: argparse.Namespace) -> int:
    from core.lab.results import load_results
    from core.lab.summary import summarize, summary_frames

    summary = summarize(load_results(args.results), a=args.a, b=args.b, optimiser=args.optimiser, seed=args.seed)
    if args.csv:
        folder = Path(args.csv)
        folder.mkdir(parents=True, exist_ok=True)
        for name, frame in summary_frames(summary).items():
            frame.to_csv(folder / f"{name}.csv", index=False)
    print(render_text(summary, args.lang) if args.text else summary.model_dump_json(indent=1))
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from core.models.lab import schemas

    docs = schemas()
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        for name, schema in docs.items():
            (folder / f"{name}.schema.json").write_text(
                json.dumps(schema, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8"
            )
    print(json.dumps(docs, ensure_ascii=False, indent=1, sort_keys=True))
    return 0


def add_parsers(sub: Any) -> None:
    """Add ``lab`` and its commands to an argparse sub-parser set."""
    lab = sub.add_parser("lab", help="strategy lab: generate | run | summary | schema")
    cmds = lab.add_subparsers(dest="lab_command", required=True, metavar="COMMAND")

    g = cmds.add_parser("generate", help="a reproducible batch of requests drawn from a region pack")
    g.add_argument("--region", required=True, help="region pack (helsinki, shanghai, ...)")
    g.add_argument("--kind", required=True, help="delivery | sightseeing | trip-day")
    g.add_argument("--n", type=int, required=True, help="how many requests")
    g.add_argument("--stops", default="5-25", help="stops per request: N or LO-HI (default 5-25)")
    g.add_argument("--seed", type=int, default=7, help="random seed (same seed: byte-identical file)")
    g.add_argument("--out", required=True, help="the batch file to write (.jsonl)")
    g.set_defaults(func=cmd_generate)

    r = cmds.add_parser("run", help="run a batch over a grid; writes Parquet and CSV")
    r.add_argument("batch", help="batch file (.jsonl or .csv)")
    r.add_argument("--grid", default=None, help="grid file (JSON); default: 3 strategies, driving, offline, project")
    r.add_argument("--out", required=True, help="results table (.parquet); its .csv is written beside it")
    r.add_argument("--workers", type=int, default=None, help="local processes (default: every core; 1: in process)")
    r.add_argument("--resume", action="store_true", help="skip the requests an interrupted run already finished")
    r.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    r.set_defaults(func=cmd_run)

    s = cmds.add_parser("summary", help="strategy differences and optimiser gaps of a results table")
    s.add_argument("results", help="results table (.parquet or .csv)")
    s.add_argument("--a", default=None, help="strategy a (time saved by a against b)")
    s.add_argument("--b", default=None, help="strategy b")
    s.add_argument("--optimiser", default=None, help="whose routes the strategies compare (default: project)")
    s.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    s.add_argument("--csv", default=None, help="also write pairs.csv, optimisers.csv, flags.csv to this folder")
    s.add_argument("--text", action="store_true", help="words instead of JSON")
    s.add_argument("--lang", choices=("en", "zh"), default="en")
    s.set_defaults(func=cmd_summary)

    sc = cmds.add_parser("schema", help="JSON schemas of a batch line and a grid")
    sc.add_argument("--out", default=None, help="also write them as FILE.schema.json into this folder")
    sc.set_defaults(func=cmd_schema)
