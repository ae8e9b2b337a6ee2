"""Strategy lab: many requests × strategies × modes × providers × optimisers (core/lab), run from a batch with live
progress or loaded from the CLI's results, rendered from state in the user's language (locales/*/LC_MESSAGES/lab.po).

Thin page: the inputs live in components/lab_form.py, the state in lab_state.py, the results in lab_results.py
(charts: lab_charts.py, map: lab_map.py, words: lab_words.py).
"""

import streamlit as st

from components import lab_form, lab_results
from components import lab_state as S
from components.language import current_lang, t
from components.legacy_pages import ensure_app_frame

ensure_app_frame()
lang = current_lang()
st.title(":material/science: " + t("lab.page.title", lang))
st.markdown(t("lab.page.intro", lang))

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
    lab_results.render_results(result, current, lang)
