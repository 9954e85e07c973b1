// Puzzle Lab: keyboard, mouse and touch input for the level pages. Every action is an htmx
// request that swaps the #play partial; actions are sent one at a time, in the order made.
//
// A game's own script (static/games/<name>/game.js, loaded on its level pages only) registers
// how input becomes moves, as Tatham's interpret_move does:
//   PuzzleLab.register(name, {
//     key(direction) -> request values or null   direction: "l" "u" "r" "d"
//     click(cell)    -> request values or null   cell: the clicked [data-cell] element
//     pointerdown(event)                          optional: drags
//     afterSwap()                                 optional: after the board was redrawn
//     hold()         -> true while input must wait (an animation runs)
//   });
(function () {
  "use strict";

  const queue = [];
  const games = {};
  let busy = false;

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

  function pump() {
    if (busy || queue.length === 0) return;
    const level = page();
    if (!level) { queue.length = 0; return; }
    const game = current();
    if (game && game.hold && game.hold()) { setTimeout(pump, 50); return; }
    busy = true;
    const values = queue.shift();
    if (level.dataset.picture) values.picture = level.dataset.picture;
    htmx.ajax("POST", level.dataset.playUrl, {
      target: "#play", swap: "outerHTML", values: values,
      headers: { "X-CSRF-Token": csrf() },
    }).catch(() => {}).finally(() => { busy = false; pump(); });
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
    const cell = event.target.closest("#play .board [data-cell]");
    const game = current();
    if (cell && game && game.click) {
      const values = game.click(cell);
      if (values) send(values);
    }
  }

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
