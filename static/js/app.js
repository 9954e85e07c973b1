// Puzzle Lab: keyboard and mouse input for the level pages. Every action is an htmx request
// that swaps the #play partial; actions are sent one at a time, in the order they were made.
(function () {
  "use strict";

  const queue = [];
  let busy = false;

  function csrf() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
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
    const page = document.querySelector(".level-page");
    if (!page) { queue.length = 0; return; }
    busy = true;
    const values = queue.shift();
    htmx.ajax("POST", page.dataset.playUrl, {
      target: "#play", swap: "outerHTML", values: values,
      headers: { "X-CSRF-Token": csrf() },
    }).catch(() => {}).finally(() => { busy = false; pump(); });
  }

  function send(values) {
    queue.push(values);
    pump();
  }

  // Key -> direction letter (l u r d), shared by the games that move in four directions.
  const DIRECTIONS = {
    ArrowLeft: "l", ArrowUp: "u", ArrowRight: "r", ArrowDown: "d",
    a: "l", w: "u", d: "r", s: "d", A: "l", W: "u", D: "r", S: "d",
    h: "l", k: "u", l: "r", j: "d",
  };

  // Each game turns a direction into its move token.
  const GAMES = {
    sokoban: (direction) => direction,
  };

  function onKey(event) {
    const page = document.querySelector(".level-page");
    if (!page || event.altKey || event.metaKey) return;
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable)) return;
    const key = event.key;
    let values = null;
    if ((event.ctrlKey && (key === "z" || key === "Z")) || (!event.ctrlKey && (key === "u" || key === "z"))) {
      values = { action: "undo" };
    } else if ((event.ctrlKey && (key === "y" || key === "Y")) || (!event.ctrlKey && key === "U")) {
      values = { action: "redo" };
    } else if (!event.ctrlKey && key === "r") {
      values = { action: "restart" };
    } else if (!event.ctrlKey && DIRECTIONS[key]) {
      const toToken = GAMES[page.dataset.game];
      if (toToken) values = { action: "move", moves: toToken(DIRECTIONS[key]), quiet: "1" };
    }
    if (values) {
      event.preventDefault();
      send(values);
    }
  }

  function onClick(event) {
    const page = document.querySelector(".level-page");
    if (!page) return;
    const button = event.target.closest("#play [data-action]");
    if (button && page.contains(button)) {
      event.preventDefault();
      if (!button.disabled) send({ action: button.dataset.action });
      return;
    }
    const cell = event.target.closest("#play .board [data-cell]");
    if (cell && page.contains(cell)) {
      send({ action: "click", cell: cell.dataset.cell });
    }
  }

  document.addEventListener("keydown", onKey);
  document.addEventListener("click", onClick);
  document.addEventListener("htmx:responseError", (event) => {
    flash(event.detail.xhr.responseText || "Something went wrong.");
  });
  document.addEventListener("htmx:sendError", () => flash("The server cannot be reached. Your game is safe; try again."));
  window.PuzzleLab = { send: send, flash: flash };
})();
