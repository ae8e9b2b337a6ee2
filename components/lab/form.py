"""The strategy lab's inputs: the batch (shipped, uploaded or a path), the grid, the run with its progress, the hand-off
of a large batch to the CLI, and results loaded from a file. Words from lab.po; every widget has a ``key=``.
"""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from components import choices as C
from components.frame import cached_providers, provider_label, region_name
from components.lab import state as S
from components.lab.choices import LAB
from components.lab.words import (
    SOURCE_WORDS,
    invalid_line_sentence,
    mode_name,
    optimiser_name,
    strategy_name,
)
from components.language import t
from components.progress import TimeLeft, progress_box, time_left_words
from core.errors import OmniError
from core.i18n import Lang
from core.models.lab import OPTIMISERS, LabGrid
from core.models.route import STRATEGIES

MAX_SENTENCES = 8  # invalid lines listed as sentences; the rest counted


def _error(exc: Exception, key: str, lang: Lang) -> None:
    """A structured error in words, its code and message in the details."""
    st.error(t(key, lang))
    with st.expander(t("common.details", lang), expanded=False):
        if isinstance(exc, OmniError):
            st.caption(f"{exc.code}: {exc.message}")
        else:
            st.caption(str(exc))


def render_batch(lang: Lang) -> S.LoadedBatch | None:
    """Pick or upload a batch; its facts and its invalid lines (as sentences). None: no batch (yet)."""
    source = C.select(
        st,
        LAB,
        S.SOURCE,
        t("lab.batch.source", lang),
        list(SOURCE_WORDS),
        format_func=lambda code: t(SOURCE_WORDS[code], lang),
        radio=True,
        horizontal=True,
    )
    try:
        if source == "shipped":
            names = S.shipped_batches()
            shipped = C.select(
                st,
                LAB,
                S.SHIPPED,
                t("lab.batch.shipped", lang),
                names,
                format_func=str,
                help=t("lab.batch.shipped_help", lang),
            )
            loaded = S.load_batch_file(S.BATCHES_DIR / shipped) if names and shipped else None
        elif source == "upload":
            upload = st.file_uploader(
                t("lab.batch.upload", lang),
                type=["jsonl", "json", "csv"],
                key=S.UPLOAD,
                help=t("lab.batch.format", lang),
            )
            loaded = S.load_batch_upload(upload.name, upload.getvalue()) if upload is not None else None
        else:
            path = C.value_widget(
                st.text_input, LAB, S.BATCH_PATH, t("lab.batch.path", lang), help=t("lab.batch.format", lang)
            )
            loaded = S.load_batch_file(path.strip()) if path and path.strip() else None
    except (OmniError, OSError) as exc:
        _error(exc, "lab.batch.unreadable", lang)
        return None
    if loaded is None:
        st.caption(t("lab.batch.none", lang))
        return None
    batch = loaded.batch
    kinds = {item.kind for _, item in batch.items}
    st.caption(
        t(
            "lab.batch.facts",
            lang,
            n=len(batch),
            valid=len(batch.items),
            regions=t("lab.list_separator", lang).join(region_name(r, lang) for r in loaded.regions),
            kinds=t("lab.list_separator", lang).join(
                t("lab.batch.kind.trip" if k == "trip" else "lab.batch.kind.route", lang) for k in sorted(kinds)
            )
            or "–",
        )
    )
    if batch.invalid:
        with st.container(key="lab_invalid_lines"):
            st.warning(t("lab.batch.invalid", lang, count=len(batch.invalid)))
            for line in batch.invalid[:MAX_SENTENCES]:
                st.markdown("- " + invalid_line_sentence(line.index, line.code, lang))
            if len(batch.invalid) > MAX_SENTENCES:
                st.caption(t("lab.batch.invalid_more", lang, count=len(batch.invalid) - MAX_SENTENCES))
            with st.expander(t("common.details", lang), expanded=False):
                for line in batch.invalid:
                    st.caption(f"{line.id} · {line.code}: {line.message}")
    return loaded


def _providers_for(regions: list[str]) -> list[str]:
    """Providers every region of the batch can use (offline first)."""
    offered: list[str] | None = None
    for region in regions:
        try:
            names = cached_providers(region)
        except (OmniError, ValueError, OSError):
            continue
        offered = names if offered is None else [n for n in offered if n in names]
    return offered or ["offline"]


