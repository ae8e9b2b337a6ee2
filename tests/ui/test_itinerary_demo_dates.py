"""The itinerary page loads a demo trip on dates relative to today (issue 12 §4): the two-day museum demo, written
for a Monday because the museum closes on Mondays, starts on the first Monday on or after today in Shanghai."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.support.clock import suite_today

pytestmark = pytest.mark.ui


def test_the_monday_museum_demo_loads_on_the_next_monday(leaflet_static, project_root):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    at.query_params["lang"] = "en"
    at.run()
    at.switch_page("pages/itinerary.py")
    at.run()
    assert not at.exception, at.exception
    at.selectbox(key="trip_demo").set_value("shanghai_2day_monday_museum")
    at.button(key="trip_load").click().run()
    assert not at.exception, at.exception
    start = at.date_input(key="trip_start_date").value
    assert start.weekday() == 0  # a Monday, as the demo was written
    assert suite_today() <= start <= suite_today() + timedelta(days=6)  # the first Monday on or after today
    assert at.number_input(key="trip_days").value == 2
