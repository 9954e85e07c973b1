// Touch on the board: a swipe is a direction (a game's swipe()), a tap stays a click, and two
// fingers zoom and move the board (layout.js).
import { current } from "./lab.js";
import { pinchEnd, pinchMove, pinchStart, pinching } from "./layout.js";
import { send } from "./pipeline.js";

let touch = null;
// Whether a finger has played on the board (a tap or a swipe whose move is on its way).
let played = false;

export function playedByFinger() {
  return played;
}

function onTouchStart(event) {
  if (event.touches.length === 2 && pinchStart(event)) { touch = null; return; }
  const board = event.target.closest ? event.target.closest("#play .board") : null;
  if (board && event.touches.length === 1) played = true;
  touch = board && event.touches.length === 1
    ? { x: event.touches[0].clientX, y: event.touches[0].clientY, target: event.target, board: board }
    : null;
}

function onTouchEnd(event) {
  if (pinchEnd(event)) return;
  const start = touch;
  touch = null;
  if (!start || event.changedTouches.length !== 1) return;
  const dx = event.changedTouches[0].clientX - start.x;
  const dy = event.changedTouches[0].clientY - start.y;
  const cell = start.board.querySelector(".cell");
  const reach = Math.max(16, Math.min(40, (cell ? cell.getBoundingClientRect().width : 30) * 0.6));
  if (Math.max(Math.abs(dx), Math.abs(dy)) < reach) return;  // a tap: the click follows
  event.preventDefault();  // a swipe is not also a click
  const game = current();
  if (!game || !game.swipe) return;
  const direction = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "r" : "l") : (dy > 0 ? "d" : "u");
  const values = game.swipe(direction, start.target);
  if (values) send(values);
}

export function start() {
  document.addEventListener("touchstart", onTouchStart, { passive: true });
  // A finger moving on the board is ours: no scroll, and no fling that would eat the next tap.
  document.addEventListener("touchmove", (event) => {
    if (pinching()) pinchMove(event);
    else if (touch) event.preventDefault();
  }, { passive: false });
  document.addEventListener("touchend", onTouchEnd, { passive: false });
  document.addEventListener("touchcancel", () => { touch = null; pinchEnd(null); });
}
