"""Settings follow the player, not the browser: dark mode chosen in one browser shows in
another that carries the same player's cookie but nothing in its own storage (issue #33)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_a_setting_chosen_in_one_browser_shows_in_another(browser, live_server):
    first = browser.new_context()
    page = first.new_page()
    page.goto(live_server.url + "/vexed/")
    page.locator("#settings-button").click()
    with page.expect_response(lambda answer: answer.url.endswith("/settings/page")) as sent:
        page.locator('#settings input[name="theme"][value="dark"]').check()
    assert sent.value.status == 204
    cookies = first.cookies()
    first.close()
    second = browser.new_context()  # empty storage: only the cookie comes along
    second.add_cookies(cookies)
    other = second.new_page()
    other.goto(live_server.url + "/sokoban/")
    expect(other.locator("html")).to_have_attribute("data-theme", "dark")
    second.close()
