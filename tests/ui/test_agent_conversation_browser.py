"""The agent's conversation survives a reload and has a link (issue 23), in Chromium on a real server.

A message sent on the agent console is kept on the server for the browser's identity (its cookie): the address
gains ``?c=<id>``, a reload shows the conversation again, and the link opens it in the same browser. Another
browser (another identity) opening the same link gets the "not found, or not yours" sentence and never the
conversation."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.ui.test_browser import offline_page
from tests.ui.test_identity_browser import identity_cookie, keep_local

pytestmark = [pytest.mark.ui, pytest.mark.browser]

MESSAGE = "I hate queues"
REMEMBERED = "I'll remember: no queueing."
NOT_YOURS = "This conversation was not found, or it is not yours."


def send(page, text: str) -> None:
    box = page.locator(".st-key-agent_prompt textarea")
    box.fill(text)
    box.press("Enter")


def conversation_id(page) -> str:
    page.wait_for_url(lambda url: "c=" in url)
    return parse_qs(urlparse(page.url).query)["c"][0]


def test_a_reload_shows_the_conversation_again(streamlit_server):
    from playwright.sync_api import expect

    with offline_page(streamlit_server, width=1280, height=900) as first:
        page = first.page
        page.goto(f"{streamlit_server}/agent_console?lang=en")
        identity_cookie(page)  # the identity is kept before the first message
        send(page, MESSAGE)
        expect(page.get_by_text(REMEMBERED)).to_be_visible()
        cid = conversation_id(page)
        page.reload()
        expect(page.get_by_text(REMEMBERED)).to_be_visible()
        expect(page.locator("[data-testid='stChatMessage']").filter(has_text=MESSAGE)).to_have_count(1)
        assert conversation_id(page) == cid
    assert not first.errors, f"JavaScript errors: {first.errors}"
    assert not first.blocked, f"requests left the machine: {first.blocked}"


def test_the_link_opens_the_conversation_for_its_owner_only(streamlit_server):
    from playwright.sync_api import expect

    with offline_page(streamlit_server, width=1280, height=900) as first:
        page = first.page
        page.goto(f"{streamlit_server}/agent_console?lang=en")
        identity_cookie(page)
        send(page, "我不吃辣")
        expect(page.get_by_text("I'll remember: no spicy food.")).to_be_visible()
        link = f"{streamlit_server}/agent_console?lang=en&c={conversation_id(page)}"

        page.goto(f"{streamlit_server}/agent_console?lang=en")  # a fresh page of the same browser, then the link
        page.goto(link)
        expect(page.get_by_text("I'll remember: no spicy food.")).to_be_visible()

        other = page.context.browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
        blocked: list[str] = []
        other.route("**/*", lambda route: keep_local(route, streamlit_server, blocked))
        elsewhere = other.new_page()
        elsewhere.goto(link)
        expect(elsewhere.get_by_text(NOT_YOURS)).to_be_visible()
        expect(elsewhere.get_by_text("I'll remember: no spicy food.")).to_have_count(0)
        assert "c=" not in elsewhere.url
        assert not blocked, f"requests left the machine: {blocked}"
    assert not first.errors, f"JavaScript errors: {first.errors}"
