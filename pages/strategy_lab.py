"""Strategy lab: many requests × strategies × modes × providers × optimisers (core/lab), run from a batch with live
progress or loaded from the CLI's results, rendered from state in the user's language (locales/*/LC_MESSAGES/lab.po).

Thin page: the inputs live in components/lab/form.py, the state in state.py, the results in results.py
(charts: charts.py, map: map.py, words: words.py).
"""

import streamlit as st

from components.frame import request_context
from components.lab import choices as lab_choices
from components.lab import form as lab_form
from components.lab import results as lab_results
from components.lab import state as S
from components.language import current_lang, t
from components.legacy_pages import ensure_app_frame

ensure_app_frame()
lang = current_lang()
user = request_context().user  # the dashboard always has one (components/identity.py); none: nothing kept
if user:
    lab_choices.restore(user)  # a reload: this user's settings and last results, kept on the server
st.title(":material/science: " + t("lab.page.title", lang))
st.markdown(t("lab.page.intro", lang))
if (lost := st.session_state.pop(lab_choices.LOST, None)) is not None:
    st.warning(t("lab.memory.lost", lang, name=lost), icon=":material/history:")
if st.session_state.pop(lab_choices.UNREACHABLE, False):
    st.warning(t("lab.memory.unreachable", lang), icon=":material/cloud_off:")

current = ""  # the signature of what the form would run now (a result made otherwise is stale)
with st.container(border=True):
    st.markdown("##### " + t("lab.batch.title", lang))
    loaded = lab_form.render_batch(lang)
    if loaded is not None:
        st.markdown("##### " + t("lab.grid.title", lang))
        grid, limit = lab_form.render_grid(loaded, lang)
        if grid is not None:
            current = S.signature(loaded, grid, limit)
            lab_form.render_run(loaded, grid, limit, lang)
lab_form.render_load(loaded, lang)

result = st.session_state.get(S.RESULT)
if result is not None:
    if not result.items and loaded is not None:  # a result restored from the server: the batch's requests
        result.items = loaded.items_by_id()
    lab_results.render_results(result, current, lang)
if user:
    lab_choices.remember(user)
