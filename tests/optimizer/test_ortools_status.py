"""OR-Tools routing statuses are named as OR-Tools names them (its RoutingSearchStatus enum), not from a copy."""

from __future__ import annotations

from core.optimizer.ortools_status import routing_status_name


def test_the_statuses_are_named_as_ortools_documents_them():
    # OR-Tools' routing_enums.proto: 0 not solved, 1 success, 3 fail, 4 fail on its time limit, 7 optimal
    assert routing_status_name(0) == "ROUTING_NOT_SOLVED"
    assert routing_status_name(1) == "ROUTING_SUCCESS"
    assert routing_status_name(3) == "ROUTING_FAIL"
    assert routing_status_name(4) == "ROUTING_FAIL_TIMEOUT"
    assert routing_status_name(7) == "ROUTING_OPTIMAL"


def test_a_status_ortools_does_not_name_is_its_number():
    assert routing_status_name(99) == "99"
