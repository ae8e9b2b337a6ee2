"""What is read of a pack on every request is built once per pack (core/packs/derived.py, issue 33), and reads the
same as built afresh: the scope check's masked words and vocabulary, the agent's named venues."""

from __future__ import annotations

import re

import pytest

from core.agent import booking
from core.geo.text import normalize
from core.packs import coverage
from core.packs.derived import PerPack
from core.packs.loader import list_regions, load_region
from core.reservations.catalog import catalogue


@pytest.fixture(scope="module")
def shanghai():
    return load_region("shanghai")


def test_a_derivation_is_built_once_per_pack_and_again_for_another(shanghai):
    built: list[str] = []
    names = PerPack(lambda pack: built.append(pack.name) or len(pack.places))
    assert names(shanghai) == names(shanghai) == len(shanghai.places)
    assert built == ["shanghai"]
    copy = shanghai.model_copy(update={"places": shanghai.places[:3]})  # a changed pack is a new object
    assert names(copy) == 3
    assert built == ["shanghai", "shanghai"]
    copy.places.append(shanghai.places[5])  # changed in place: the count tells, it is built again
    assert names(copy) == 4


def _masked_as_before(text: str, words: set[str]) -> str:
    """The scope check's masking as it was, every word of the pack tried on every text."""
    for word in sorted(words, key=len, reverse=True):
        if len(word) >= 2 and word in text:
            pattern = re.escape(word) if not word.isascii() else rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])"
            text = re.sub(pattern, lambda m: " " * len(m.group()), text, flags=re.IGNORECASE)
    return text


TEXTS = [
    "从南京东路步行到北京东路外滩要多久",
    "How long to walk from the Bund to Nanjing Road Pedestrian Street?",
    "明天去东京塔，再从上海虹桥站回上海新天地",
    "Is the Jade Buddha Temple open on Monday? And Tokyo Tower?",
    "helsinki cathedral to suomenlinna ferry",
    "我住在静安香格里拉大酒店，想去北京烤鸭店",
]


@pytest.mark.parametrize("text", TEXTS)
def test_the_masked_words_read_as_masking_every_word_did(shanghai, text):
    words = coverage.pack_words(shanghai)
    assert coverage._masked_in_order(text, coverage._pack_words_in(text, shanghai)) == _masked_as_before(text, words)


def test_the_vocabulary_is_the_packs_english_place_words_less_their_city_names():
    packs = [load_region(name) for name in list_regions()]
    words = {w.lower() for p in packs for place in p.places for w in re.findall(r"[A-Za-z][A-Za-z'\-]*", place.name_en)}
    cities = {w.lower() for p in packs for w in (p.city, *p.city_aliases, *p.display_name.values())}
    assert coverage._vocabulary(packs) == frozenset(words - cities)
    assert "temple" in coverage._vocabulary(packs) and "shanghai" not in coverage._vocabulary(packs)


def _named_as_before(text: str, pack):
    """named_venues as it was: every name of every place normalized on every message."""
    t = normalize(text)
    items = {i.id for i in catalogue(pack)}
    hits = []
    for p in pack.places:
        if p.category == "address":
            continue
        spans = [s for k in booking._name_keys(pack, p.id) for s in booking._spans(t, k)]
        best = max(spans, key=lambda s: s[1] - s[0], default=None)
        if best is not None:
            hits.append((best[0], best[1], p.id))
    hits.sort(key=lambda h: -(h[1] - h[0]))
    kept: list[tuple[int, int, str]] = []
    for a, b, pid in hits:
        if not any(a >= ka and b <= kb for ka, kb, _ in kept):
            kept.append((a, b, pid))
    return [(pid, pid in items) for _, _, pid in kept]


def test_named_venues_finds_what_reading_every_name_found(shanghai):
    texts = [*TEXTS]
    for place in shanghai.places[::7]:  # each name said in a sentence, in both languages and by an alias
        texts += [f"{place.name_zh}几点开门", f"Book a table at {place.name_en} for two", *place.aliases[:1]]
    for text in texts:
        bookable, other = booking.named_venues(text, shanghai)
        assert [(v.id, v.bookable) for v in (*bookable, *other)] == sorted(
            _named_as_before(text, shanghai), key=lambda v: not v[1]
        ), text
