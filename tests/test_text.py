"""What a player sends (issue #42, Low): one check for every text kept or shown, names unique
up to confusables, JSON bounded in nesting on every route and the socket, and the editor's
watch address bounded."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import Player, csrf_of
from webapp.core.errors import Refused
from webapp.core.text import MAX_JSON_DEPTH, check_text, is_reserved, json_depth, name_key
from webapp.core.text import read_json as read

DEEP = "[" * 100_000 + "]" * 100_000  # the parser's recursion gave out on this (a 500)
BOARD = [list("#######"), list("#@ $ .#"), list("#######")]


# -- the check, without a request -------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Ti\x00tle", "a NUL character (U+0000) at character 3"),
        ("bell\x07", "a control character (U+0007)"),
        ("tab\there", "a control character (U+0009)"),
        ("abc\u202edcb", "a bidirectional control (U+202E)"),
        ("\u2066x\u2069", "a bidirectional control (U+2066)"),
        ("\u3164\u3164", "an invisible character (U+3164)"),
        ("\u115fAnn", "an invisible character (U+115F)"),
        ("A\u200bnn", "an invisible formatting character (U+200B)"),
        ("\ufeffAnn", "an invisible formatting character (U+FEFF)"),
        ("x\ue000", "a private-use character (U+E000)"),
    ],
)
def test_text_with_a_nul_control_bidi_or_invisible_character_is_refused_by_name(text, named):
    with pytest.raises(Refused) as refused:
        check_text(text, "title")
    assert refused.value.message.startswith("The title holds ") and named in refused.value.message


def test_visible_text_in_any_script_is_kept_as_it_is():
    for text in ("Zoë K.", "Niveau à l'école", "Уровень 3", "倉庫番 1", "O'Brien - 2"):
        assert check_text(text, "title") == text


def test_names_that_look_alike_have_one_key():
    ann = name_key("Ann")
    for alike in ("ANN", "ann", "\u0410nn", "Ａｎｎ", "A-nn", "a.n.n", "A nn", "Ánn"):
        assert name_key(alike) == ann, alike
    assert name_key("Bill") == name_key("BiIl") == name_key("B1ll")
    assert name_key("modern") == name_key("modem") and name_key("Otto") == name_key("0tto")
    assert name_key("Anne") != ann and name_key("Ben") != name_key("Ken")


def test_reserved_names_are_refused_in_every_spelling():
    for name in ("anonymous", "Anonymous", "ANON-YMOUS", "an\u043enymous", "Admin", "System"):
        assert is_reserved(name), name
    assert not is_reserved("Anon") and not is_reserved("Sam")


def test_json_nesting_is_counted_without_recursion_and_strings_do_not_count():
    assert json_depth(DEEP) == 100_000
    assert json_depth('{"a": "[[[[{{{{", "b": [1, {"c": []}]}') == 4
    assert json_depth('["\\"[[[", []]') == 2
    with pytest.raises(Refused) as refused:
        read(DEEP, "draft", 10**6)
    assert "nested too deeply" in refused.value.message
    deepest = read("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "draft", 10**6)
    assert json_depth(json.dumps(deepest)) == MAX_JSON_DEPTH  # as deep as may be: read
    with pytest.raises(Refused, match="too large"):
        read("[]" * 100, "draft", 50)


# -- names on the settings page ---------------------------------------------------------------
def set_name(client, name: str):
    token = csrf_of(client.get("/sokoban/").text)
    return client.post("/settings", data={"name": name, "csrf_token": token})


def test_a_name_is_unique_up_to_confusables_and_reserved_names_are_refused(app):
    first, second = app.test_client(), app.test_client()
    Player(first, "/sokoban/first-steps/1")
    Player(second, "/sokoban/first-steps/1")
    assert set_name(first, "Ann").status_code == 303
    for copy in ("ann", "\u0410nn", "A-nn", "Ａｎｎ"):
        refused = set_name(second, copy)
        assert refused.status_code == 400 and "Another player" in refused.text, copy
    assert set_name(first, "ANN").status_code == 303  # their own name, written another way
    for bad in ("anonymous", "An\u043enymous", "\u3164\u3164", "Ann\u202eX", "A\x00n"):
        refused = set_name(second, bad)
        assert refused.status_code == 400 and 'id="name-error"' in refused.text, bad
    assert set_name(second, "Anne").status_code == 303
    # Let go of, a name is free again.
    assert set_name(first, "").status_code == 303
    assert set_name(second, "ann").status_code == 303


# -- the editor: titles, authors, the watch address -------------------------------------------
def editor_headers(client, game: str = "sokoban") -> dict[str, str]:
    return {"X-CSRF-Token": csrf_of(client.get(f"/{game}/edit").text), "HX-Request": "true"}


def test_a_nul_in_an_editor_title_or_author_is_a_400_naming_it(client):
    headers = editor_headers(client)
    draft = json.dumps({"rows": BOARD, "fields": {"title": "My\x00level"}})
    for route in ("look", "save"):
        answer = client.post(f"/sokoban/edit/{route}", data={"draft": draft}, headers=headers)
        assert answer.status_code == 400, route
        assert "The title holds a NUL character (U+0000) at character 3" in answer.text
    good = json.dumps({"rows": BOARD, "fields": {"title": "Mine"}})
    for author in ("Ann\x00", "Ann\u202e", "\u3164"):
        answer = client.post(
            "/sokoban/edit/save", data={"draft": good, "author": author}, headers=headers
        )
        assert answer.status_code == 400 and "The author's name holds" in answer.text


def test_a_pasted_title_with_a_bidi_control_is_refused_with_its_level(client):
    token = csrf_of(client.get("/sokoban/").text)
    text = "Title: evil\u202eflip\n" + "\n".join("".join(row) for row in BOARD)
    answer = client.post("/sokoban/new", data={"text": text, "csrf_token": token})
    assert answer.status_code == 400
    assert "title of level 1 holds a bidirectional control (U+202E)" in answer.text


def test_the_editors_watch_address_is_bounded(client):
    headers = editor_headers(client)
    draft = json.dumps({"rows": BOARD, "fields": {}})
    answer = client.post(
        "/sokoban/edit/save",
        data={"draft": draft, "intent": "watch", "moves": "rl" * 150_000},
        headers=headers,
    )
    assert answer.status_code == 400 and "an address carries 3,500 at most" in answer.text
    fine = client.post(
        "/sokoban/edit/save",
        data={"draft": draft, "intent": "watch", "moves": "rrR"},
        headers=headers,
    )
    assert fine.status_code == 303 and fine.headers["Location"].endswith("moves=rrR")


# -- deeply nested JSON: every route, and the socket ------------------------------------------
def test_deeply_nested_json_is_a_400_naming_it_on_every_route(client):
    deep = "[" * 5_000 + "]" * 5_000  # within the draft's 40,000 bytes
    headers = editor_headers(client, "sliding")
    for route in ("look", "verdict", "shuffle", "save"):
        answer = client.post(
            f"/sliding/edit/{route}", data={"draft": deep, "moves": "3"}, headers=headers
        )
        assert answer.status_code == 400, route
        assert "nested too deeply" in answer.text, route
    settings = client.post("/settings/page", data="[" * 900 + "]" * 900, headers={
        **headers, "Content-Type": "application/json"})  # fmt: skip
    assert settings.status_code == 400 and "nested too deeply" in settings.text


def test_a_deeply_nested_socket_message_is_named_and_the_stream_goes_on(app, monkeypatch):
    from simple_websocket import ConnectionClosed

    from webapp.jobs.base import Job, Request
    from webapp.jobs.work import Solve
    from webapp.search import Limits
    from webapp.web import live
    from webapp.web.levels import find_level

    job = Job(id="j", request=Request("sokoban", "", Solve("bfs"), Limits(), "p", "b"))
    job.state = "running"
    incoming = ["[" * 2000 + "]" * 2000, json.dumps({"action": "cancel"})]

    class Socket:
        sent: list[str] = []

        def send(self, data):
            self.sent.append(data)

        def receive(self, timeout=None):
            if incoming:
                return incoming.pop(0)
            time.sleep(0.01)
            raise ConnectionClosed()

    stopped = []
    monkeypatch.setattr(live, "render_stream", lambda found, seen: "<div id='solve-status'/>")
    monkeypatch.setattr(job, "stop", lambda: stopped.append(True))
    socket = Socket()
    with app.test_request_context("/sokoban/first-steps/1"):
        found = find_level("sokoban", "first-steps", "1")
        with pytest.raises(ConnectionClosed):
            live.stream(socket, found, job)
    notes = [sent for sent in socket.sent if 'id="live-note"' in sent]
    assert len(notes) == 1 and "nested too deeply" in notes[0]
    assert stopped == [True]  # the command after it was still read and done
