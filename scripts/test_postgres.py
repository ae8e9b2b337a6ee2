"""Test set-up: a PostgreSQL database for the tests that run on both SQLite and PostgreSQL.

Prints the URL to use (``OMNI_TEST_PG_URL``). Uses the one given in the environment, else starts Debian's
cluster on 127.0.0.1 (``apt-get install -y postgresql``) and creates the role and database ``omni_test``.
Prints nothing when PostgreSQL is not installed: those tests then fail and say how to install it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

URL = "postgresql+psycopg://omni:omni@127.0.0.1:5432/omni_test"


def sh(command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, shell=True, capture_output=True, text=True, check=False)


def main() -> int:
    if os.environ.get("OMNI_TEST_PG_URL"):
        print(os.environ["OMNI_TEST_PG_URL"])
        return 0
    if shutil.which("pg_lsclusters") is None:
        return 0
    clusters = [line.split() for line in sh("pg_lsclusters --no-header").stdout.splitlines() if line.strip()]
    if not clusters:
        return 0
    version, name = clusters[0][0], clusters[0][1]
    sh(f"pg_ctlcluster {version} {name} start")
    as_postgres = "runuser -u postgres -- " if os.geteuid() == 0 else ""
    sh(
        f"{as_postgres}psql -qc \"DO \\$\\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'omni') "
        f"THEN CREATE ROLE omni LOGIN PASSWORD 'omni' CREATEDB; END IF; END\\$\\$;\""
    )
    if "omni_test" not in sh(f"{as_postgres}psql -lqt").stdout:
        sh(f"{as_postgres}createdb -O omni omni_test")
    print(URL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
