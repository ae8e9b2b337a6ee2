"""What a message's interests and place names match in a pack's own names (issue 31 audit): whole words only, and
the city's own name is the city, not a place in it. Names written by hand from the shipped packs' kinds of places."""

from __future__ import annotations

import pytest

from core.agent.interest_words import INTEREST_NAMES
from core.agent.trip_request import mentioned_places
from core.packs.loader import load_region

[(ANIMALS_SAID, ANIMAL_PLACE)] = INTEREST_NAMES


@pytest.mark.parametrize(
    "name",
    ["Shanghai Zoo", "Shanghai Zoological Park", "Sea Life Helsinki", "Shanghai Ocean Aquarium", "上海动物园",
     "长风海洋世界", "Wildlife Safari Park", "Marine World", "Zoos of the Bay", "Zoologischer Garten Berlin",
     "Zoológico de Madrid", "L'Oceanogràfic"],
)  # fmt: skip
def test_a_place_named_for_animals_serves_the_interest(name):
    assert ANIMAL_PLACE.search(name)


@pytest.mark.parametrize(
    "name", ["Zoomi Kuvakaupat", "Ilmarinen", "Oceanic Sushi Bar", "Submarine Sandwiches", "Safarihuone", "Zoom Cafe"]
)
def test_a_name_that_only_contains_an_animal_word_does_not(name):
    assert not ANIMAL_PLACE.search(name)


@pytest.mark.parametrize("said", ["my son loves animals", "孩子喜欢看动物", "a trip to the zoo", "we like sea life"])
def test_the_interest_is_read_from_the_message(said):
    assert ANIMALS_SAID.search(said)


def test_the_city_s_own_name_is_not_a_place_named_in_the_message():
    helsinki = load_region("helsinki")
    station = next(p for p in helsinki.places if p.name_en == "Helsinki railway station")
    assert station.name_zh == "Helsinki"  # the data names the main station after the city
    assert station.id not in mentioned_places("Plan a day in Helsinki with my daughter", helsinki)
    assert station.id not in mentioned_places("赫尔辛基一日游", helsinki)
    assert station.id in mentioned_places("Meet at Helsinki railway station at ten", helsinki)
    shanghai = load_region("shanghai")
    assert mentioned_places("上海两日游", shanghai) == []
    assert "sh-shanghai-zoo" in mentioned_places("上海两日游，第一天去上海动物园", shanghai)
