// Hop: left and right hop one cell; a click hops to the cell.
PuzzleLab.register("hop", {
  key: (direction) => (direction === "l" || direction === "r" ? { action: "move", moves: direction, quiet: "1" } : null),
  click: (cell) => ({ action: "click", cell: cell.dataset.cell }),
});
