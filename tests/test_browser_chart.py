"""The solver panel's chart draws the whole search (issue #45): a 20-second search, watched in
the browser at both sizes, charts from 0 s to its end, never a window of its last seconds."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import serving
from tests.test_browser_wins import touch_or_click

pytestmark = pytest.mark.browser

#: The chart's width in the SVG's units (webapp/web/watch.py's ``chart``).
WIDTH = 300.0


@pytest.fixture(scope="module")
def twenty_seconds(tmp_path_factory):
    """The app with solves stopped at 20 s and no node limit in the way of it."""
    with serving(
        tmp_path_factory.mktemp("twenty"), SOLVE_TIME_LIMIT="20", SOLVE_NODE_LIMIT="2000000000"
    ) as running:
        yield running


def test_a_20_second_searchs_chart_runs_from_0_to_its_end(screen, twenty_seconds):
    """IDA* on Five by five (memory linear in depth, so only the time limit stops it) runs
    its 20 seconds; the chart's time axis then reads 0 s to 20 s and its line starts within
    the search's first second (a window of the last ~18 s began at 2 s or later)."""
    screen.goto(twenty_seconds.url + "/sliding/large/3")
    screen.locator("select[name=algorithm]").select_option("idastar")
    touch_or_click(screen, screen.locator("#solve-button"))
    expect(screen.locator("#solve-status")).to_have_attribute(
        "data-status", "timeout", timeout=90_000
    )
    chart = screen.locator("#solve-chart svg")
    expect(chart).to_be_visible()
    expect(screen.locator("#chart-start")).to_have_text("0 s")
    ticks = chart.locator("text.tick").all_text_contents()
    end = max(float(text.removesuffix(" s")) for text in ticks if text.endswith(" s"))
    assert 19.5 <= end <= 22.0
    points = chart.locator("polyline.line-expanded").get_attribute("points").split()
    xs = [float(point.split(",")[0]) for point in points]
    assert len(points) <= 120
    assert xs == sorted(xs) and xs[0] <= WIDTH / 20 and xs[-1] == WIDTH
