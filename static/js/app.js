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
//     skip()                                      optional: end that animation now
//     movers(board, before) -> [{key, element, pseudo, pushed}]   optional: the pieces that
//                    glide from one board to the next (motion.js), found again by key;
//                    before: the pieces of the board shown last, as motion.js noted them
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

  // Whether input waits: a game animates a move (hold), or the positions between the moves
  // of one answer show (motion.js).
  function busy() {
    const game = current();
    const motion = window.PuzzleLab && window.PuzzleLab.motion;
    return Boolean((motion && motion.walking()) || (game && game.hold && game.hold()));
  }

  // Ends what busy() waits for, at once.
  function skip() {
    const game = current();
    const motion = window.PuzzleLab && window.PuzzleLab.motion;
    if (motion && motion.walking()) animation((m) => m.skip());
    if (game && game.hold && game.hold() && game.skip) game.skip();
  }

  // Moves alone (a key, a drag), with the same fields, can share one request.
  function joinable(a, b) {
    const plain = (v) => v.action === "move" && Object.keys(v).every((k) => ["action", "moves", "quiet"].includes(k));
    return plain(a) && plain(b) && (a.quiet || "") === (b.quiet || "");
  }

  function pump() {
    const level = page();
    if (!level) { queue.length = 0; return; }
    // A key faster than the animation: the animation jumps to its end.
    if (busy() && queue.length > 0) skip();
    if (busy()) {
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

  // Motion is decoration: whatever goes wrong in it, the board is shown and the game goes on.
  function animation(step) {
    const motion = window.PuzzleLab.motion;
    if (!motion) return null;
    try {
      return step(motion);
    } catch (error) {
      return null;
    }
  }

  // While the game animates a move (hold), the newest answer waits its turn to be shown.
  let waiting = null;
  function showPlay(html) {
    // The next answer while the last still animates: the animation jumps to its end.
    if (busy()) skip();
    if (busy()) {
      if (waiting === null) setTimeout(() => { const next = waiting; waiting = null; showPlay(next); }, 50);
      waiting = html;
      return;
    }
    const old = document.getElementById("play");
    if (!old) return;
    // Whether the keyboard was in the game, so the board keeps the focus across the redraw.
    const active = document.activeElement;
    focusInPlay = Boolean(active && active !== document.body && old.contains(active));
    const before = animation((motion) => motion.measure(old));
    htmx.swap(old, html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0 });
    const fresh = document.getElementById("play");
    if (fresh) htmx.trigger(fresh, "htmx:afterSwap", { target: fresh, elt: fresh });
    if (fresh) animation((motion) => motion.animate(before, fresh));
    // A hint is for the position it was asked in: gone once the board changed.
    const hint = document.getElementById("hint");
    if (hint && fresh && old.dataset.cursor !== fresh.dataset.cursor) hint.textContent = "";
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
  // , and . step the playback from anywhere; the arrows do while the player's last click (or
  // the keyboard's focus) was in the solver panel, and move the game otherwise. The root
  // element carries which (data-keys-to), so the panel can say it and show it.
  const PLAYBACK = { ",": "back", ".": "forward" };

  function keysTo(target) {
    const inPanel = Boolean(target && target.closest && target.closest("#solver"));
    document.documentElement.dataset.keysTo = inPanel ? "playback" : "game";
  }

  function onStepKey(event, level) {
    if (level.dataset.view === "replay") {
      const step = STEPS[event.key];
      event.preventDefault();  // a replay view takes no moves
      const link = step && document.querySelector('#replay [data-step="' + step + '"]');
      if (link) link.click();
      return true;
    }
    const toPlayback = document.documentElement.dataset.keysTo === "playback";
    const command = PLAYBACK[event.key] || (toPlayback ? STEPS[event.key] : null);
    const button = command && document.querySelector('#playback [data-command="' + command + '"]');
    if (button) {
      event.preventDefault();
      button.click();
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
    let cell = event.target.closest("#play .board [data-cell]");
    const game = current();
    if (cell && busy()) {
      // A click on a position shown between the moves of an answer: the same square of
      // the board the game rests on.
      skip();
      const kind = cell.classList.item(0);
      cell = document.querySelector('#play .board [data-cell="' + cell.dataset.cell + '"]' + (kind ? "." + kind : ""));
    }
    if (cell && game && game.click) {
      const values = game.click(cell);
      if (values) send(values);
    }
  }

  // -- Touch: a swipe on the board is a direction; a tap stays a click --------------------
  let touch = null;

  function onTouchStart(event) {
    if (event.touches.length === 2 && pinchStart(event)) { touch = null; return; }
    const board = event.target.closest ? event.target.closest("#play .board") : null;
    touch = board && event.touches.length === 1
      ? { x: event.touches[0].clientX, y: event.touches[0].clientY, target: event.target, board: board }
      : null;
  }

  function onTouchEnd(event) {
    if (pinch) {
      if (event.touches.length === 0) pinch = null;
      return;
    }
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

  // -- Two fingers on the board zoom and move it (a big board on a phone); one finger plays ----
  const zoom = { scale: 1, x: 0, y: 0 };
  let pinch = null;

  function frame() {
    return document.querySelector("#play .board-frame");
  }

  function showZoom() {
    const box = frame();
    if (!box) return;
    const zoomed = zoom.scale > 1.01;
    box.classList.toggle("zoomed", zoomed);
    box.style.setProperty("--zoom", String(zoom.scale));
    box.style.setProperty("--pan-x", zoom.x + "px");
    box.style.setProperty("--pan-y", zoom.y + "px");
    let reset = box.querySelector(".zoom-reset");
    if (zoomed && !reset) {
      reset = document.createElement("button");
      reset.type = "button";
      reset.className = "zoom-reset";
      reset.textContent = "Fit";
      reset.title = "Show the whole board";
      reset.addEventListener("click", (event) => { event.stopPropagation(); unzoom(); });
      box.appendChild(reset);
    } else if (!zoomed && reset) {
      reset.remove();
    }
  }

  function unzoom() {
    zoom.scale = 1; zoom.x = 0; zoom.y = 0;
    showZoom();
  }

  // Zoomed in, the board follows the game: after each answer the square that holds the
  // player's attention (a game's attention(board): Sokoban's player, the hole, the selected
  // piece) is brought back into view, a quarter of the frame from its edge.
  function follow() {
    const box = frame(), game = current();
    if (!box || zoom.scale <= 1.01 || !game || !game.attention) return;
    const board = box.querySelector(".board");
    const target = board && game.attention(board);
    if (!target) return;
    const boxRect = box.getBoundingClientRect(), rect = target.getBoundingClientRect();
    const width = box.clientWidth, height = box.clientHeight;
    const x = rect.left - boxRect.left, y = rect.top - boxRect.top;
    const marginX = Math.min(width / 4, Math.max(0, (width - rect.width) / 2));
    const marginY = Math.min(height / 4, Math.max(0, (height - rect.height) / 2));
    if (x < marginX) zoom.x += marginX - x;
    else if (x + rect.width > width - marginX) zoom.x -= x + rect.width - (width - marginX);
    if (y < marginY) zoom.y += marginY - y;
    else if (y + rect.height > height - marginY) zoom.y -= y + rect.height - (height - marginY);
    clampPan();
    showZoom();
  }

  function clampPan() {
    const box = frame();
    if (!box) return;
    const width = box.clientWidth, height = box.clientHeight;
    zoom.x = Math.min(0, Math.max(width - width * zoom.scale, zoom.x));
    zoom.y = Math.min(0, Math.max(height - height * zoom.scale, zoom.y));
  }

  function pinchStart(event) {
    const box = frame();
    if (!box || event.touches.length !== 2) return false;
    const [a, b] = event.touches;
    if (!box.contains(a.target) && !box.contains(b.target)) return false;
    const rect = box.getBoundingClientRect();
    pinch = {
      distance: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY) || 1,
      // The board's own point under the fingers, which stays under them.
      px: ((a.clientX + b.clientX) / 2 - rect.left - zoom.x) / zoom.scale,
      py: ((a.clientY + b.clientY) / 2 - rect.top - zoom.y) / zoom.scale,
      scale: zoom.scale,
    };
    return true;
  }

  function pinchMove(event) {
    const box = frame();
    if (!pinch || !box || event.touches.length !== 2) return;
    event.preventDefault();
    const [a, b] = event.touches;
    const rect = box.getBoundingClientRect();
    const distance = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY) || 1;
    zoom.scale = Math.min(5, Math.max(1, pinch.scale * distance / pinch.distance));
    zoom.x = (a.clientX + b.clientX) / 2 - rect.left - pinch.px * zoom.scale;
    zoom.y = (a.clientY + b.clientY) / 2 - rect.top - pinch.py * zoom.scale;
    clampPan();
    showZoom();
  }

  // -- The room a board may take, measured: the page's width, the screen under the header ----
  // On a wide screen (the style sheet's 960 px) the solver panel stands beside the board: the
  // board takes what the panel leaves at its narrowest, and the panel the rest, up to its widest.
  const WIDE = "(min-width: 960px)";
  const SIDE_MIN = 290, SIDE_MAX = 540, MAIN_MIN = 560, GAP = 16;

  function fit() {
    const level = page();
    if (!level) return;
    const header = document.querySelector("body > header");
    const style = document.documentElement.style;
    const layout = document.querySelector(".level-layout");
    const side = document.querySelector(".level-side");
    const wide = Boolean(layout && side && window.matchMedia(WIDE).matches);
    if (wide) {
      const whole = layout.clientWidth;
      style.setProperty("--room-w", Math.floor(whole - SIDE_MIN - GAP) + "px");
      const board = document.querySelector("#play .board, #replay .board");
      const boardWidth = board ? Math.ceil(board.getBoundingClientRect().width / zoom.scale) : 0;
      const main = Math.min(whole - SIDE_MIN - GAP, Math.max(MAIN_MIN, boardWidth));
      const rest = Math.max(SIDE_MIN, Math.min(SIDE_MAX, whole - main - GAP));
      style.setProperty("--main-col", main + "px");
      style.setProperty("--side-col", rest + "px");
      // The panel's own board fits the panel's inside; the panel fits the screen's height.
      const panel = side.querySelector(".solver");
      const padding = panel ? panel.offsetWidth - panel.clientWidth + 32 : 34;
      style.setProperty("--side-room-w", Math.floor(rest - padding) + "px");
      const top = side.getBoundingClientRect().top + window.scrollY;
      style.setProperty("--side-h", Math.max(320, window.innerHeight - Math.max(8, top - window.scrollY) - 8) + "px");
      style.setProperty("--side-room-h", Math.max(140, Math.floor(window.innerHeight * 0.42)) + "px");
    } else {
      ["--main-col", "--side-col", "--side-h", "--side-room-w", "--side-room-h"].forEach((name) => style.removeProperty(name));
      style.setProperty("--room-w", Math.floor(level.clientWidth) + "px");
    }
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
  document.addEventListener("touchmove", (event) => {
    if (pinch) pinchMove(event);
    else if (touch) event.preventDefault();
  }, { passive: false });
  document.addEventListener("touchend", onTouchEnd, { passive: false });
  document.addEventListener("touchcancel", () => { touch = null; pinch = null; });
  // A phone's toolbars coming and going resize the window too: only a new width lets go of
  // the zoom (a turned phone, a resized window).
  let lastWidth = window.innerWidth;
  window.addEventListener("resize", () => {
    if (window.innerWidth !== lastWidth) unzoom();
    lastWidth = window.innerWidth;
    fit();
  });
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
    showZoom();
    follow();
    announce();
  });
  function ready() { fit(); prepareBoard(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();

  // -- A replay link's view plays its moves: each step's page is fetched and its view swapped
  // in place (the address follows), at the chosen speed, until the end or Pause ------------
  let replaying = null;  // the timer while the moves play

  function replaySpeed() {
    const select = document.getElementById("replay-speed");
    return Math.max(1, Number(select ? select.value : 4) || 4);
  }

  function showReplaying() {
    const button = document.getElementById("replay-play");
    if (button) button.textContent = replaying !== null ? "Pause" : "Play";
  }

  function stopReplay() {
    clearTimeout(replaying);
    replaying = null;
    showReplaying();
  }

  function loadReplay(url, speed) {
    return fetch(url, { credentials: "same-origin" }).then((response) => {
      if (!response.ok) throw new Error("step");
      return response.text();
    }).then((html) => {
      const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("replay");
      const old = document.getElementById("replay");
      if (!fresh || !old) throw new Error("step");
      const before = animation((motion) => motion.measure(old));
      const adopted = document.importNode(fresh, true);
      old.replaceWith(adopted);
      htmx.process(adopted);
      const select = document.getElementById("replay-speed");
      if (select) select.value = String(speed);
      history.replaceState(null, "", url);
      animation((motion) => motion.animate(before, adopted));
      showReplaying();
    });
  }

  function replayStep() {
    const view = document.getElementById("replay");
    const forward = view && view.querySelector('[data-step="forward"]');
    if (replaying === null || !forward || Number(view.dataset.position) >= Number(view.dataset.total)) {
      stopReplay();
      return;
    }
    const speed = replaySpeed();
    loadReplay(forward.href, speed).then(() => {
      if (replaying !== null) replaying = setTimeout(replayStep, 1000 / speed);
    }).catch(() => { stopReplay(); flash("The next step could not be loaded."); });
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("#replay-play");
    if (!button) return;
    if (replaying !== null) { stopReplay(); return; }
    const view = document.getElementById("replay");
    replaying = 0;
    showReplaying();
    if (Number(view.dataset.position) >= Number(view.dataset.total)) {
      // At the end: from the start.
      const start = view.querySelector('[data-step="start"]');
      loadReplay(start.href, replaySpeed()).then(() => { replaying = setTimeout(replayStep, 1000 / replaySpeed()); })
        .catch(stopReplay);
    } else {
      replayStep();
    }
  });

  // -- Sharing: the level's address to the clipboard, or the phone's own share sheet ----------
  function copied(button, text) {
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = text;
    button.classList.add("done");
    clearTimeout(button.timer);
    button.timer = setTimeout(() => { button.textContent = label; button.classList.remove("done"); }, 2500);
    flash(text);
  }

  function copyByHand(url) {
    // Without the clipboard API (a page not served over HTTPS): a selected field and the copy command.
    const field = document.createElement("textarea");
    field.value = url;
    field.setAttribute("readonly", "");
    field.style.position = "fixed";
    field.style.opacity = "0";
    document.body.appendChild(field);
    field.select();
    let done = false;
    try { done = document.execCommand("copy"); } catch (error) { done = false; }
    field.remove();
    return done;
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(".copy-link");
    if (!button) return;
    event.preventDefault();
    const url = new URL(button.dataset.copy || window.location.pathname, window.location.origin).href;
    const phone = window.matchMedia("(pointer: coarse)").matches;
    if (phone && navigator.share) {
      navigator.share({ title: button.dataset.title || document.title, url: url })
        .then(() => copied(button, "Shared"))
        .catch((error) => { if (error && error.name !== "AbortError") copied(button, copyByHand(url) ? "Link copied" : url); });
      return;
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url)
        .then(() => copied(button, "Link copied"))
        .catch(() => copied(button, copyByHand(url) ? "Link copied" : "Copy this address: " + url));
    } else {
      copied(button, copyByHand(url) ? "Link copied" : "Copy this address: " + url);
    }
  });

  // A text to share (the daily result) to the clipboard as it is.
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(".copy-text");
    if (!button) return;
    const text = button.dataset.text || "";
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(() => copied(button, "Copied"))
        .catch(() => copied(button, copyByHand(text) ? "Copied" : "Select the text to copy it"));
    } else {
      copied(button, copyByHand(text) ? "Copied" : "Select the text to copy it");
    }
  });

  document.addEventListener("keydown", onKey);
  document.addEventListener("click", onClick);
  document.addEventListener("focusin", (event) => keysTo(event.target));
  document.addEventListener("pointerdown", (event) => {
    keysTo(event.target);
    const game = current();
    if (game && game.pointerdown) game.pointerdown(event);
  });
  document.addEventListener("htmx:afterSwap", () => {
    const game = current();
    if (game && game.afterSwap) game.afterSwap();
  });
  // Each solver message, once swapped in, told to whoever draws from it (static/js/heat.js).
  document.addEventListener("htmx:wsAfterMessage", (event) => document.dispatchEvent(new CustomEvent("solver:progress", {detail: event.detail.message})));
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
  // A level made to order can take seconds to make and prove: the page says it is at work.
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest(".make-links a");
    const status = document.getElementById("make-status");
    if (!link || !status || event.defaultPrevented || event.ctrlKey || event.metaKey || event.shiftKey) return;
    status.textContent = "Making your " + link.textContent.trim().toLowerCase() +
      " level and solving it to be sure it can be won… the hardest take a few seconds.";
    document.getElementById("make").setAttribute("aria-busy", "true");
  });
  window.addEventListener("pageshow", () => {  // back from the level: no stale word
    const status = document.getElementById("make-status");
    if (status) status.textContent = "";
  });
  // A collection's order and filter apply as they are chosen (the List button is for a page
  // without scripts).
  document.addEventListener("change", (event) => {
    const form = event.target.closest && event.target.closest("#level-listing");
    if (form) form.requestSubmit();
  });

  window.PuzzleLab = {
    send: send,
    flash: flash,
    register: (name, handlers) => { games[name] = handlers; },
    game: (name) => games[name] || null,
    hold: busy,
  };
})();
