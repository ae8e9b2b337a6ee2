"""The strategy lab's choices as codes (components/choices.py), and their per-user memory on the server
(core/app/lab_memory.py): a language switch, a page switch and a reload keep the settings and the last results."""

from __future__ import annotations

from typing import Any, Literal

import streamlit as st

from components.choices import Choices, ChoiceStore
from core.errors import DatabaseUnreachable, OmniError
from core.models.route import STRATEGIES


class LabChoices(Choices):
    """The form's and the results' choices; the field names are the widgets' keys (components/lab/state.py)."""

    lab_source: Literal["shipped", "upload", "path"] = "shipped"
    lab_shipped: str | None = None  # a file name in data/batches
    lab_batch_path: str = ""
    lab_limit: int | None = None  # requests run on the page (None: the batch's default sample)
    lab_limit_for: str | None = None  # the digest of the batch ``lab_limit`` was chosen for
    lab_strategies: list[str] = list(STRATEGIES)
    lab_modes: list[str] = ["driving"]
    lab_optimisers: list[str] = ["project", "ortools_gls", "nearest_neighbour"]
    lab_providers: list[str] = ["offline"]
    lab_regions: list[str] | None = None  # None: every region of the batch
    lab_time_limit: float = 0.2
    lab_seed: int = 0
    lab_geometry: bool = True
    # the results' views
    lab_a: str | None = None
    lab_b: str | None = None
    lab_pair_optimiser: str | None = None
    lab_objective: str | None = None
    lab_map_group: str | None = None
    lab_map_colour: str | None = None
    lab_request: str | None = None
    lab_export_chart: str | None = None


LAB = ChoiceStore("lab_choices", LabChoices)
RESTORED = "lab_memory_restored"  # this session has read the user's memory
LOST = "lab_memory_lost"  # the name of kept results whose table could not be read again (said once, then dropped)
UNREACHABLE = "lab_memory_unreachable"  # the database did not answer: the memory was not read or not kept (said)


def memory_store() -> Any:
    """The lab's memory in the shared database (a reload on any dashboard process of a team finds it); a results
    table this process lacks is written again under its own lab folder."""
    from components.frame import request_context
    from components.lab.state import lab_dir
    from core.app.lab_memory import LabMemoryStore

    ctx = request_context()
    return LabMemoryStore(
        database=ctx.database, clock=ctx.clock, folder=lab_dir() / "results", legacy_root=lab_dir() / "users"
    )


def restore(user: str) -> None:
    """On a session's first visit to the lab: the user's settings and last results, as the server kept them."""
    if st.session_state.get(RESTORED) == user:
        return
    try:
        memory = memory_store().load(user)
    except DatabaseUnreachable:  # said on the page; read again on the next run
        st.session_state[UNREACHABLE] = True
        return
    st.session_state[RESTORED] = user
    if memory is None:
        return
    try:
        choices = LabChoices.model_validate(memory.settings)
    except ValueError:  # settings of an older page: start from the defaults
        choices = LabChoices()
    LAB.replace(st.session_state, choices)
    if memory.result is not None:
        from components.lab import state as S

        try:
            result = S.load_result_file(memory.result.path)
        except (OmniError, OSError, ValueError):  # the table is gone or unreadable: said, never silently nothing
            st.session_state[LOST] = memory.result.name
            return
        ref = memory.result
        result.name, result.signature, result.grid = ref.name, ref.signature, ref.grid or result.grid
        result.requests_run, result.requests_total, result.wall_s = ref.requests_run, ref.requests_total, ref.wall_s
        st.session_state[S.RESULT] = result


def remember(user: str) -> None:
    """After a run of the page: what the user chose and the result on screen, kept for their next visit."""
    from components.lab import state as S
    from core.app.lab_memory import LabMemory, LabResultRef

    if st.session_state.get(RESTORED) != user:  # the kept memory was not read (the database was down): keep it
        return
    result = st.session_state.get(S.RESULT)
    ref = None
    if result is not None:
        ref = LabResultRef(
            path=result.path,
            name=result.name,
            signature=result.signature,
            grid=result.grid,
            requests_run=result.requests_run,
            requests_total=result.requests_total,
            wall_s=result.wall_s,
        )
    memory = LabMemory(settings=LAB.get().model_dump(mode="json"), result=ref)
    store = memory_store()
    try:
        if store.load(user) != memory:  # most runs change nothing: no write
            store.save(user, memory)
    except DatabaseUnreachable:
        st.session_state[UNREACHABLE] = True


def copy_choice(key: str) -> None:
    """on_change of a results view's choice: kept for this user (a reload, a page switch)."""
    LAB.set(**{key: st.session_state.get(key)})


def keep_choice(key: str, options: list[str], default: str) -> None:
    """The kept choice of a results view (components/lab/choices.py), still one of ``options``."""
    value = getattr(LAB.get(), key)
    if value not in options:
        LAB.set(**{key: default if default in options else options[0]})
    else:
        st.session_state[key] = value
