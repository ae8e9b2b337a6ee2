"""A turn is kept as a snippet after its answer, except when the database just failed the request: the write would
wait the statement deadline again on a frozen server (the agent's edit answered DATABASE_UNREACHABLE in 4.1 s, two
deadlines, during a freeze)."""

from __future__ import annotations

from types import SimpleNamespace

from core.agent.flows.memory import keep_turn


class Memory:
    def __init__(self) -> None:
        self.written: list[str] = []

    def write_episode(self, user_id: str, kind: str, text: str, *, facts: dict) -> None:
        self.written.append(text)


def turn(error_code: str | None) -> tuple[SimpleNamespace, SimpleNamespace, Memory]:
    memory = Memory()
    ctx = SimpleNamespace(request=SimpleNamespace(message="加上东方明珠", user_id="alice"), memory=memory)
    result = SimpleNamespace(answer_text="已加入东方明珠", status="OK" if error_code is None else "FAILED",
                             error_code=error_code)  # fmt: skip
    response = SimpleNamespace(result=result, route=SimpleNamespace(route="SYSTEM2_EDIT"), request_id="r1")
    return ctx, response, memory


def test_a_turn_is_kept() -> None:
    ctx, response, memory = turn(None)
    keep_turn(ctx, response)  # type: ignore[arg-type]
    assert memory.written == ["加上东方明珠\n已加入东方明珠"]


def test_a_turn_the_database_failed_is_not_written_again() -> None:
    ctx, response, memory = turn("DATABASE_UNREACHABLE")
    keep_turn(ctx, response)  # type: ignore[arg-type]
    assert memory.written == []
