// Sliding blocks: select a piece, then arrows; or drag it along the cells it can reach.
(function () {
  "use strict";

  let selectedPiece = null;

  function selectPiece(index) {
    selectedPiece = index;
    document.querySelectorAll("#play .blocks .piece").forEach((el) => {
      el.classList.toggle("selected", el.dataset.piece === index);
    });
  }

  function pointerdown(event) {
    const piece = event.target.closest("#play .blocks .piece");
    if (!piece) return;
    event.preventDefault();
    const board = piece.parentElement;
    const cols = parseInt(board.style.getPropertyValue("--cols"), 10);
    const cellSize = board.clientWidth / cols;
    const [row, col] = piece.dataset.cell.split(",").map(Number);
    const targets = JSON.parse(piece.dataset.targets || "{}");
    const span = piece.style.gridArea.split("/").slice(2).join("/");
    const drag = { x: event.clientX, y: event.clientY, at: piece.dataset.cell };
    piece.setPointerCapture(event.pointerId);
    piece.classList.add("dragging");
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
        PuzzleLab.send({ action: "move", moves: targets[drag.at] });
      }
    }
    piece.addEventListener("pointermove", move);
    piece.addEventListener("pointerup", up);
    piece.addEventListener("pointercancel", up);
  }

  PuzzleLab.register("blocks", {
    key: (direction) => {
      const piece = selectedPiece === null ? null
        : document.querySelector('#play .blocks .piece[data-piece="' + selectedPiece + '"]');
      if (!piece) { PuzzleLab.flash("Click a piece first, then use the arrow keys."); return null; }
      return { action: "move", moves: piece.dataset.cell + direction.toUpperCase(), quiet: "1" };
    },
    click: () => null,
    pointerdown: pointerdown,
    afterSwap: () => { if (selectedPiece !== null) selectPiece(selectedPiece); },
  });
})();
