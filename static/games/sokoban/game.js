// Sokoban: a direction (a key, a swipe, the arrow pad) steps or pushes; a click or tap on a
// square walks there, and on a box next to the player pushes it.
PuzzleLab.register("sokoban", {
  key: (direction) => ({ action: "move", moves: direction, quiet: "1" }),
  swipe: (direction) => ({ action: "move", moves: direction, quiet: "1" }),
  click: (cell) => ({ action: "click", cell: cell.dataset.cell }),
});
