// Sokoban: a direction steps or pushes; a click on a square walks there.
PuzzleLab.register("sokoban", {
  key: (direction) => ({ action: "move", moves: direction, quiet: "1" }),
  click: (cell) => ({ action: "click", cell: cell.dataset.cell }),
});
