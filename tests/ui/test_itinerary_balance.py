"""Uneven days in words (components/itinerary/words.balance_words, panels.render_balance): the page says
why, in the reader's language, beside the days; the code stays in the Details section."""

from __future__ import annotations

import re

import pytest

from components.itinerary.words import balance_moved_words, balance_words, names_of
from core.config import get_settings
from core.geo.registry import make_provider
from core.itinerary.pipeline import plan_itinerary
from core.models.itinerary import TripRequest

pytestmark = pytest.mark.ui

MONDAY_ONLY = ["sh-bund", "sh-yuyuan-garden", "sh-xintiandi", "sh-tianzifang", "sh-jingan-temple", "sh-fuxing-park"]


@pytest.fixture(scope="module")
def uneven():
    """Six places open only on Mondays and one open every day, over a Monday and a Tuesday."""
    request = TripRequest.model_validate(
        {
            "trip_name": "Monday only",
            "region": "shanghai",
            "hotel": {"place_id": "sh-peace-hotel"},
            "days": [
                {"date": "2025-06-09", "start_time": "09:00", "end_time": "21:00"},
                {"date": "2025-06-10", "start_time": "09:00", "end_time": "21:00"},
            ],
            "places": [
                *({"place_id": p, "visit_minutes": 45, "opening_hours": "Mo 09:00-21:00"} for p in MONDAY_ONLY),
                {"place_id": "sh-peoples-square", "visit_minutes": 45},
            ],
        }
    )
    return plan_itinerary(
        request, provider=make_provider(None, region="shanghai", settings=get_settings()), settings=get_settings()
    )


def test_the_reason_is_a_sentence_in_each_language(uneven):
    names = names_of(uneven.request)
    [en] = balance_words(uneven, names, "en")
    [zh] = balance_words(uneven, names, "zh")
    heavy, light = uneven.balance.days[0].visits, uneven.balance.days[1].visits
    assert en.startswith(f"There are {heavy} visits on day 1 (Mon) and {light} on day 2 (Tue):")
    assert en.endswith("are not open long enough on day 2 (Tue).")
    english = {
        "sh-bund": "The Bund",
        "sh-yuyuan-garden": "Yu Garden",
        "sh-xintiandi": "Xintiandi",
        "sh-tianzifang": "Tianzifang",
        "sh-jingan-temple": "Jing'an Temple",
        "sh-fuxing-park": "Fuxing Park",
    }
    named = [english[k] for k in uneven.balance.reasons[0].keys[:3]]
    assert f"{', '.join(named)}, and 3 more are" in en  # three named, the other three counted
    assert not re.search(r"[\u4e00-\u9fff]", en)
    assert f"有 {heavy} 个景点" in zh and "还有 3 个" in zh and "不开放或开放时间不够" in zh
    for text in (en, zh):
        assert "ONLY_OPEN_THAT_DAY" not in text and "sh-" not in text and "None" not in text


def test_even_days_say_nothing_and_moved_places_are_counted(uneven):
    even = uneven.model_copy(deep=True)
    even.balance.balanced = True
    even.balance.reasons = []
    assert uneven.balance.moves == 1  # the place open every day went to the Tuesday: 6 and 1, not 7 and 0
    even.balance.moves, even.balance.extra_travel_min = 0, 0
    assert balance_words(even, names_of(even.request), "en") == []
    assert balance_moved_words(even, "en") is None
    even.balance.moves, even.balance.extra_travel_min = 2, 17
    assert balance_moved_words(even, "en") == (
        "To keep the days even, 2 place(s) were moved to a lighter day (17 more minutes of travel in all)."
    )
    assert "2 个景点" in balance_moved_words(even, "zh")


def test_the_page_shows_the_reason_beside_the_days_and_the_code_in_details(uneven, leaflet_static, project_root):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(project_root / "app.py"), default_timeout=90)
    at.query_params["lang"] = "en"
    at.run()
    at.switch_page("pages/itinerary.py")
    at.run()
    at.session_state["it_result"] = uneven
    at.run()
    assert not at.exception, at.exception
    main = [i.value for i in at.info]
    said = [text for text in main if text.startswith("There are ")]
    assert len(said) == 1 and "not open long enough on day 2 (Tue)" in said[0]
    assert not any("ONLY_OPEN_THAT_DAY" in text for text in main)
    at.session_state["it_details"] = True  # the raw data is drawn once its section is opened (issue 32)
    at.run()
    assert not at.exception, at.exception
    [details] = [e for e in at.expander if e.label == "Raw data (for debugging)"]
    captions = "\n".join(str(c.value) for c in details.caption)
    assert "balance reason ONLY_OPEN_THAT_DAY: day 0 → day 1" in captions