def render_grid(loaded: S.LoadedBatch, lang: Lang) -> tuple[LabGrid | None, int]:
    """The grid's widgets and how many requests run on the page; (None, limit) when the grid is not valid."""
    _render_compared(lang)
    _render_providers_and_regions(loaded.regions, lang)
    _render_run_size(loaded, lang)
    limit = int(st.session_state[S.LIMIT])
    return _grid_or_error(loaded.regions, lang), limit


def _render_compared(lang: Lang) -> None:
    """The first row: the strategies, transport modes and optimisers compared."""
    c1, c2, c3 = st.columns(3)
    C.multiselect(
        c1,
        LAB,
        S.STRATEGIES_KEY,
        t("lab.grid.strategies", lang),
        list(STRATEGIES),
        format_func=lambda c: strategy_name(c, lang),
        wrap=True,  # every chosen tag in sight: on one line the third ("Balanced") was hidden
    )
    C.multiselect(
        c2,
        LAB,
        S.MODES_KEY,
        t("lab.grid.modes", lang),
        list(S.MODES),
        format_func=lambda c: mode_name(c, lang),
        wrap=True,
    )
    C.multiselect(
        c3,
        LAB,
        S.OPTIMISERS_KEY,
        t("lab.grid.optimisers", lang),
        list(OPTIMISERS),
        format_func=lambda c: optimiser_name(c, lang),
        help=t("lab.grid.optimisers_help", lang),
        wrap=True,
    )
    c3.caption(t("lab.grid.optimisers_caption", lang))  # the tags are short names; this says what each one does


def _render_providers_and_regions(regions: list[str], lang: Lang) -> None:
    """The second row: the providers every region of the batch can use and, for a batch of several regions, the
    regions run (all of them at first)."""
    c1, c2 = st.columns(2)
    C.multiselect(
        c1,
        LAB,
        S.PROVIDERS_KEY,
        t("lab.grid.providers", lang),
        _providers_for(regions),
        format_func=lambda name: provider_label(name, lang, short=True),  # a tag: its help explains
        help=t("lab.grid.providers_help", lang),
        wrap=True,
    )
    if len(regions) > 1:
        if LAB.get().lab_regions is None:
            LAB.set(lab_regions=list(regions))
        C.multiselect(
            c2,
            LAB,
            S.REGIONS_KEY,
            t("lab.grid.regions", lang),
            regions,
            format_func=lambda r: region_name(r, lang),
            wrap=True,
        )
    else:
        st.session_state.pop(S.REGIONS_KEY, None)


def _render_run_size(loaded: S.LoadedBatch, lang: Lang) -> None:
    """The third row: how many requests run on the page (a new batch: its default sample), the optimisers' time
    limit, the seed and whether the routes' lines are kept."""
    c1, c2, c3, c4 = st.columns(4)
    if LAB.get().lab_limit_for != loaded.digest or LAB.get().lab_limit is None:  # a new batch: its default sample
        LAB.set(lab_limit_for=loaded.digest, lab_limit=min(len(loaded.batch), S.PAGE_LIMIT))
    C.value_widget(
        c1.number_input,
        LAB,
        S.LIMIT,
        t("lab.grid.limit", lang),
        min_value=1,
        max_value=len(loaded.batch),
        step=1,
        help=t("lab.grid.limit_help", lang, total=len(loaded.batch)),
    )
    C.value_widget(
        c2.number_input,
        LAB,
        S.TIME_LIMIT,
        t("lab.grid.time_limit", lang),
        min_value=0.01,
        max_value=60.0,
        step=0.05,
        help=t("lab.grid.time_limit_help", lang),
    )
    C.value_widget(
        c3.number_input, LAB, S.SEED, t("lab.grid.seed", lang), min_value=0, step=1, help=t("lab.grid.seed_help", lang)
    )
    C.value_widget(c4.checkbox, LAB, S.GEOMETRY, t("lab.grid.geometry", lang), help=t("lab.grid.geometry_help", lang))


def _grid_or_error(regions: list[str], lang: Lang) -> LabGrid | None:
    """The grid the widgets hold, or None and an error naming the lists left empty."""
    try:
        return S.grid_from_state(st.session_state, regions)
    except ValidationError as exc:
        fields = sorted({str(e["loc"][0]) for e in exc.errors() if e.get("loc")})
        names = {
            "strategies": "lab.grid.strategies",
            "modes": "lab.grid.modes",
            "optimisers": "lab.grid.optimisers",
            "providers": "lab.grid.providers",
        }
        labels = [t(names[f], lang) for f in fields if f in names] or [t("lab.grid.title", lang)]
        with st.container(key="lab_grid_error"):
            st.error(t("lab.grid.empty", lang, fields=t("lab.list_separator", lang).join(labels)))
        return None


