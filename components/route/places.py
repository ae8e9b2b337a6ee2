"""The places chosen in the route form's “Did you mean…” (components/route/place_picker.py, issue 12 §3).

When a plan fails with AMBIGUOUS_PLACE the form offers each ambiguous field's candidates; the chosen one is put
into that field (name and address) and its POI id into the request (RawStop.poi_id, origin_poi_id,
destination_poi_id), so the next plan takes exactly that place. The POI id holds only while the field keeps the
chosen name and address: editing the text drops it. A widget cannot change once drawn, so a choice waits in
``PENDING_PLACES`` and goes into the widgets at the top of the next run (``apply_pending_places``).

Pure helpers on a state mapping (``st.session_state`` on the page): no Streamlit import.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from components.session import MutableState, StateView
from components.stops_table import clean

PLACES = "route_chosen_places"  # {field: {name, address, poi_id}}: the places chosen so far
PENDING_PLACES = "route_pending_places"  # chosen in this run, put into the widgets at the top of the next
ENDS = ("origin_address", "destination_address")


def chosen_poi_id(state: StateView, field: str, name: Any, address: Any) -> str | None:
    """The POI id of the place chosen for ``field`` while the field still holds its name and address."""
    chosen = (state.get(PLACES) or {}).get(field)
    if not chosen or not chosen.get("poi_id"):
        return None
    if (clean(name), clean(address)) != (clean(chosen.get("name")), clean(chosen.get("address"))):
        return None
    return str(chosen["poi_id"])


def fill_place(field: str, values: Mapping[str, Any], *, state: MutableState | None = None) -> None:
    """Choose a place for ``field`` (origin_address, destination_address, stops.N): ``values`` has its name,
    address and POI id (place_picker.stop_fields); it goes into the form on the next run."""
    if state is None:
        import streamlit as st

        state = st.session_state
    chosen = {"name": values.get("name"), "address": values.get("address"), "poi_id": values.get("poi_id")}
    pending = dict(state.get(PENDING_PLACES) or {})
    pending[field] = chosen
    state[PENDING_PLACES] = pending


def apply_pending_places(state: MutableState, stops: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]] | None:
    """Put the pending choices into the form: the ends' name and address widgets in ``state``, the stops into a
    copy of ``stops`` (the form's stops in request order), returned when one changed (else None); the choices
    are remembered in ``PLACES`` for ``chosen_poi_id``."""
    pending = state.pop(PENDING_PLACES, None) or {}
    places = dict(state.get(PLACES) or {})
    changed: list[dict[str, Any]] | None = None
    for field, chosen in pending.items():
        name = chosen.get("name") or ""
        address = chosen.get("address") or name
        head, _, index = field.partition(".")
        if field in ENDS:
            state[f"{field.removesuffix('_address')}_name"] = name
            state[field] = address
        elif head == "stops" and index.isdigit() and int(index) < len(stops):
            changed = changed if changed is not None else [dict(s) for s in stops]
            changed[int(index)] = {**changed[int(index)], "name": name, "address": address}
        else:
            continue
        places[field] = {"name": name, "address": address, "poi_id": chosen.get("poi_id")}
    state[PLACES] = places
    return changed
