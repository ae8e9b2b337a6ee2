"""The PostgreSQL client deadline's watcher (core/stores/guard.py ``Deadlines``) cuts the connection it was armed for
and no other: a descriptor number closed during the transaction and reused by the kernel for another connection
(the driver dropping a broken connection while a new one opens) is not the socket it shuts down."""

from __future__ import annotations

import socket
import threading

from core.stores.guard import Deadlines


def wait_until_fired(armed: object) -> None:
    """Wait (at most 30 s, a hang guard, not a timing check) until the watcher has cut the armed connection."""
    tick = threading.Event()
    for _ in range(3000):
        if getattr(armed, "fired", False):
            return
        tick.wait(0.01)
    raise AssertionError("the deadline never fired")


def test_the_deadline_cuts_the_connection_it_was_armed_for() -> None:
    deadlines = Deadlines()
    ours, server = socket.socketpair()
    with ours, server, deadlines.arm(ours.fileno(), 0.05) as armed:
        wait_until_fired(armed)
        assert server.recv(1) == b""  # the other end sees the connection end
        assert deadlines.fired == 1


def test_a_reused_descriptor_number_is_not_cut() -> None:
    deadlines = Deadlines()
    ours, server = socket.socketpair()
    fd = ours.fileno()
    with server, deadlines.arm(fd, 0.3) as armed:
        ours.close()  # the driver drops the connection inside the transaction
        other, other_peer = socket.socketpair()  # another connection opens: the kernel hands out the lowest number
        with other, other_peer:
            assert fd in (other.fileno(), other_peer.fileno())  # the number was reused (the case this is about)
            wait_until_fired(armed)
            other.sendall(b"x")
            other_peer.sendall(b"y")
            assert other_peer.recv(1) == b"x" and other.recv(1) == b"y"  # the other connection still works
        assert server.recv(1) == b""  # the armed connection was the one ended
