"""Omni-Travel Planner — Streamlit entry point: navigation and the frame shared by all pages.

Run: ``streamlit run app.py``. Pages live in pages/; planning logic lives in core/.
"""

from __future__ import annotations

import streamlit as st

from components.frame import render_frame
from components.identity import remember_identity
from components.language import t
from components.legacy_pages import mark_app_frame

# Pages in menu order, titled in the user's language (locales/*/LC_MESSAGES/common.po); adding a page is one
# line. No page icons: Streamlit turns a page's icon into the favicon and fetches it from a CDN, and the app must
# not need the network.
PAGES = [
    st.Page("pages/home.py", title=t("common.nav.home"), default=True),
    st.Page("pages/route_planner.py", title=t("common.nav.route_planner"), url_path="route_planner"),
    st.Page("pages/itinerary.py", title=t("common.nav.itinerary"), url_path="itinerary"),
    st.Page("pages/agent_console.py", title=t("common.nav.agent_console"), url_path="agent_console"),
    st.Page("pages/operator.py", title=t("common.nav.operator"), url_path="operator"),
    st.Page("pages/half_day.py", title=t("common.nav.half_day"), url_path="half_day"),
    st.Page("pages/strategy_lab.py", title=t("common.nav.strategy_lab"), url_path="strategy_lab"),
]

page = st.navigation(PAGES)
render_frame()  # wide layout, local Leaflet, sidebar (region + provider)
mark_app_frame()
remember_identity()  # who the dashboard acts for: the browser's cookie (components/identity.py)
page.run()
