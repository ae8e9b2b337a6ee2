"""The suites that touch dates, again with the machine's clock at other moments (libfaketime, Debian's faketime).

A test that leans on the day it runs, or product code that reads the wall clock where it should read the request's,
fails here on the day it is written, not months later. The moments are computed from today, so they stay ahead:

- a year ahead (``+365d``);
- the next 29 February, 15:30 UTC: 23:30 in Shanghai, where it is nearly 1 March;
- the next New Year's Eve, 15:30 UTC: 23:30 in Shanghai, half an hour before the new year there.

libfaketime shifts the monotonic clock too (with ``FAKETIME_DONT_FAKE_MONOTONIC=1`` Python's ``time.sleep`` fails with
EINVAL). Each moment is one pytest process; the three run at once on the two cores.

Debian 12's libfaketime (0.9.10) does not intercept ``sem_clockwait``, with which CPython waits on every timed lock,
``Condition.wait`` and ``Queue.get``: the deadline is read on the shifted clock and waited for on the real one, so a
one-second wait lasts a year (the hangs seen in tests/app, tests/stores and tests/faces: the database deadline
watcher, the AnyIO portal of the API's test client). ``faketime_sem_clockwait.c`` beside this file, compiled here with
gcc and preloaded, turns such a wait into libfaketime's own ``sem_timedwait``.

Prints each moment's pytest summary, then one closing line
``time-travel: N passed, N failed``; exits 1 when a moment failed or ran no test.

    python scripts/time_travel.py [--moment SPEC]... [--jobs 3] [PYTEST ARGS...]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the suites whose tests decide with dates: day phrases, bookings and their cut-offs, half-day windows and links,
#: demo trip dates and calendar files, the agent's days and bookings, the clock and its edge moments. The rest plan
#: with the same clock and add minutes, not dates; the reservation CLI and the stateful property run (6 s each) are
#: left to the main run, to keep the three moments within CI's time, and so are the fifty-click races (three moments
#: at once would take more connections than a default PostgreSQL has).
DATE_SUITES = (
    "tests/phrases",
    "tests/reservations",
    "tests/halfday",
    "tests/app/test_clock.py",
    "tests/app/test_edge_moments.py",
    "tests/app/test_context_language.py",
    "tests/itinerary/test_demo_dates.py",
    "tests/itinerary/test_ics.py",
    "tests/agent/test_agent_booking_followup.py",
    "tests/agent/test_agent_reservations.py",
    "tests/agent/test_day_phrases_agree.py",
    "tests/agent/test_agent_trip_request.py",
)
DESELECT_FILES = ("tests/reservations/test_cli.py", "tests/reservations/test_state_machine.py")
DESELECT_NAMES = "not fifty_concurrent"
#: the browser, the UI pages and the solver runs are left to the main run: they take no calendar decision of their own
DESELECT = "not browser and not ui and not slow"
SUMMARY = re.compile(r"(\d+) (passed|failed|errors?)")


def next_leap_day(today: date) -> date:
    year = today.year
    while True:
        try:
            leap = date(year, 2, 29)
        except ValueError:
            year += 1
            continue
        if leap > today:
            return leap
        year += 1


def default_moments(now: datetime) -> list[str]:
    """The three moments, as faketime specs, from ``now`` (the machine's real moment)."""
    today = now.date()
    eve = date(today.year, 12, 31)
    if (eve, 15, 30) <= (today, now.hour, now.minute):
        eve = date(today.year + 1, 12, 31)
    return ["+365d", f"@{next_leap_day(today)} 15:30:00", f"@{eve} 15:30:00"]


def faketime_command() -> list[str]:
    found = shutil.which("faketime")
    if found is None:
        raise SystemExit("time-travel: faketime is not installed (apt-get install -y faketime; .ci/run does)")
    return [found, "-f"]


def sem_clockwait_shim(folder: Path) -> Path:
    """``faketime_sem_clockwait.c`` compiled into ``folder`` (gcc, as the install's kernels are)."""
    source = Path(__file__).resolve().parent / "faketime_sem_clockwait.c"
    shim = folder / "faketime_sem_clockwait.so"
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise SystemExit("time-travel: no C compiler for the sem_clockwait shim (apt-get install -y gcc)")
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(shim), str(source)], check=True)
    return shim


def run_moment(moment: str, pytest_args: list[str], shim: Path) -> tuple[str, int, dict[str, int], str]:
    """pytest under ``faketime -f MOMENT``: (moment, exit code, counts, the output's tail)."""
    env = dict(os.environ, TZ="UTC")  # the machine's zone is UTC in CI; the product's zones come from the packs
    env.pop("FAKETIME_DONT_FAKE_MONOTONIC", None)
    env["LD_PRELOAD"] = " ".join(filter(None, [str(shim), env.get("LD_PRELOAD")]))
    cmd = [*faketime_command(), moment, sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider"]
    args, names = list(pytest_args), DESELECT_NAMES
    if "-k" in args[:-1]:  # a caller's -k narrows the run further; a second -k would replace this one
        at = args.index("-k")
        names = f"({args.pop(at + 1)}) and {names}"
        args.pop(at)
    cmd += [f"--ignore={f}" for f in DESELECT_FILES] + ["-k", names, "-q", "-m", DESELECT, *args]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    out = done.stdout + done.stderr
    tail = "\n".join(out.strip().splitlines()[-40:])
    counts: dict[str, int] = {"passed": 0, "failed": 0, "errors": 0}
    last = [line for line in out.splitlines() if " in " in line and ("passed" in line or "failed" in line)]
    for n, word in SUMMARY.findall(last[-1] if last else ""):
        counts["errors" if word.startswith("error") else word] += int(n)
    return moment, done.returncode, counts, tail


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moment", action="append", help="a faketime spec (+365d, '@2028-02-29 15:30:00')")
    parser.add_argument("--jobs", type=int, default=3, help="moments at once (one process each)")
    args, pytest_args = parser.parse_known_args(argv)
    moments = args.moment or default_moments(datetime.now(UTC))
    paths = [a for a in pytest_args if not a.startswith("-") and (ROOT / a.split("::")[0]).exists()]
    suites = pytest_args if paths else [*pytest_args, *DATE_SUITES]
    started = time.monotonic()
    total = {"passed": 0, "failed": 0, "errors": 0}
    bad = []
    with tempfile.TemporaryDirectory(prefix="omni-faketime-") as folder, ThreadPoolExecutor(max(1, args.jobs)) as pool:
        shim = sem_clockwait_shim(Path(folder))
        for moment, code, counts, tail in pool.map(lambda m: run_moment(m, suites, shim), moments):
            for key in total:
                total[key] += counts[key]
            line = tail.splitlines()[-1] if tail else "(no output)"
            print(f"time-travel {moment}: exit {code}, {line}", flush=True)
            if code != 0 or counts["passed"] == 0:
                bad.append(moment)
                print(tail, flush=True)
    print(f"time-travel: {len(moments)} moments in {time.monotonic() - started:.0f} s; failed at: {bad or 'none'}")
    print(f"time-travel: {total['passed']} passed, {total['failed'] + total['errors']} failed", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
