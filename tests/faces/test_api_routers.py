"""api.py builds the app and includes its routers (api_routes/: the reservations, the half-day planner, memory): the
same operations as one file served, and a wrong method on a path served by a router still names every method the
path has."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("put", "/reservations", "GET, POST"),  # two operations of the reservations router on one path
        ("post", "/halfday/memory", "DELETE, GET"),  # the half-day router's
        ("put", "/memory", "DELETE, GET"),  # the memory router's
        ("get", "/reservations/r1/confirm", "POST"),
        ("put", "/health", "GET"),  # api.py's own
    ],
)
def test_a_wrong_method_names_every_method_of_the_path(client, method, path, allowed):
    answer = client.request(method.upper(), path)
    assert answer.status_code == 405
    assert answer.json()["error"]["code"] == "METHOD_NOT_ALLOWED"
    assert answer.headers["allow"] == allowed


def test_the_routers_operations_are_served_once_each_by_the_app(client):
    spec = client.get("/openapi.json").json()
    operations = sorted((path, method) for path, item in spec["paths"].items() for method in item)
    assert len(operations) == len(set(operations)) == 22
    by_tag = {}
    for item in spec["paths"].values():
        for operation in item.values():
            by_tag.setdefault(operation["tags"][0], set()).add(operation["operationId"])
    assert {tag: len(ids) for tag, ids in by_tag.items()} == {
        "agent": 5, "ops": 1, "reservations": 4, "route": 1, "halfday": 7, "memory": 4,
    }  # fmt: skip
