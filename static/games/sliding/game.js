// The sliding puzzle: a direction (a key, a swipe, the arrow pad) slides a tile into the hole;
// a click or tap on a tile in the hole's row or column slides it there.
// Tile numbers are a choice kept in this browser.
(function () {
  "use strict";

  PuzzleLab.register("sliding", {
    key: (direction) => ({ action: "move", moves: direction.toUpperCase(), quiet: "1" }),
    // A swipe slides the tile beside the hole the way the finger went.
    swipe: (direction) => ({ action: "move", moves: direction.toUpperCase(), quiet: "1" }),
    click: (cell) => (cell.classList.contains("tile") ? { action: "click", cell: cell.dataset.cell } : null),
  });

  function applyNumbers() {
    const box = document.getElementById("show-numbers");
    const level = document.querySelector(".level-page");
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
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", applyNumbers);
  } else {
    applyNumbers();
  }
})();
