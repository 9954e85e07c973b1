// The heat map on the solver's board: how often each square held a box (the hole, a block)
// across the positions the search has looked at. The server puts the counts in #solve-heat
// with every solver message (templates/partials/solver_stream.html); this draws them over
// the board the message brought, when the player has switched the map on (#heat-toggle, kept
// in localStorage). A square's shade says how often, next to the hottest square; its number
// says it in percent of the positions looked at, so the colour is never the only telling.

const KEPT = "puzzlelab.heat";

/** The counts the last message brought: {rows, cols, positions, counts}, or null. */
function counts(detail) {
  if (detail && typeof detail === "object" && detail.heat) return detail.heat;
  const holder = document.getElementById("solve-heat");
  if (!holder || !holder.dataset.counts) return null;
  return {
    rows: Number(holder.dataset.rows),
    cols: Number(holder.dataset.cols),
    positions: Number(holder.dataset.positions),
    counts: holder.dataset.counts.split(",").map(Number),
  };
}

function percent(count, positions) {
  const share = (100 * count) / positions;
  return share >= 1 ? String(Math.round(share)) : "<1";
}

/** Draw the map over the board (or take it away when it is switched off). */
function draw(detail) {
  const board = document.querySelector("#solve-board .board");
  if (!board) return;
  for (const old of board.querySelectorAll(".heat-layer")) old.remove();
  const toggle = document.getElementById("heat-toggle");
  const heat = counts(detail);
  if (!toggle || !toggle.checked || !heat || !heat.positions) return;
  const hottest = Math.max(1, ...heat.counts);
  const layer = document.createElement("div");
  layer.className = "heat-layer";
  layer.setAttribute("aria-hidden", "true");  // #heat-note says it in words
  // Each square over its cell as the board lays it out, whatever the game's grid and gaps.
  for (const cell of board.querySelectorAll(".cell[data-cell]")) {
    const [row, column] = cell.dataset.cell.split(",").map(Number);
    if (row >= heat.rows || column >= heat.cols) continue;
    const count = heat.counts[row * heat.cols + column];
    if (!count) continue;
    const square = document.createElement("div");
    square.className = "heat-square";
    square.dataset.cell = cell.dataset.cell;
    square.dataset.count = String(count);
    square.style.left = cell.offsetLeft + "px";
    square.style.top = cell.offsetTop + "px";
    square.style.width = cell.offsetWidth + "px";
    square.style.height = cell.offsetHeight + "px";
    square.style.setProperty("--heat", (count / hottest).toFixed(3));
    square.textContent = percent(count, heat.positions);
    layer.append(square);
  }
  board.append(layer);
}

function setUp() {
  const toggle = document.getElementById("heat-toggle");
  if (toggle && !toggle.dataset.ready) {
    toggle.dataset.ready = "1";
    toggle.checked = localStorage.getItem(KEPT) === "on";
    toggle.addEventListener("change", () => {
      localStorage.setItem(KEPT, toggle.checked ? "on" : "off");
      draw(null);
    });
  }
  draw(null);
}

// A solver message swapped in (app.js, or the live panel's module): the board may be new.
document.addEventListener("solver:progress", (event) => draw(event.detail));
// A playback step redraws the solver's board with no progress in it: the map goes over it again.
document.addEventListener("htmx:wsAfterMessage", () => draw(null));
// A new solve brings a new panel (and its switch); a resize lays the board out anew.
document.addEventListener("htmx:afterSettle", setUp);
window.addEventListener("resize", () => draw(null));
setUp();
