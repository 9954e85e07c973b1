"""Every kind of page passes axe-core (WCAG 2.2 A and AA, and axe's best practices) in both
colour schemes, at desktop size and on a phone held upright: any new violation fails here,
with the rule, its impact and the first element that breaks it."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

pytestmark = pytest.mark.browser

#: What axe is asked to check: the WCAG levels a public site is held to, and best practices.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]

#: One page of each kind a player meets.
PAGES = {
    "home": "/",
    "game": "/sokoban/",
    "collection": "/sokoban/microban/",
    "sokoban level": "/sokoban/microban/1",
    "sliding level": "/sliding/fifteen/1",
    "vexed level": "/vexed/childrens-pack/1",
    "blocks level": "/blocks/classics/1",
    "sokoban editor": "/sokoban/edit",
    "sliding editor": "/sliding/edit",
    "vexed editor": "/vexed/edit",
    "blocks editor": "/blocks/edit",
    "daily": "/daily",
    "settings": "/settings",
    "replay link": "/sokoban/microban/1?moves=rl",
    "error page": "/sokoban/microban/9999",
}

VIEWS = [
    pytest.param(scheme, size, id=f"{scheme}-{size[0]}")
    for scheme in ("light", "dark")
    for size in ((1280, 900), (390, 844))
]


SETTLED = """() => document.getAnimations().every(
    (a) => a.playState !== "running" || a.effect.getComputedTiming().iterations === Infinity)"""


def violations(axe: Axe, page) -> list[str]:
    # Colours are judged as they rest: a banner or toast still fading in is, for a moment, paler
    # than its text allows (the finite animations end first; a spinner's never does).
    # (Polled from here: wait_for_function evaluates a string, which the page's CSP forbids.)
    for _ in range(100):
        if page.evaluate(SETTLED):
            break
        page.wait_for_timeout(50)
    found = axe.run(page, options={"runOnly": {"type": "tag", "values": TAGS}})
    return [
        f"{rule['id']} ({rule['impact']}) on {len(rule['nodes'])} element(s), first "
        f"{rule['nodes'][0]['target']}: {rule['help']}"
        for rule in found.response["violations"]
    ]


@pytest.mark.parametrize(("scheme", "size"), VIEWS)
def test_no_page_breaks_an_axe_rule(browser, live_server, scheme, size):
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]},
        color_scheme=scheme,
        has_touch=size[0] < 500,
        is_mobile=size[0] < 500,
    )
    page = context.new_page()
    page.set_default_timeout(60_000)  # /daily makes the day's levels on its first visit
    axe = Axe()
    broken: dict[str, list[str]] = {}
    try:
        for kind, path in PAGES.items():
            page.goto(live_server.url + path)
            page.wait_for_load_state("load")
            if kind.endswith("editor"):  # the board is drawn by the editor's script
                page.wait_for_selector("#edit-board .cell")
            found = violations(axe, page)
            if found:
                broken[kind] = found
    finally:
        context.close()
    assert not broken, broken


def test_axe_finds_a_broken_board(browser, live_server):
    """The check above can fail: a board given the grid role without rows breaks
    aria-required-children, as the blocks board once did."""
    page = browser.new_page()
    try:
        page.goto(live_server.url + "/blocks/classics/1")
        page.eval_on_selector("#play .board", "b => b.setAttribute('role', 'grid')")
        assert any(v.startswith("aria-required-children") for v in violations(Axe(), page))
    finally:
        page.close()