def render_run(loaded: S.LoadedBatch, grid: LabGrid, limit: int, lang: Lang) -> None:
    """The run button (with live progress), its size, and the CLI command for the whole batch."""
    sample = S.first_requests(loaded.batch, limit)
    regions = [r for r in loaded.regions if grid.runs(r)]
    requests = sum(1 for _, item in sample.items if grid.runs(item.region)) + sum(
        1 for line in sample.invalid if grid.runs(line.region)
    )
    tasks = requests * len(grid.providers) * len(grid.modes)
    st.caption(
        t(
            "lab.run.size",
            lang,
            requests=requests,
            total=len(loaded.batch),
            tasks=tasks,
            cells=len(grid.strategies) * len(grid.optimisers),
        )
    )
    if not regions:
        st.warning(t("lab.run.no_region", lang))
    clicked = st.button(t("lab.run.button", lang), key="lab_run", type="primary", disabled=not regions)
    # the run's progress right under the button pressed: below the command-line box it was out of sight
    progress_slot = st.container(key="lab_progress")
    whole = S.signature(loaded, grid, None)
    with st.expander(t("lab.cli.title", lang), expanded=limit < len(loaded.batch), key="lab_cli"):
        st.markdown(t("lab.cli.explain", lang, total=len(loaded.batch)))
        out = S.out_path(loaded, whole)
        st.code(S.cli_command(loaded.path, S.write_grid(grid, whole), out), language="bash")
        st.caption(t("lab.cli.then", lang))
        st.code(str(out), language=None)
        if st.button(t("lab.cli.load", lang), key="lab_load_cli", disabled=not out.is_file()):
            _load_file(out, loaded, lang)
    if clicked:
        with progress_slot:
            _run(loaded, grid, limit, lang)


def _run(loaded: S.LoadedBatch, grid: LabGrid, limit: int, lang: Lang) -> None:
    pace = TimeLeft()

    def report(done: int, total: int) -> None:
        left = pace.update(done, total)
        words = (
            t("lab.run.progress", lang, done=done, total=total)
            if left is None
            else t("lab.run.progress_left", lang, done=done, total=total, left=time_left_words(left, lang))
        )
        box.update(words, done / max(total, 1))

    try:
        with progress_box(t("lab.run.running", lang)) as box:
            box.update(t("lab.run.progress", lang, done=0, total=1), 0.0)
            result = S.run_on_page(loaded, grid, limit, report)
            box.finish(t("lab.run.done", lang, rows=len(result.frame), seconds=f"{result.wall_s or 0:.1f}"))
    except (OmniError, OSError) as exc:
        _error(exc, "lab.run.failed", lang)
        return
    st.session_state[S.RESULT] = result
    st.session_state.pop(S.SUMMARIES, None)


def _load_file(path: object, loaded: S.LoadedBatch | None, lang: Lang) -> None:
    try:
        result = S.load_result_file(str(path), items=loaded.items_by_id() if loaded else None)
    except (OmniError, OSError, ValueError) as exc:
        _error(exc, "lab.load.failed", lang)
        return
    st.session_state[S.RESULT] = result
    st.session_state.pop(S.SUMMARIES, None)


def render_load(loaded: S.LoadedBatch | None, lang: Lang) -> None:
    """Results written earlier (by the CLI): a path on this machine or an uploaded file."""
    with st.expander(t("lab.load.title", lang), expanded=False, key="lab_load_box"):
        st.caption(t("lab.load.explain", lang))
        c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
        c1.text_input(t("lab.load.path", lang), key=S.RESULTS_PATH, persist_state="session")
        if c2.button(t("lab.load.button", lang), key="lab_load", width="stretch"):
            path = (st.session_state.get(S.RESULTS_PATH) or "").strip()
            if path:
                _load_file(path, loaded, lang)
            else:
                st.warning(t("lab.load.no_path", lang))
        upload = st.file_uploader(t("lab.load.upload", lang), type=["parquet", "csv"], key=S.RESULTS_UPLOAD)
        if upload is not None and st.session_state.get("lab_results_upload_seen") != upload.file_id:
            st.session_state["lab_results_upload_seen"] = upload.file_id
            try:
                result = S.load_result_upload(upload.name, upload.getvalue())
            except (OmniError, OSError, ValueError) as exc:
                _error(exc, "lab.load.failed", lang)
            else:
                if loaded is not None:
                    result.items = loaded.items_by_id()
                st.session_state[S.RESULT] = result
                st.session_state.pop(S.SUMMARIES, None)
