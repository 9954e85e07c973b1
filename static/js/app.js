// Puzzle Lab: keyboard, mouse and touch input for the level pages. Every action is a request
// whose answer swaps the #play partial. Actions are sent at once, without waiting for the last
// answer (a few at a time; what queues behind them goes as one request), and numbered: the
// server plays them in that order, and an answer older than the one shown is dropped, so the
// board never shows moves out of order. The server stays the one authority on the game.
//
// A game's own script (static/games/<name>/game.js, loaded on its level pages only) registers
// how input becomes moves, as Tatham's interpret_move does:
//   PuzzleLab.register(name, {
//     key(direction) -> request values or null   direction: "l" "u" "r" "d"
//     click(cell)    -> request values or null   cell: the clicked [data-cell] element
//     swipe(direction, target) -> values or null  optional: a finger swiped on the board
//     select()       -> values or null            optional: Space or Enter on the board
//     pointerdown(event)                          optional: drags
//     afterSwap()                                 optional: after the board was redrawn
//     hold()         -> true while input must wait (an animation runs)
//   });
// Buttons in #play with data-direction (an arrow pad) act as that direction's key. The board
// keeps the keyboard focus across redraws, and the play partial's [data-announce] text is read
// out through one live region that outlives the redraws.
(function () {
  "use strict";

  const queue = [];
  const games = {};
  // Requests on their way at once; what queues behind them is sent together when one lands.
  const IN_FLIGHT = 4;
  let inFlight = 0;
  let sent = 0;   // the number of the last request sent
  let shown = 0;  // the number of the last answer shown
  let holding = false;
  // This page's name for itself: the server orders the requests of each page.
  const pageId = (Math.random().toString(36).slice(2, 10) + Date.now().toString(36)).slice(0, 20);

  function csrf() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function page() {
    return document.querySelector(".level-page");
  }

  function current() {
    const level = page();
    return level ? games[level.dataset.game] || null : null;
  }

  function flash(text) {
    const box = document.getElementById("flash");
    if (!box) return;
    box.textContent = text;
    box.classList.add("show");
    clearTimeout(flash.timer);
    flash.timer = setTimeout(() => box.classList.remove("show"), 4000);
  }

  // Moves alone (a key, a drag), with the same fields, can share one request.
  function joinable(a, b) {
    const plain = (v) => v.action === "move" && Object.keys(v).every((k) => ["action", "moves", "quiet"].includes(k));
    return plain(a) && plain(b) && (a.quiet || "") === (b.quiet || "");
  }

  function pump() {
    const level = page();
    if (!level) { queue.length = 0; return; }
    const game = current();
    if (game && game.hold && game.hold()) {
      if (!holding) { holding = true; setTimeout(() => { holding = false; pump(); }, 50); }
      return;
    }
    while (queue.length > 0 && inFlight < IN_FLIGHT) {
      const values = Object.assign({}, queue.shift());
      if (values.action === "move" && joinable(values, values)) {
        values.moves = [values.moves];
        while (queue.length > 0 && values.moves.length < 200 && joinable(values, queue[0])) {
          values.moves.push(queue.shift().moves);
        }
      }
      post(level, values);
    }
  }

  function post(level, values) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) {
      for (const one of [].concat(value)) body.append(name, one);
    }
    if (level.dataset.picture) body.set("picture", level.dataset.picture);
    const number = ++sent;
    body.set("page", pageId);
    body.set("seq", String(number));
    inFlight += 1;
    fetch(level.dataset.playUrl, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "X-CSRF-Token": csrf(), "HX-Request": "true" },
    }).then((response) => response.text().then((text) => {
      if (response.status === 409) { window.location.reload(); return; }  // changed elsewhere
      if (!response.ok) { flash(text || "Something went wrong."); return; }
      if (response.headers.get("X-Play-Dropped")) { flash(text); return; }  // came too late
      if (response.status === 204 || number <= shown) return;  // nothing new, or overtaken
      shown = number;
      showPlay(text);
    })).catch(() => {
      flash("The server cannot be reached. Your game is safe; try again.");
    }).finally(() => { inFlight -= 1; pump(); });
  }

  // While the game animates a move (hold), the newest answer waits its turn to be shown.
  let waiting = null;
  function showPlay(html) {
    const game = current();
    if (game && game.hold && game.hold()) {
      if (waiting === null) setTimeout(() => { const next = waiting; waiting = null; showPlay(next); }, 50);
      waiting = html;
      return;
    }
    const old = document.getElementById("play");
    if (!old) return;
    // Whether the keyboard was in the game, so the board keeps the focus across the redraw.
    const active = document.activeElement;
    focusInPlay = Boolean(active && active !== document.body && old.contains(active));
    htmx.swap(old, html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0 });
    const fresh = document.getElementById("play");
    if (fresh) htmx.trigger(fresh, "htmx:afterSwap", { target: fresh, elt: fresh });
  }

  function send(values) {
    queue.push(values);
    pump();
  }

  // Key -> direction letter (l u r d), for every game that moves in four directions.
  const DIRECTIONS = {
    ArrowLeft: "l", ArrowUp: "u", ArrowRight: "r", ArrowDown: "d",
    a: "l", w: "u", d: "r", s: "d", A: "l", W: "u", D: "r", S: "d",
    h: "l", k: "u", l: "r", j: "d",
  };

  // Keys that step through a replay link's view (links, so each position has an address)
  // or the solver's playback (commands over its socket).
  const STEPS = { ArrowLeft: "back", ArrowRight: "forward", Home: "start", End: "end" };

  function onStepKey(event, level) {
    const step = STEPS[event.key];
    if (level.dataset.view === "replay") {
      event.preventDefault();  // a replay view takes no moves
      const link = step && document.querySelector('#replay [data-step="' + step + '"]');
      if (link) link.click();
      return true;
    }
    const inPlayback = event.target && event.target.closest && event.target.closest("#solver");
    if (step && inPlayback) {
      const button = document.querySelector('#playback [data-command="' + step + '"]');
      if (button) { event.preventDefault(); button.click(); }
      return true;
    }
    return false;
  }

  function onKey(event) {
    const level = page();
    if (!level || event.altKey || event.metaKey) return;
    const target = event.target;
    if (target && (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
    if (!event.ctrlKey && onStepKey(event, level)) return;
    const key = event.key;
    let values = null;
    if ((key === " " || key === "Enter") && !event.ctrlKey) {
      // A button or a link does its own thing with Space and Enter; elsewhere they select.
      if (target && target.closest && target.closest("button, a, summary, [role=button]")) return;
      const game = current();
      const onBoard = Boolean(target && target.closest && target.closest("#play .board"));
      if (onBoard) event.preventDefault();  // Space on the board never scrolls the page
      if (!game || !game.select) return;
      event.preventDefault();
      values = game.select();
      if (values) send(values);
      return;
    }
    if ((event.ctrlKey && (key === "z" || key === "Z")) || (!event.ctrlKey && (key === "u" || key === "z"))) {
      values = { action: "undo" };
    } else if ((event.ctrlKey && (key === "y" || key === "Y")) || (!event.ctrlKey && key === "U")) {
      values = { action: "redo" };
    } else if (!event.ctrlKey && key === "r") {
      values = { action: "restart" };
    } else if (!event.ctrlKey && DIRECTIONS[key]) {
      const game = current();
      if (game && game.key) values = game.key(DIRECTIONS[key]);
      if (!values) { event.preventDefault(); return; }
    }
    if (values) {
      event.preventDefault();
      send(values);
    }
  }

  function onClick(event) {
    const level = page();
    if (!level) return;
    const button = event.target.closest("#play [data-action]");
    if (button) {
      event.preventDefault();
      if (!button.disabled) send({ action: button.dataset.action });
      return;
    }
    const arrow = event.target.closest("#play [data-direction]");
    if (arrow) {
      event.preventDefault();
      const game = current();
      const values = game && game.key ? game.key(arrow.dataset.direction) : null;
      if (values) send(values);
      return;
    }
    const cell = event.target.closest("#play .board [data-cell]");
    const game = current();
    if (cell && game && game.click) {
      const values = game.click(cell);
      if (values) send(values);
    }
  }

  // -- Touch: a swipe on the board is a direction; a tap stays a click --------------------
  let touch = null;

  function onTouchStart(event) {
    const board = event.target.closest ? event.target.closest("#play .board") : null;
    touch = board && event.touches.length === 1
      ? { x: event.touches[0].clientX, y: event.touches[0].clientY, target: event.target, board: board }
      : null;
  }

  function onTouchEnd(event) {
    const start = touch;
    touch = null;
    if (!start || event.changedTouches.length !== 1) return;
    const dx = event.changedTouches[0].clientX - start.x;
    const dy = event.changedTouches[0].clientY - start.y;
    const cell = start.board.querySelector(".cell");
    const reach = Math.max(16, Math.min(40, (cell ? cell.getBoundingClientRect().width : 30) * 0.6));
    if (Math.max(Math.abs(dx), Math.abs(dy)) < reach) return;  // a tap: the click follows
    event.preventDefault();  // a swipe is not also a click
    const game = current();
    if (!game || !game.swipe) return;
    const direction = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "r" : "l") : (dy > 0 ? "d" : "u");
    const values = game.swipe(direction, start.target);
    if (values) send(values);
  }

  // -- The room a board may take, measured: the page's width, the screen under the header ----
  function fit() {
    const level = page();
    if (!level) return;
    const header = document.querySelector("body > header");
    const style = document.documentElement.style;
    style.setProperty("--room-w", Math.floor(level.clientWidth) + "px");
    // The height from the board's top (the title and counters stand above it) to the foot of
    // the screen, so the whole board is in view as the page opens.
    const board = document.querySelector("#play .board");
    const headerHeight = header ? header.offsetHeight : 0;
    const top = board ? board.getBoundingClientRect().top + window.scrollY : headerHeight;
    const under = window.innerHeight - Math.max(headerHeight, top) - 16;
    style.setProperty("--room-h", Math.max(160, under) + "px");
  }

  // -- Focus and what a screen reader hears --------------------------------------------------
  let focusInPlay = false;

  function prepareBoard() {
    const board = document.querySelector("#play .board");
    if (board && !board.hasAttribute("tabindex")) board.tabIndex = 0;
    return board;
  }

  function announce() {
    const said = document.querySelector("#play [data-announce]");
    const level = page();
    if (!said || !level) return;
    let live = document.getElementById("announcer");
    if (!live) {
      live = document.createElement("div");
      live.id = "announcer";
      live.className = "visually-hidden";
      live.setAttribute("aria-live", "polite");
      live.setAttribute("role", "status");
      level.appendChild(live);
    }
    live.textContent = said.textContent.trim();
  }

  document.addEventListener("touchstart", onTouchStart, { passive: true });
  // A finger moving on the board is ours: no scroll, and no fling that would eat the next tap.
  document.addEventListener("touchmove", (event) => { if (touch) event.preventDefault(); }, { passive: false });
  document.addEventListener("touchend", onTouchEnd, { passive: false });
  document.addEventListener("touchcancel", () => { touch = null; });
  window.addEventListener("resize", fit);
  window.addEventListener("orientationchange", fit);
  document.addEventListener("htmx:beforeSwap", (event) => {
    const play = document.getElementById("play");
    if (play && event.detail.target === play) {
      const active = document.activeElement;
      focusInPlay = Boolean(active && active !== document.body && play.contains(active));
    }
  });
  document.addEventListener("htmx:afterSwap", (event) => {
    if (!event.detail.target || event.detail.target.id !== "play") return;
    const board = prepareBoard();
    if (focusInPlay && board && (!document.activeElement || document.activeElement === document.body)) {
      board.focus({ preventScroll: true });
    }
    focusInPlay = false;
    announce();
  });
  function ready() { fit(); prepareBoard(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();

  document.addEventListener("keydown", onKey);
  document.addEventListener("click", onClick);
  document.addEventListener("pointerdown", (event) => {
    const game = current();
    if (game && game.pointerdown) game.pointerdown(event);
  });
  document.addEventListener("htmx:afterSwap", () => {
    const game = current();
    if (game && game.afterSwap) game.afterSwap();
  });
  // A playback step sends only its position: mark that move in the solution's move list.
  document.addEventListener("htmx:wsAfterMessage", () => {
    const position = document.getElementById("playback-pos");
    const list = document.getElementById("playback-moves");
    if (!position || !list) return;
    const current = list.querySelector('[aria-current]');
    const next = list.querySelector('[data-position="' + position.dataset.position + '"]');
    if (current === next) return;
    if (current) current.removeAttribute("aria-current");
    if (!next) return;
    next.setAttribute("aria-current", "step");
    // Keep it in sight within the list, never scrolling the page under the player.
    if (next.offsetTop < list.scrollTop || next.offsetTop + next.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = next.offsetTop - list.clientHeight / 2;
    }
  });
  // The server closes the socket of a finished solve nobody plays back (a normal closure,
  // which htmx does not retry); the next playback command is queued and opens it again.
  document.addEventListener("htmx:wsClose", (event) => {
    const live = event.target;
    if (event.detail.event.code === 1000 && live.dataset) live.dataset.idle = "1";
  });
  document.addEventListener("htmx:wsConfigSend", (event) => {
    const live = event.target.closest && event.target.closest("[ws-connect]");
    if (!live || live.dataset.idle !== "1") return;
    delete live.dataset.idle;
    const socket = event.detail.socketWrapper;
    setTimeout(() => socket.reconnect(), 0);  // after htmx has queued the command
  });
  document.addEventListener("htmx:responseError", (event) => {
    flash(event.detail.xhr.responseText || "Something went wrong.");
  });
  document.addEventListener("htmx:sendError", () => flash("The server cannot be reached. Your game is safe; try again."));

  window.PuzzleLab = {
    send: send,
    flash: flash,
    register: (name, handlers) => { games[name] = handlers; },
    hold: () => { const game = current(); return Boolean(game && game.hold && game.hold()); },
  };
})();
