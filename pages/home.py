"""Home: what the product does and where to start."""

import streamlit as st

from components.legacy_pages import ensure_app_frame

ensure_app_frame()

st.title(":material/explore: Omni-Travel Planner")
st.markdown(
    "Plan trips in Chinese cities with real, checkable facts: every coordinate, distance and time "
    "says where it came from, and nothing is invented. 多目的地路线规划,结果可追溯。"
)

c1, c2, c3 = st.columns(3)
with c1.container(border=True):
    st.markdown("### :material/route: Route planner\n多目的地最优路线")
    st.markdown(
        "Give a start (fixed, or your current location), a destination and any number of stops. "
        "The planner resolves every address, compares the visiting orders and picks the best one "
        "for your strategy — shortest distance, fastest time or balanced — and explains why. "
        "You get a map, a comparison of candidates, AMap deep links and JSON / HTML / CSV exports."
    )
    st.page_link("pages/route_planner.py", label="Open the route planner", icon=":material/arrow_forward:")
with c2.container(border=True):
    st.markdown("### :material/smart_toy: Travel agent\n旅行助手")
    st.markdown(
        "Say what you want in plain words (“规划3天上海行程”, “删除外滩”, “豫园几点开门”). A router sends it to "
        "a fast answer or to a budgeted planning loop checked by a critic; browsing needs your consent "
        "and any booking or save needs a dry run and your confirmation."
    )
    st.page_link("pages/agent_console.py", label="Open the agent console", icon=":material/arrow_forward:")
with c3.container(border=True):
    st.markdown("### :material/schedule: Half-day planner\n半日闲 · 本地半日规划")
    st.markdown(
        "A few free hours? Say it in one sentence (“明天下午带孩子去博物馆,再吃点本帮菜”). The planner reads the "
        "time, the party and the wishes, checks opening hours, queues, prices and travel, and offers 2–3 plans with "
        "a score you can re-weight; bookable stops go through a dry run, your consent and a confirmation."
    )
    st.page_link("pages/half_day.py", label="Open the half-day planner", icon=":material/arrow_forward:")

with st.container(border=True):
    st.markdown("### :material/calendar_month: Multi-day itinerary\n多日行程规划")
    st.markdown(
        "Pick places from the region with a must / should / nice priority, set the days, hours, hotel, "
        "lunch and pacing, and optimise: each day becomes a timeline that respects opening hours, "
        "travel with a safety margin and lunch, with a map. Anything that does not fit is listed with "
        "the reason and the smallest fix. Lock, move or remove stops and re-optimise; export JSON or a calendar (ICS)."
    )
    st.page_link("pages/itinerary.py", label="Open the itinerary planner", icon=":material/arrow_forward:")

st.info(
    "By default everything runs **fully offline** on bundled region data (the *offline* provider): "
    "no API key and no network are needed, and the map is drawn from local files. "
    "Distances and times are then estimates and are labelled as such. "
    "Choose the *amap* provider in the sidebar (with OMNI_AMAP_KEY set) for live AMap data.",
    icon=":material/cloud_off:",
)
