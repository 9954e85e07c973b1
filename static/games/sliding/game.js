// The sliding puzzle: a direction (a key, a swipe, the arrow pad) slides a tile into the hole;
// a click or tap on a tile in the hole's row or column slides it there.
// Tile numbers are one of the player's settings, kept in this browser.
import { register } from "/static/js/lab.js";

register("sliding", {
  key: (direction) => ({ action: "move", moves: direction.toUpperCase(), quiet: "1" }),
  // A swipe slides the tile beside the hole the way the finger went.
  swipe: (direction) => ({ action: "move", moves: direction.toUpperCase(), quiet: "1" }),
  click: (cell) => (cell.classList.contains("tile") ? { action: "click", cell: cell.dataset.cell } : null),
  attention: (board) => board.querySelector(".hole"),
  // Each tile glides into the hole it slid to.
  movers: (board) => Array.from(board.querySelectorAll(".tile")).map((tile) => ({ key: tile.dataset.tile, element: tile })),
});

// The tile numbers are one of the player's settings (settings.js); this box shows it too.
function applyNumbers() {
  const box = document.getElementById("show-numbers");
  if (box) box.checked = Boolean(window.PuzzleSettings && PuzzleSettings.get("numbers"));
}

document.addEventListener("puzzlelab:settings", applyNumbers);
document.addEventListener("change", (event) => {
  if (event.target && event.target.id === "show-numbers" && window.PuzzleSettings) {
    PuzzleSettings.set("numbers", event.target.checked);
  }
  if (event.target && event.target.id === "new-size") {
    const [rows, cols] = event.target.value.split("x");
    const form = event.target.form;
    form.elements.rows.value = rows;
    form.elements.cols.value = cols;
  }
});
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", applyNumbers);
} else {
  applyNumbers();
}
