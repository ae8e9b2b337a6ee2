"""The load bench's clients (issue 33): ``clients`` people at once, each on its own keep-alive HTTP/1.1 connection,
sending its next question as soon as the last is answered (a closed loop: the offered load is what the server
serves). The clients are coroutines of one asyncio loop speaking HTTP/1.1 directly, not threads of httpx clients: they run on
the same two cores as the server, so they spend as little CPU as they can.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bench.load_mix import LoadRequest

PATH = "/agent/route_and_run"


@dataclass
class Outcome:
    """What one run's clients saw: each answer's seconds, status and whether the fast path (System 1) answered."""

    seconds: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)  # 0: no answer (connection refused, reset, timed out)
    fast: int = 0
    sent: list[LoadRequest] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status != 200)


def _request_bytes(host: str, key: str, request: LoadRequest) -> bytes:
    body = json.dumps({"message": request.message}, ensure_ascii=False).encode("utf-8")
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\nAccept-Language: {request.lang}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


async def _read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One HTTP/1.1 answer: its status and body (Content-Length or chunked)."""
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("the server closed the connection")
    status = int(status_line.split(b" ", 2)[1])
    length, chunked = 0, False
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value.strip())
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if not chunked:
        return status, await reader.readexactly(length)
    body = b""
    while (size := int((await reader.readline()).strip(), 16)) > 0:
        body += await reader.readexactly(size)
        await reader.readline()
    await reader.readline()
    return status, body


async def _client(
    port: int, key: str, draws: Iterator[LoadRequest], stop_at: float, outcome: Outcome, timeout_s: float
) -> None:
    host = f"127.0.0.1:{port}"
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    while True:  # at least one request each (a run of 0 s: one request per client)
        request = next(draws)
        t0 = time.perf_counter()
        status, body = 0, b""
        try:
            if writer is None or reader is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(_request_bytes(host, key, request))
            status, body = await asyncio.wait_for(_read_answer(reader), timeout_s)
        except (TimeoutError, OSError, ConnectionError, asyncio.IncompleteReadError, ValueError):
            if writer is not None:
                writer.close()
            reader = writer = None
        outcome.seconds.append(time.perf_counter() - t0)
        outcome.statuses[status] = outcome.statuses.get(status, 0) + 1
        outcome.fast += b'"route":"SYSTEM1_' in body
        outcome.sent.append(request)
        if time.monotonic() >= stop_at:
            break
    if writer is not None:
        writer.close()


def drive(
    port: int,
    *,
    clients: int,
    seconds: float,
    keys: list[str],
    draws_for: Callable[[int], Iterator[LoadRequest]],
    timeout_s: float = 60.0,
) -> Outcome:
    """``clients`` clients for ``seconds`` against the API on ``port``: client ``n`` uses ``keys[n % len(keys)]`` and
    asks ``draws_for(n)``'s questions in turn, at least one. The run ends when the answers started before its end
    have arrived."""
    outcome = Outcome()

    async def run() -> None:
        stop_at = time.monotonic() + seconds
        await asyncio.gather(
            *(_client(port, keys[n % len(keys)], draws_for(n), stop_at, outcome, timeout_s) for n in range(clients))
        )

    t0 = time.perf_counter()
    asyncio.run(run())
    outcome.wall_s = time.perf_counter() - t0
    return outcome


def percentile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``ordered`` (nearest rank; 0.0 for no values)."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered))) - 1))]
