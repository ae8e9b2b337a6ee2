"""Home: what the product does and where to start, in the user's language (locales/*/LC_MESSAGES/home.po)."""

import streamlit as st

from components.language import current_lang, t
from components.legacy_pages import ensure_app_frame

ensure_app_frame()
lang = current_lang()

st.title(":material/explore: " + t("home.title", lang))
st.markdown(t("home.intro", lang))

CARDS = [  # icon, title, body, link, page: keys written out whole (tests/i18n finds them in the code)
    (":material/route:", "home.route.title", "home.route.body", "home.route.open", "pages/route_planner.py"),
    (":material/smart_toy:", "home.agent.title", "home.agent.body", "home.agent.open", "pages/agent_console.py"),
    (":material/schedule:", "home.half_day.title", "home.half_day.body", "home.half_day.open", "pages/half_day.py"),
]
for column, (icon, title, body, link, page) in zip(st.columns(len(CARDS)), CARDS):
    with column.container(border=True):
        st.markdown(f"### {icon} " + t(title, lang))
        st.markdown(t(body, lang))
        st.page_link(page, label=t(link, lang), icon=":material/arrow_forward:")

with st.container(border=True):
    st.markdown("### :material/calendar_month: " + t("home.itinerary.title", lang))
    st.markdown(t("home.itinerary.body", lang))
    st.page_link("pages/itinerary.py", label=t("home.itinerary.open", lang), icon=":material/arrow_forward:")

with st.container(border=True):  # the strategy lab's words live in its own catalog (lab.po)
    st.markdown("### :material/science: " + t("lab.home.title", lang))
    st.markdown(t("lab.home.body", lang))
    st.page_link("pages/strategy_lab.py", label=t("lab.home.open", lang), icon=":material/arrow_forward:")

st.info(t("home.offline_note", lang), icon=":material/cloud_off:")
