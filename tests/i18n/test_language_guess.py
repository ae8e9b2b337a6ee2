"""core.i18n's one language guesser, its script test, and the one way to join words per language (issue 19)."""

from __future__ import annotations

import pytest

from core.i18n import guess_lang, has_cjk, join_words, list_sentence


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("明天外滩天气怎么样", "zh"),
        ("帮我订两位老吉士，周六晚上七点", "zh"),
        ("What's the weather tomorrow?", "en"),
        ("Book a table for 2 at 7pm", "en"),
        # an English sentence quoting Chinese place names is English
        ("Take me to 外滩", "en"),
        ("Go to 外滩", "en"),
        ("Is 外滩 open tomorrow?", "en"),
        ("Dinner at 老吉士 for 2 tomorrow at 7pm", "en"),
        ("外滩 and 豫园 tomorrow", "en"),
        ("外滩 to 豫园", "en"),  # the one word besides the names is English
        # a Chinese sentence quoting English names is Chinese
        ("我想去 the Bund", "zh"),
        ("明天 Bund 天气", "zh"),
        ("帮我订 Starbucks", "zh"),
        ("Apple Store 营业时间", "zh"),
        ("周六天气怎么样 in Shanghai", "zh"),
        ("我想坐地铁去外滩 by metro", "zh"),
        ("ｔｏｍｏｒｒｏｗ", "en"),  # full-width letters are letters
    ],
)
def test_guess_lang_reads_real_phrasings(text: str, lang: str) -> None:
    assert guess_lang(text) == lang


@pytest.mark.parametrize("text", ["", "   ", "123", "2026-12-01 19:30", "？！…", "😀"])
def test_text_without_letters_takes_the_default(text: str) -> None:
    assert guess_lang(text) == "en"
    assert guess_lang(text, default="zh") == "zh"
    assert guess_lang(text, default="en") == "en"


def test_the_default_does_not_override_letters() -> None:
    assert guess_lang("hello", default="zh") == "en"
    assert guess_lang("你好", default="en") == "zh"


def test_has_cjk_is_script_detection_not_language() -> None:
    assert has_cjk("Take me to 外滩")  # English by language, Chinese script inside
    assert has_cjk("㐀")  # extension A
    assert not has_cjk("Waitan 123")
    assert not has_cjk("")


def test_join_words_per_language() -> None:
    assert join_words(["外滩", "豫园"], "zh") == "外滩、豫园"
    assert join_words(["the Bund", "Yu Garden"], "en") == "the Bund, Yu Garden"
    assert join_words(["2人", "周六"], "zh", sep="phrases") == "2人，周六"
    assert join_words(["a, b", "c"], "en", sep="clauses") == "a, b; c"
    assert join_words(["a", "c"], "zh", sep="clauses") == "a；c"
    assert join_words(["A (¥1, pp)", "B"], "en", sep="items") == "A (¥1, pp); B"
    assert join_words(["一。", "二。"], "zh", sep="sentences") == "一。二。"
    assert join_words(["One.", "", "Two."], "en", sep="sentences") == "One. Two."
    assert join_words([], "zh") == ""
    assert join_words(["x", "y"], "zh-CN") == "x、y"  # a locale is read as its language
    assert join_words(["x", "y"], None) == "x, y"


def test_list_sentence_joins_the_last_two_with_and_or_or() -> None:
    assert list_sentence(["外滩", "豫园", "新天地"], "zh") == "外滩、豫园和新天地"
    assert list_sentence(["外滩", "豫园"], "zh", last="or") == "外滩或豫园"
    assert list_sentence(["the Bund", "Yu Garden", "Xintiandi"], "en") == "the Bund, Yu Garden and Xintiandi"
    assert list_sentence(["a", "b"], "en", last="or") == "a or b"
    assert list_sentence(["a"], "en") == "a"
    assert list_sentence([], "zh") == ""
