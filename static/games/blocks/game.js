// Sliding blocks: select a piece (a click, a tap, or Space on the keyboard cursor), then the
// arrows move it, or a tap on a square moves it there; or drag it along the cells it can reach.
import { GridCursor } from "/static/js/cursor.js";
import { flash, register } from "/static/js/lab.js";
import { send } from "/static/js/pipeline.js";

let selectedPiece = null;
const cursor = new GridCursor("#play .blocks");  // shown once the keyboard is used

function pieces() {
  return Array.from(document.querySelectorAll("#play .blocks .piece"));
}

function footprint(piece) {
  const [row, col] = piece.dataset.cell.split(",").map(Number);
  const shape = /shape-(\d+)x(\d+)/.exec(piece.className);
  return { row: row, col: col, height: shape ? Number(shape[1]) : 1, width: shape ? Number(shape[2]) : 1 };
}

function covers(place, r, c) {
  return r >= place.row && r < place.row + place.height && c >= place.col && c < place.col + place.width;
}

function pieceAt(r, c) {
  return pieces().find((piece) => covers(footprint(piece), r, c)) || null;
}

function selected() {
  return selectedPiece === null ? null
    : document.querySelector('#play .blocks .piece[data-piece="' + selectedPiece + '"]');
}

function show() {
  const piece = selected();
  pieces().forEach((el) => el.classList.toggle("selected", el === piece));
  document.querySelectorAll("#play .blocks .cell").forEach((el) => el.classList.remove("reach"));
  if (piece) {
    // The squares the selected piece can be dragged or tapped to.
    const place = footprint(piece);
    Object.keys(JSON.parse(piece.dataset.targets || "{}")).forEach((key) => {
      const [r, c] = key.split(",").map(Number);
      for (let dr = 0; dr < place.height; dr += 1) {
        for (let dc = 0; dc < place.width; dc += 1) {
          if (covers(place, r + dr, c + dc)) continue;
          const cell = document.querySelector('#play .blocks .cell[data-cell="' + (r + dr) + "," + (c + dc) + '"]');
          if (cell) cell.classList.add("reach");
        }
      }
    });
  }
  // The piece under the cursor is marked as a whole; an empty square as itself.
  cursor.show((board, [r, c]) => {
    const under = pieceAt(r, c);
    return under ? [under, "at-cursor"] : board.querySelector('.cell[data-cell="' + r + "," + c + '"]');
  });
}

function selectPiece(index) {
  selectedPiece = index;
  show();
}

function pointerdown(event) {
  const piece = event.target.closest("#play .blocks .piece");
  if (!piece) return;
  event.preventDefault();
  const board = piece.parentElement;
  const cols = parseInt(board.style.getPropertyValue("--cols"), 10);
  const cellSize = board.getBoundingClientRect().width / cols;  // as shown, zoomed or not
  const [row, col] = piece.dataset.cell.split(",").map(Number);
  const targets = JSON.parse(piece.dataset.targets || "{}");
  const span = piece.style.gridArea.split("/").slice(2).join("/");
  const drag = { x: event.clientX, y: event.clientY, at: piece.dataset.cell };
  piece.setPointerCapture(event.pointerId);
  piece.classList.add("dragging");
  if (cursor.at) cursor.place([row, col]);  // one place of attention
  selectPiece(piece.dataset.piece);

  function move(e) {
    const r = row + Math.round((e.clientY - drag.y) / cellSize);
    const c = col + Math.round((e.clientX - drag.x) / cellSize);
    const key = r + "," + c;
    if (key !== drag.at && (targets[key] || key === piece.dataset.cell)) {
      drag.at = key;
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

// A tap on a square with a piece selected: the shortest way that brings the piece over that
// square (from the distance tables), else one step towards it when it is in line.
function tap(cell) {
  const piece = selected();
  if (!piece || cell.classList.contains("piece")) return null;
  const [r, c] = cell.dataset.cell.split(",").map(Number);
  const place = footprint(piece);
  let best = null;
  Object.entries(JSON.parse(piece.dataset.targets || "{}")).forEach(([key, steps]) => {
    const [tr, tc] = key.split(",").map(Number);
    const there = { row: tr, col: tc, height: place.height, width: place.width };
    const count = steps.split(" ").length;
    if (covers(there, r, c) && (best === null || count < best.count)) best = { steps: steps, count: count };
  });
  if (best) return { action: "move", moves: best.steps };
  let direction = null;
  if (r >= place.row && r < place.row + place.height) direction = c < place.col ? "L" : "R";
  else if (c >= place.col && c < place.col + place.width) direction = r < place.row ? "U" : "D";
  if (!direction) return null;
  return { action: "move", moves: piece.dataset.cell + direction };
}

function key(direction) {
  const piece = selected();
  if (piece) {
    return { action: "move", moves: piece.dataset.cell + direction.toUpperCase(), quiet: "1" };
  }
  // The first arrow shows the cursor on the first piece.
  cursor.move(direction, () => {
    const first = pieces()[0];
    return first ? first.dataset.cell : null;
  });
  show();
  return null;
}

function select() {
  if (!cursor.at) { key("r"); return null; }
  const piece = pieceAt(cursor.at[0], cursor.at[1]);
  if (piece && piece.dataset.piece !== selectedPiece) {
    selectPiece(piece.dataset.piece);
  } else {
    if (!piece) flash("No piece here: move the cursor onto a piece.");
    selectPiece(null);
  }
  return null;
}

// A classic's Chinese name where this system has no font for it (it would show as empty
// boxes): its romanised name (the intro's alias) stands in the title, the name in its tooltip.
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

function drawn(text, font) {
  const canvas = document.createElement("canvas");
  canvas.width = 48;
  canvas.height = 48;
  const pen = canvas.getContext("2d");
  pen.font = font;
  pen.fillText(text, 4, 38);
  return pen.getImageData(0, 0, 48, 48).data.join(",");
}

function nameWithoutFont() {
  const title = document.querySelector("h1.level-title");
  const alias = document.querySelector("#level-intro .alias");
  const found = title && CJK.exec(title.textContent);
  if (!found || !alias) return;
  const font = "32px " + getComputedStyle(title).fontFamily;
  // A character no font has (a private-use one) is drawn as the missing-glyph box.
  if (drawn(found[0], font) !== drawn("\ue000", font)) return;
  title.title = title.textContent;
  title.textContent = alias.textContent.trim();
  alias.hidden = true;
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", nameWithoutFont);
else nameWithoutFont();

register("blocks", {
  // Each piece glides to where it went (a dragged piece is already there).
  movers: (board) => Array.from(board.querySelectorAll(".piece")).map((piece) => ({ key: piece.dataset.piece, element: piece })),
  attention: (board) => board.querySelector(".piece.selected, .cursor"),
  key: key,
  select: select,
  click: tap,
  pointerdown: pointerdown,
  afterSwap: () => {
    const piece = selected();
    if (piece && cursor.at) {
      const place = footprint(piece);
      if (!covers(place, cursor.at[0], cursor.at[1])) cursor.place([place.row, place.col]);
    }
    show();
  },
});
