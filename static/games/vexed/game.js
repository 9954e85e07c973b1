// Vexed: select a block, then a direction (a key, or a click on the empty square beside it).
// After a move the page shows the falls and vanishings one by one, holding input meanwhile.
(function () {
  "use strict";

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

  function move(direction) {
    if (!selectedBlock) { PuzzleLab.flash("Click a block first, then ← or →."); return null; }
    const [r, c] = selectedBlock.split(",").map(Number);
    selectedBlock = r + "," + (c + (direction === "<" ? -1 : 1));  // follow the block
    return { action: "move", moves: r + "," + c + direction, quiet: "1" };
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

  PuzzleLab.register("vexed", {
    key: (direction) => (direction === "l" ? move("<") : direction === "r" ? move(">") : null),
    click: (cell) => {
      if (cell.classList.contains("block")) {
        selectBlock(selectedBlock === cell.dataset.cell ? null : cell.dataset.cell);
      } else if (cell.classList.contains("empty") && selectedBlock) {
        // Beside the selected block (worked out here: the board may be mid-animation).
        const [r, c] = cell.dataset.cell.split(",").map(Number);
        const [sr, sc] = selectedBlock.split(",").map(Number);
        if (r === sr && Math.abs(c - sc) === 1) return move(c < sc ? "<" : ">");
      }
      return null;
    },
    afterSwap: () => { if (!animate() && selectedBlock) selectBlock(selectedBlock); },
    hold: () => animating,
  });
})();
