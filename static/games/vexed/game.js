// Vexed: select a block, then a direction (a key, or a click on the empty square beside it);
// or swipe a block left or right. From the keyboard alone: the arrows move a cursor, Space or
// Enter selects the block under it, then the arrows slide it.
// After a move the page shows the falls and vanishings one by one, holding input meanwhile.
(function () {
  "use strict";

  let selectedBlock = null;
  let animating = false;
  let cursor = null;  // "r,c" once the keyboard is used

  function showCursor() {
    document.querySelectorAll("#play .vexed .cursor").forEach((el) => el.classList.remove("cursor"));
    if (!cursor) return;
    const el = document.querySelector('#play .vexed [data-cell="' + cursor + '"]');
    if (el) el.classList.add("cursor");
  }

  function moveCursor(direction) {
    const board = document.querySelector("#play .vexed");
    if (!board) return;
    const rows = parseInt(board.style.getPropertyValue("--rows"), 10);
    const cols = parseInt(board.style.getPropertyValue("--cols"), 10);
    if (!cursor) {
      const first = board.querySelector(".block") || board.querySelector(".cell");
      cursor = first ? first.dataset.cell : "0,0";
    } else {
      let [r, c] = cursor.split(",").map(Number);
      r = Math.min(rows - 1, Math.max(0, r + (direction === "d" ? 1 : direction === "u" ? -1 : 0)));
      c = Math.min(cols - 1, Math.max(0, c + (direction === "r" ? 1 : direction === "l" ? -1 : 0)));
      cursor = r + "," + c;
    }
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
    if (!selectedBlock) { PuzzleLab.flash("Click a block first, then ← or →."); return null; }
    const [r, c] = selectedBlock.split(",").map(Number);
    selectedBlock = r + "," + (c + (direction === "<" ? -1 : 1));  // follow the block
    if (cursor) cursor = selectedBlock;
    return { action: "move", moves: r + "," + c + direction, quiet: "1" };
  }

  function key(direction) {
    if (selectedBlock && (direction === "l" || direction === "r")) return move(direction === "l" ? "<" : ">");
    if (selectedBlock && !cursor) { cursor = selectedBlock; }
    if (selectedBlock) selectBlock(null);  // up or down: put the block down, move the cursor
    moveCursor(direction);
    return null;
  }

  function select() {
    if (!cursor) { moveCursor("r"); return null; }
    if (selectedBlock === cursor) { selectBlock(null); return null; }
    selectBlock(cursor);
    if (!selectedBlock) PuzzleLab.flash("No block here: move the cursor onto a block.");
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

  function animate() {
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
      const focused = document.activeElement === current;
      next.tabIndex = 0;
      holder.replaceChild(next, current);
      if (focused) next.focus({ preventScroll: true });  // the keyboard stays on the board
      current = next;
      index += 1;
      if (index <= boards.length) {
        setTimeout(step, 170);
      } else {
        animating = false;
        selectBlock(selectedBlock);
        showCursor();
      }
    }
    step();
    return true;
  }

  PuzzleLab.register("vexed", {
    key: key,
    select: select,
    swipe: swipe,
    click: (cell) => {
      if (cell.classList.contains("block")) {
        selectBlock(selectedBlock === cell.dataset.cell ? null : cell.dataset.cell);
        if (cursor) { cursor = cell.dataset.cell; showCursor(); }  // one place of attention
      } else if (cell.classList.contains("empty") && selectedBlock) {
        // Beside the selected block (worked out here: the board may be mid-animation).
        const [r, c] = cell.dataset.cell.split(",").map(Number);
        const [sr, sc] = selectedBlock.split(",").map(Number);
        if (r === sr && Math.abs(c - sc) === 1) return move(c < sc ? "<" : ">");
      }
      return null;
    },
    afterSwap: () => {
      if (!animate()) { if (selectedBlock) selectBlock(selectedBlock); showCursor(); }
    },
    hold: () => animating,
  });
})();
