"""OR-Tools routing's search status by OR-Tools' own name (ROUTING_SUCCESS, ROUTING_FAIL_TIMEOUT, ...), for the
itinerary's day solver and the lab's OR-Tools runs: one reading of the library's enum, not a copied table."""

from __future__ import annotations


def routing_status_name(code: int) -> str:
    """The name OR-Tools gives the routing status ``code``; a code it does not name, as its number."""
    from ortools.constraint_solver import routing_enums_pb2

    try:
        return str(routing_enums_pb2.RoutingSearchStatus.Value.Name(int(code)))
    except ValueError:
        return str(code)
