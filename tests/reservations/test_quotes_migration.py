"""Alembic 0005 on SQLite and PostgreSQL: the earlier dry runs (rows ``pending`` with a reserve token, or ``failed``
as ``DRY_RUN_EXPIRED``) move out of the reservations into the quotes, with their tokens; a dry run made before the
upgrade can still be confirmed, and then its history reads pending then confirmed. Real reservations stay."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from core.packs.loader import load_region
from core.reservations import store
from core.reservations.catalog import catalogue
from core.reservations.service import ReservationService
from core.stores import db
from tests.support.databases import fresh_postgres
from tests.support.db import db_at

PACK = load_region("shanghai")
ITEM = next(i for i in catalogue(PACK) if i.category == "restaurant" and i.price_per_person)
NOW = datetime(2026, 12, 1, 1, 0, tzinfo=UTC)


def migrate(engine: sa.Engine, target: str, *, down: bool = False) -> None:
    config = Config()
    config.set_main_option("script_location", str(db.MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(config, target)


def _old_row(conn: sa.Connection, rid: str, status: str, moves: list[tuple[str | None, str, str]], token: str,
             *, used: bool, expires: datetime) -> None:  # fmt: skip
    conn.execute(sa.text(
        "INSERT INTO reservations (id, user_id, item_id, item_name, slot_date, slot_time, party_size, contact, notes,"
        " status, quote, policy, created_at) VALUES (:id, 'alice', :item, :name, :day, '19:00', 2, '', '', :status,"
        " :quote, :policy, :at)"
    ), {"id": rid, "item": ITEM.id, "name": ITEM.name, "day": date(2026, 12, 5), "status": status, "at": NOW,
        "quote": '{"price_per_person": 40.0, "total": 80.0, "currency": "CNY", "source": "region pack"}',
        "policy": '{"free_until_hours": 2, "fee_share": 0.5}'})  # fmt: skip
    for frm, to, reason in moves:
        conn.execute(sa.text(
            "INSERT INTO reservation_transitions (reservation_id, from_status, to_status, at, reason)"
            " VALUES (:id, :frm, :to, :at, :reason)"
        ), {"id": rid, "frm": frm, "to": to, "at": NOW, "reason": reason})  # fmt: skip
    conn.execute(sa.text(
        "INSERT INTO reservation_tokens (token_hash, user_id, reservation_id, action, expires_at, used_at)"
        " VALUES (:hash, 'alice', :id, 'reserve', :expires, :used)"
    ), {"hash": hashlib.sha256(token.encode()).hexdigest(), "id": rid, "expires": expires,
        "used": NOW if used else None})  # fmt: skip


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_0005_moves_the_earlier_dry_runs_into_quotes(kind, tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}" if kind == "sqlite" else fresh_postgres("quotes_migration")
    raw = sa.create_engine(url)
    migrate(raw, "0004")
    later = datetime(2026, 12, 1, 1, 10, tzinfo=UTC)
    with raw.begin() as conn:
        _old_row(conn, "r-open", "pending", [(None, "pending", "dry run")], "open-token", used=False, expires=later)
        _old_row(conn, "r-expired", "failed", [(None, "pending", "dry run"), ("pending", "failed", "DRY_RUN_EXPIRED")],
                 "expired-token", used=False, expires=NOW)  # fmt: skip
        _old_row(conn, "r-booked", "confirmed", [(None, "pending", "dry run"), ("pending", "confirmed", "confirmed")],
                 "booked-token", used=True, expires=later)  # fmt: skip
        _old_row(conn, "r-full", "failed", [(None, "pending", "dry run"), ("pending", "failed", "SLOT_FULL")],
                 "full-token", used=True, expires=later)  # fmt: skip
    migrate(raw, "0005")
    with raw.connect() as conn:
        kept = sorted(conn.execute(sa.text("SELECT id FROM reservations")).scalars())
        quoted = sorted(conn.execute(sa.text("SELECT id FROM reservation_quotes")).scalars())
        tokens = sorted(conn.execute(sa.text("SELECT reservation_id FROM reservation_tokens")).scalars())
        moves = sorted(conn.execute(sa.text("SELECT DISTINCT reservation_id FROM reservation_transitions")).scalars())
    raw.dispose()
    assert kept == tokens == moves == ["r-booked", "r-full"]
    assert quoted == ["r-expired", "r-open"]
    service = ReservationService(pack=PACK, engine=store.engine_for(db_at(url)), clock=lambda: NOW)
    assert [r.id for r in service.reservations_of("alice")] == ["r-booked", "r-full"]  # no "failed (expired)"
    done = service.confirm("alice", "r-open", token="open-token", idempotency_key="k", consent=True)
    assert [t.to_status for t in done.reservation.transitions] == ["pending", "confirmed"]
    migrate(service.engine, "0004", down=True)  # and down again: the quotes table goes
    with service.engine.connect() as conn:
        assert not sa.inspect(conn).has_table("reservation_quotes")
