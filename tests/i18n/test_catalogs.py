"""The message catalogs (locales/*/LC_MESSAGES/*.po) and core.i18n.t: complete in both languages, every key the
code uses is there, and a missing translation fails."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from core import i18n
from tests.support.paths import ROOT

CODE = [ROOT / "app.py", *sorted((ROOT / "components").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py"))]
CODE += sorted((ROOT / "core").rglob("*.py"))


USES_CATALOGS = re.compile(
    r"^\s*(?:from core(?:\.i18n)? import (?:i18n|t)\b|from core\.i18n import|from components\.language import)", re.M
)


def keys_in_code() -> dict[str, list[str]]:
    """The catalog keys the code names, with their files: the first argument of every ``t("...")`` call, and every
    string literal shaped like a key (``"route.page.title"``) in a file that uses the catalogs (keys kept in tables
    such as ``STRATEGY_LABELS``). Keys are written out whole (no f-strings), so this finds them all."""
    domains = "|".join(map(re.escape, i18n.domains()))
    key = rf"(?:{domains})\.[a-z0-9_]+(?:\.[a-z0-9_]+)*"
    call = re.compile(rf"""\bt\(\s*["']({key})["']""")
    literal = re.compile(rf"""["']({key})["']""")
    found: dict[str, list[str]] = {}
    for path in CODE:
        text = path.read_text(encoding="utf-8")
        keys = (literal if USES_CATALOGS.search(text) else call).findall(text)
        for name in keys:
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def write_po(path: Path, lang: str, entries: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f'\nmsgid "{k}"\nmsgstr "{v}"\n' for k, v in entries.items())
    header = textwrap.dedent(f"""\
        msgid ""
        msgstr ""
        "Language: {lang}\\n"
        "Content-Type: text/plain; charset=utf-8\\n"
        """)
    path.write_text(header + body, encoding="utf-8")


def test_every_catalog_parses_and_lists_keys_of_its_own_domain():
    files = sorted(i18n.LOCALES_DIR.glob("*/LC_MESSAGES/*.po"))
    assert {p.parent.parent.name for p in files} == {"zh", "en"}
    assert {"common", "home", "route"} <= {p.stem for p in files}
    for path in files:
        with path.open("rb") as fh:
            catalog = read_po(fh, locale=path.parent.parent.name)
        for message in catalog:
            if message.id:
                assert i18n.KEY_PATTERN.match(message.id), (path, message.id)
                assert i18n.domain_of(message.id) == path.stem, (path, message.id)


def test_every_key_has_words_in_both_languages_with_the_same_placeholders():
    assert i18n.check_catalogs() == []
    for domain in i18n.domains():
        zh, en = i18n.messages("zh", domain), i18n.messages("en", domain)
        assert set(zh) == set(en), domain
        for key in zh:
            assert zh[key].strip() and en[key].strip(), key
            assert i18n.placeholders(zh[key]) == i18n.placeholders(en[key]), key
    # a real message, both ways
    assert i18n.t("route.page.plan", "en") == "Plan route"
    assert i18n.t("route.page.plan", "zh") == "规划路线"


def test_every_key_the_code_uses_is_in_the_catalogs():
    used = keys_in_code()
    assert len(used) > 200  # the frame, the home page and the route planner at least
    missing = {key: files for key, files in used.items() if not (i18n.has(key, "zh") and i18n.has(key, "en"))}
    assert missing == {}


def test_a_key_without_a_translation_is_reported(tmp_path):
    write_po(tmp_path / "zh/LC_MESSAGES/demo.po", "zh", {"demo.hello": "你好,{name}", "demo.bye": "再见"})
    write_po(tmp_path / "en/LC_MESSAGES/demo.po", "en", {"demo.hello": "Hello, {who}", "demo.bye": ""})
    problems = i18n.check_catalogs(root=tmp_path)
    assert any("'demo.bye' has no en words" in p for p in problems), problems
    assert any("'demo.hello': placeholders differ" in p for p in problems), problems
    with pytest.raises(i18n.MissingMessage, match="demo.bye"):
        i18n.lookup("demo.bye", "en", {}, root=tmp_path)
    assert i18n.lookup("demo.hello", "zh", {"name": "小明"}, root=tmp_path) == "你好,小明"

    write_po(tmp_path / "en/LC_MESSAGES/demo.po", "en", {"demo.hello": "Hello, {name}", "demo.bye": "Bye"})
    i18n.reload()
    assert i18n.check_catalogs(root=tmp_path) == []


def test_a_key_of_the_wrong_domain_or_shape_is_reported(tmp_path):
    write_po(tmp_path / "zh/LC_MESSAGES/demo.po", "zh", {"other.hello": "你好", "Hello": "你好"})
    write_po(tmp_path / "en/LC_MESSAGES/demo.po", "en", {"other.hello": "Hi", "Hello": "Hi"})
    problems = i18n.check_catalogs(root=tmp_path)
    assert sum("is not a key of the 'demo' domain" in p for p in problems) == 4, problems


def test_outside_tests_a_missing_key_falls_back_to_the_other_language_and_never_shows_the_key(tmp_path, monkeypatch):
    write_po(tmp_path / "zh/LC_MESSAGES/demo.po", "zh", {"demo.only_zh": "只有中文"})
    write_po(tmp_path / "en/LC_MESSAGES/demo.po", "en", {"demo.count": "{n} stops"})
    monkeypatch.delenv("PYTEST_CURRENT_TEST")  # production: not strict
    from core.app.context import AppServices
    from core.config import Settings

    AppServices(Settings(i18n_strict=False))  # the composition root sets the policy from the settings
    try:
        assert not i18n.strict_mode()
        assert i18n.lookup("demo.only_zh", "en", {}, root=tmp_path) == "只有中文"
        assert i18n.lookup("demo.nowhere", "en", {}, root=tmp_path) == ""
        assert (
            i18n.lookup("demo.count", "en", {}, root=tmp_path) == "{n} stops"
        )  # a missing parameter: not filled, no crash
        AppServices(Settings(i18n_strict=True))
        assert i18n.strict_mode()
        with pytest.raises(i18n.MissingMessage):
            i18n.lookup("demo.only_zh", "en", {}, root=tmp_path)
    finally:
        i18n.set_strict(False)


def test_under_tests_a_missing_parameter_raises():
    with pytest.raises(KeyError):
        i18n.t("route.field.stop", "en")
    assert i18n.t("route.field.stop", "en", n=3) == "Stop 3"
    assert i18n.t("route.field.stop", "zh", n=3) == "第 3 个途经点"


@pytest.mark.parametrize(
    ("value", "lang"),
    [("zh", "zh"), ("zh-CN", "zh"), ("zh_Hant_TW", "zh"), ("ZH-tw", "zh"), ("en", "en"), ("en-GB", "en"),
     ("de-DE", "en"), ("", "en"), (None, "en"), ("zhx", "en")],
)  # fmt: skip
def test_a_browser_locale_picks_chinese_for_any_zh_and_english_otherwise(value, lang):
    assert i18n.lang_of_locale(value) == lang


def test_an_unknown_language_reads_as_english():
    assert i18n.normalize_lang("fr") is None
    assert i18n.t("route.page.plan", "fr") == "Plan route"
