// Vexed: select a block, then a direction (a key, or a click on the empty square beside it);
// or swipe a block left or right. From the keyboard alone: the arrows move a cursor, Space or
// Enter selects the block under it, then the arrows slide it.
// After a move the page shows the falls and vanishings one by one, holding input meanwhile
// (a key pressed then ends them at once); the selected block stays selected where it lands.
import { GridCursor, handOver } from "/static/js/cursor.js";
import { flash, register } from "/static/js/lab.js";
import { motion } from "/static/js/motion.js";

let selectedBlock = null;
let animating = false;
const cursor = new GridCursor("#play .vexed");  // shown once the keyboard is used

function showCursor() {
  cursor.show();
}

// The first arrow shows the cursor on the first block.
function moveCursor(direction) {
  cursor.move(direction, (board) => {
    const first = board.querySelector(".block") || board.querySelector(".cell");
    return first ? first.dataset.cell : null;
  });
  showCursor();
}

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

function move(direction) {
  if (!selectedBlock) { flash("Click a block first, then ← or →."); return null; }
  const [r, c] = selectedBlock.split(",").map(Number);
  selectedBlock = r + "," + (c + (direction === "<" ? -1 : 1));  // follow the block
  if (cursor.at) cursor.place(selectedBlock);
  return { action: "move", moves: r + "," + c + direction, quiet: "1" };
}

function key(direction) {
  if (selectedBlock && (direction === "l" || direction === "r")) return move(direction === "l" ? "<" : ">");
  if (selectedBlock && !cursor.at) cursor.place(selectedBlock);
  if (selectedBlock) selectBlock(null);  // up or down: put the block down, move the cursor
  moveCursor(direction);
  return null;
}

function select() {
  if (!cursor.at) { moveCursor("r"); return null; }
  if (selectedBlock === cursor.key) { selectBlock(null); return null; }
  selectBlock(cursor.key);
  if (!selectedBlock) flash("No block here: move the cursor onto a block.");
  return null;
}

function swipe(direction, target) {
  const cell = target.closest ? target.closest("#play .vexed .block") : null;
  if (cell && (direction === "l" || direction === "r")) {
    selectBlock(cell.dataset.cell);
    return move(direction === "l" ? "<" : ">");
  }
  return null;
}

// -- The falls and vanishings of a move, step by step --------------------------------------
// The server sends the boards in between (the frames hook) as hidden templates; the page
// plays them, a block gliding from one square to the next, before the settled board.
let shownBlocks = null;  // cell -> colour of the board last shown, settled
let timer = null;
let settle = null;       // ends the steps at once

function blocksOf(board) {
  const found = new Map();
  board.querySelectorAll(".block").forEach((el) => {
    const colour = Array.from(el.classList).find((name) => name.startsWith("c-"));
    found.set(el.dataset.cell, colour);
  });
  return found;
}

function parse(html) {
  const holder = document.createElement("template");
  holder.innerHTML = html.trim();
  return holder.content.firstElementChild;
}

// What happened between two boards: blocks that moved (a slide, falls: each block found again
// as the nearest of its colour that left, above it or beside it) and blocks that vanished.
function changes(before, after) {
  const left = [];
  before.forEach((colour, cell) => { if (after.get(cell) !== colour) left.push(cell); });
  const arrived = [];
  after.forEach((colour, cell) => { if (before.get(cell) !== colour) arrived.push(cell); });
  const at = (cell) => cell.split(",").map(Number);
  // Lowest first, so that blocks in one column keep their order as they fall.
  arrived.sort((a, b) => at(b)[0] - at(a)[0]);
  const moves = [];
  arrived.forEach((cell) => {
    const [r, c] = at(cell);
    let best = null;
    left.forEach((from) => {
      if (before.get(from) !== after.get(cell)) return;
      const [fr, fc] = at(from);
      const ok = (fc === c && fr < r) || (fr === r && Math.abs(fc - c) === 1);
      if (ok && (best === null || at(best)[0] < fr)) best = from;
    });
    if (best !== null) {
      left.splice(left.indexOf(best), 1);
      moves.push([best, cell]);
    }
  });
  return { moves: moves, vanished: left };
}

function follow(cell, change) {
  if (!cell) return null;
  const moved = change.moves.find(([from]) => from === cell);
  if (moved) return moved[1];
  return change.vanished.includes(cell) ? null : cell;
}

