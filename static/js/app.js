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

  // -- Vexed: select a block, then a direction (key or a click on the empty square beside).
  let selectedBlock = null;
  let animating = false;

  function selectBlock(cell) {
    selectedBlock = cell;
    document.querySelectorAll("#play .vexed .cell").forEach((el) => {
      el.classList.remove("selected", "beside");
    });
    if (!cell) return;
    const el = document.querySelector('#play .vexed [data-cell="' + cell + '"]');
    if (!el || !el.classList.contains("block")) { selectedBlock = null; return; }
    el.classList.add("selected");
    const [r, c] = cell.split(",").map(Number);
    [c - 1, c + 1].forEach((cc) => {
      const side = document.querySelector('#play .vexed [data-cell="' + r + "," + cc + '"]');
      if (side && side.classList.contains("empty")) side.classList.add("beside");
    });
  }

  function vexedMove(direction) {
    if (!selectedBlock) { flash("Click a block first, then ← or →."); return null; }
    const [r, c] = selectedBlock.split(",").map(Number);
    selectedBlock = r + "," + (c + (direction === "<" ? -1 : 1));  // follow the block
    return { action: "move", moves: r + "," + c + direction, quiet: "1" };
  }

  // Show the falls and vanishings one by one, holding input until the board is still.
  function animateVexed() {
    const frames = document.querySelector("#play .frames");
    const board = document.querySelector("#play .vexed");
    if (!frames || !board) return false;
    const boards = Array.from(frames.querySelectorAll("template")).map((t) => t.innerHTML);
    const still = board.outerHTML;
    frames.remove();
    if (boards.length === 0) return false;
    animating = true;
    let index = 0;
    const holder = board.parentElement;
    let current = board;
    function step() {
      const html = index < boards.length ? boards[index] : still;
      const wrap = document.createElement("div");
      wrap.innerHTML = html.trim();
      const next = wrap.firstElementChild;
      holder.replaceChild(next, current);
      current = next;
      index += 1;
      if (index <= boards.length) {
        setTimeout(step, 170);
      } else {
        animating = false;
        selectBlock(selectedBlock);
      }
    }
    step();
    return true;
  }

  const GAMES = {
    sokoban: {
      key: (direction) => ({ action: "move", moves: direction, quiet: "1" }),
      click: (cell) => ({ action: "click", cell: cell.dataset.cell }),
    },
    sliding: {
      key: (direction) => ({ action: "move", moves: direction.toUpperCase(), quiet: "1" }),
      click: (cell) => (cell.classList.contains("tile") ? { action: "click", cell: cell.dataset.cell } : null),
    },
    vexed: {
      key: (direction) => (direction === "l" ? vexedMove("<") : direction === "r" ? vexedMove(">") : null),
      click: (cell) => {
        if (cell.classList.contains("block")) {
          selectBlock(selectedBlock === cell.dataset.cell ? null : cell.dataset.cell);
        } else if (cell.classList.contains("empty") && selectedBlock) {
          // Beside the selected block (worked out here: the board may be mid-animation).
          const [r, c] = cell.dataset.cell.split(",").map(Number);
          const [sr, sc] = selectedBlock.split(",").map(Number);
          if (r === sr && Math.abs(c - sc) === 1) return vexedMove(c < sc ? "<" : ">");
        }
        return null;
      },
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

  // The sliding puzzle's tile numbers: a choice kept in this browser.
  function applyNumbers() {
    const box = document.getElementById("show-numbers");
    const level = page();
    if (!box || !level) return;
    box.checked = localStorage.getItem("puzzlelab.numbers") === "1";
    level.classList.toggle("numbered", box.checked);
  }
  document.addEventListener("change", (event) => {
    if (event.target && event.target.id === "show-numbers") {
      localStorage.setItem("puzzlelab.numbers", event.target.checked ? "1" : "0");
      applyNumbers();
    }
    if (event.target && event.target.id === "new-size") {
      const [rows, cols] = event.target.value.split("x");
      const form = event.target.form;
      form.elements.rows.value = rows;
      form.elements.cols.value = cols;
    }
  });
  document.addEventListener("DOMContentLoaded", applyNumbers);

  document.addEventListener("keydown", onKey);
  document.addEventListener("click", onClick);
  document.addEventListener("pointerdown", (event) => {
    const level = page();
    if (level && level.dataset.game === "blocks") blocksPointerDown(event);
  });
  document.addEventListener("htmx:afterSwap", () => {
    if (selectedPiece !== null) selectPiece(selectedPiece);
    if (!animateVexed() && selectedBlock) selectBlock(selectedBlock);
  });
  document.addEventListener("htmx:responseError", (event) => {
    flash(event.detail.xhr.responseText || "Something went wrong.");
  });
  document.addEventListener("htmx:sendError", () => flash("The server cannot be reached. Your game is safe; try again."));
  window.PuzzleLab = { send: send, flash: flash, hold: () => animating };
})();
