// Puzzle Lab: keyboard, mouse and touch input for the level pages. Every action is an htmx
// request that swaps the #play partial; actions are sent one at a time, in the order made.
// Each game turns a direction key or a click into the values of one request.
(function () {
  "use strict";

  const queue = [];
  let busy = false;

  function csrf() {
    const meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function page() {
    return document.querySelector(".level-page");
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
    if (window.PuzzleLab.hold && window.PuzzleLab.hold()) { setTimeout(pump, 50); return; }
    busy = true;
    const values = queue.shift();
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

  // -- Sliding blocks: select a piece, then arrows; or drag it along the cells it can reach.
  let selectedPiece = null;

  function selectPiece(index) {
    selectedPiece = index;
    document.querySelectorAll("#play .blocks .piece").forEach((el) => {
      el.classList.toggle("selected", el.dataset.piece === index);
    });
  }

  function blocksPointerDown(event) {
    const piece = event.target.closest("#play .blocks .piece");
    if (!piece) return;
    event.preventDefault();
    const board = piece.parentElement;
    const cols = parseInt(board.style.getPropertyValue("--cols"), 10);
    const cellSize = board.clientWidth / cols;
    const [row, col] = piece.dataset.cell.split(",").map(Number);
    const targets = JSON.parse(piece.dataset.targets || "{}");
    const span = piece.style.gridArea.split("/").slice(2).join("/");
    const drag = { x: event.clientX, y: event.clientY, row, col, at: piece.dataset.cell, moved: false };
    piece.setPointerCapture(event.pointerId);
    piece.classList.add("dragging");
    selectPiece(piece.dataset.piece);

    function move(e) {
      const r = row + Math.round((e.clientY - drag.y) / cellSize);
      const c = col + Math.round((e.clientX - drag.x) / cellSize);
      const key = r + "," + c;
      if (key !== drag.at && (targets[key] || key === piece.dataset.cell)) {
        drag.at = key;
        drag.moved = true;
        piece.style.gridArea = (r + 1) + " / " + (c + 1) + " / " + span;
      }
    }
    function up() {
      piece.removeEventListener("pointermove", move);
      piece.removeEventListener("pointerup", up);
      piece.removeEventListener("pointercancel", up);
      piece.classList.remove("dragging");
      if (drag.at !== piece.dataset.cell && targets[drag.at]) {
        send({ action: "move", moves: targets[drag.at] });
      }
    }
    piece.addEventListener("pointermove", move);
    piece.addEventListener("pointerup", up);
    piece.addEventListener("pointercancel", up);
  }

  const GAMES = {
    sokoban: {
      key: (direction) => ({ action: "move", moves: direction, quiet: "1" }),
      click: (cell) => ({ action: "click", cell: cell.dataset.cell }),
    },
    blocks: {
      key: (direction) => {
        const piece = selectedPiece === null ? null
          : document.querySelector('#play .blocks .piece[data-piece="' + selectedPiece + '"]');
        if (!piece) { flash("Click a piece first, then use the arrow keys."); return null; }
        return { action: "move", moves: piece.dataset.cell + direction.toUpperCase(), quiet: "1" };
      },
      click: () => null,
    },
  };

  function onKey(event) {
    const level = page();
    if (!level || event.altKey || event.metaKey) return;
    const target = event.target;
    if (target && (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
    const key = event.key;
    let values = null;
    if ((event.ctrlKey && (key === "z" || key === "Z")) || (!event.ctrlKey && (key === "u" || key === "z"))) {
      values = { action: "undo" };
    } else if ((event.ctrlKey && (key === "y" || key === "Y")) || (!event.ctrlKey && key === "U")) {
      values = { action: "redo" };
    } else if (!event.ctrlKey && key === "r") {
      values = { action: "restart" };
    } else if (!event.ctrlKey && DIRECTIONS[key]) {
      const game = GAMES[level.dataset.game];
      if (game) values = game.key(DIRECTIONS[key]);
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
    const game = GAMES[level.dataset.game];
    if (cell && game) {
      const values = game.click(cell);
      if (values) send(values);
    }
  }

  document.addEventListener("keydown", onKey);
  document.addEventListener("click", onClick);
  document.addEventListener("pointerdown", (event) => {
    const level = page();
    if (level && level.dataset.game === "blocks") blocksPointerDown(event);
  });
  document.addEventListener("htmx:afterSwap", () => {
    if (selectedPiece !== null) selectPiece(selectedPiece);
  });
  document.addEventListener("htmx:responseError", (event) => {
    flash(event.detail.xhr.responseText || "Something went wrong.");
  });
  document.addEventListener("htmx:sendError", () => flash("The server cannot be reached. Your game is safe; try again."));
  window.PuzzleLab = { send: send, flash: flash, hold: null };
})();