function endSteps(holder, current, still) {
  clearTimeout(timer);
  timer = null;
  settle = null;
  motion.finish();
  if (current && still && current.parentElement === holder) handOver(current, still);
  animating = false;
  selectBlock(selectedBlock);
  showCursor();
}

function animate() {
  const frames = document.querySelector("#play .frames");
  const board = document.querySelector("#play .vexed");
  if (!board) return false;
  const settled = blocksOf(board);
  const before = shownBlocks;
  shownBlocks = settled;
  if (!frames) return false;
  const boards = Array.from(frames.querySelectorAll("template")).map((t) => parse(t.innerHTML));
  frames.remove();
  if (!before || boards.length === 0) return false;
  // The selected block is followed to where it comes to rest (or lets go when it vanishes).
  const states = [before, ...boards.map(blocksOf), settled];
  const steps = [];
  for (let i = 1; i < states.length; i += 1) steps.push(changes(states[i - 1], states[i]));
  selectedBlock = steps.reduce((cell, change) => follow(cell, change), selectedBlock);
  if (cursor.at && selectedBlock) cursor.place(selectedBlock);
  const ms = motion.stepMs();
  if (!ms) return false;
  animating = true;
  const holder = board.parentElement;
  const still = board;
  const shown = boards.concat([still]);
  // The board before the move, drawn again from its blocks, is the first on screen.
  let current = board.cloneNode(true);
  current.querySelectorAll(".cell").forEach((el) => {
    const colour = before.get(el.dataset.cell);
    el.className = colour ? "cell block " + colour : (el.classList.contains("wall") ? "cell wall" : "cell empty");
    const symbol = el.querySelector(".symbol");
    if (!colour && symbol) symbol.remove();
    if (colour && !symbol) {
      const twin = board.querySelector("." + colour + " .symbol");
      if (twin) el.appendChild(twin.cloneNode(true));
    }
  });
  holder.replaceChild(current, board);
  let index = 0;
  settle = () => endSteps(holder, current, still);
  function step() {
    const change = steps[index];
    const next = shown[index];
    if (change.moves.length === 0 && change.vanished.length > 0) {
      // Vanishing: the blocks fade where they stand, then the next board.
      change.vanished.forEach((cell) => {
        const el = current.querySelector('[data-cell="' + cell + '"]');
        if (el) el.classList.add("vanishing");
      });
      motion.sound("pop");
      timer = setTimeout(() => { swap(next, null); }, ms);
      return;
    }
    swap(next, change);
  }
  function swap(next, change) {
    current = handOver(current, next);  // the keyboard stays on the board
    if (change) {
      change.moves.forEach(([from, to]) => {
        const el = current.querySelector('[data-cell="' + to + '"]');
        if (!el) return;
        const [fr, fc] = from.split(",").map(Number);
        const [tr, tc] = to.split(",").map(Number);
        motion.glide(el, (fc - tc) * el.offsetWidth, (fr - tr) * el.offsetHeight, ms);
      });
    }
    index += 1;
    if (index < shown.length) {
      timer = setTimeout(step, change ? ms : 0);
    } else {
      timer = setTimeout(() => endSteps(holder, current, null), change ? ms : 0);
    }
  }
  step();
  return true;
}

function skip() {
  if (settle) settle();
}

function remember() {
  const board = document.querySelector("#play .vexed");
  if (board && !shownBlocks) shownBlocks = blocksOf(board);
}
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", remember);
else remember();

register("vexed", {
  attention: (board) => board.querySelector(".selected, .cursor"),
  key: key,
  select: select,
  swipe: swipe,
  click: (cell) => {
    if (cell.classList.contains("block")) {
      // A click on a block always selects it: clicked again, it stays selected, so the
      // next arrow still moves it (the cursor keys up and down let it go).
      selectBlock(cell.dataset.cell);
      if (cursor.at) { cursor.place(cell.dataset.cell); showCursor(); }  // one place of attention
    } else if (cell.classList.contains("empty") && selectedBlock) {
      // Beside the selected block (worked out here: the board may be mid-animation).
      const [r, c] = cell.dataset.cell.split(",").map(Number);
      const [sr, sc] = selectedBlock.split(",").map(Number);
      if (r === sr && Math.abs(c - sc) === 1) return move(c < sc ? "<" : ">");
    }
    return null;
  },
  afterSwap: () => {
    // (Called again for the same swap while its steps play: they reselect when they end.)
    if (animating) return;
    if (!animate()) { if (selectedBlock) selectBlock(selectedBlock); showCursor(); }
  },
  hold: () => animating,
  skip: skip,
});
