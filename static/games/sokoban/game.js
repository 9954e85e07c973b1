// Sokoban: a direction (a key, a swipe, the arrow pad) steps or pushes; a click or tap on a
// square walks there, and on a box next to the player pushes it.
import { register } from "/static/js/lab.js";

function place(key) {
  return key.slice(4).split(",").map(Number);
}

// The player and the boxes glide from one board to the next. Boxes have no names: a box
// still on its square keeps it, and each box that moved is the nearest one that left.
function movers(board, before) {
  const found = [];
  const player = board.querySelector(".player");
  if (player) found.push({ key: "player", element: player, pseudo: "::after" });
  const boxes = Array.from(board.querySelectorAll(".box"));
  if (!before) {
    boxes.forEach((box) => found.push({ key: "box:" + box.dataset.cell, element: box, pseudo: "::after" }));
    return found;
  }
  const here = new Set(boxes.map((box) => "box:" + box.dataset.cell));
  const left = before.filter((p) => p.key.startsWith("box:") && !here.has(p.key)).map((p) => p.key);
  boxes.forEach((box) => {
    const key = "box:" + box.dataset.cell;
    if (before.some((p) => p.key === key)) {
      found.push({ key: key, element: box, pseudo: "::after" });
      return;
    }
    const [r, c] = box.dataset.cell.split(",").map(Number);
    let best = -1;
    left.forEach((old, i) => {
      const [or, oc] = place(old);
      const distance = Math.abs(or - r) + Math.abs(oc - c);
      if (best < 0 || distance < Math.abs(place(left[best])[0] - r) + Math.abs(place(left[best])[1] - c)) best = i;
    });
    if (best >= 0) found.push({ key: left.splice(best, 1)[0], element: box, pseudo: "::after", pushed: true });
  });
  return found;
}

register("sokoban", {
  key: (direction) => ({ action: "move", moves: direction, quiet: "1" }),
  swipe: (direction) => ({ action: "move", moves: direction, quiet: "1" }),
  click: (cell) => ({ action: "click", cell: cell.dataset.cell }),
  attention: (board) => board.querySelector(".player"),
  movers: movers,
});
