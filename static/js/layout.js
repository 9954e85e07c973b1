// The room a board may take on the screen, and two fingers zooming and moving a big board
// (a phone): the zoomed view follows the square that holds the player's attention.
import { current, page } from "./lab.js";

// -- Two fingers on the board zoom and move it (a big board on a phone); one finger plays ----
const zoom = { scale: 1, x: 0, y: 0 };
let pinch = null;

function frame() {
  return document.querySelector("#play .board-frame");
}

export function showZoom() {
  const box = frame();
  if (!box) return;
  const zoomed = zoom.scale > 1.01;
  box.classList.toggle("zoomed", zoomed);
  box.style.setProperty("--zoom", String(zoom.scale));
  box.style.setProperty("--pan-x", zoom.x + "px");
  box.style.setProperty("--pan-y", zoom.y + "px");
  let reset = box.querySelector(".zoom-reset");
  if (zoomed && !reset) {
    reset = document.createElement("button");
    reset.type = "button";
    reset.className = "zoom-reset";
    reset.textContent = "Fit";
    reset.title = "Show the whole board";
    reset.addEventListener("click", (event) => { event.stopPropagation(); unzoom(); });
    box.appendChild(reset);
  } else if (!zoomed && reset) {
    reset.remove();
  }
}

function unzoom() {
  zoom.scale = 1; zoom.x = 0; zoom.y = 0;
  showZoom();
}

// -- A big board on a phone: the page opens with the whole board in view; once the player
// plays on it with a finger, it zooms in to squares a finger can read and hit (as a phone's
// Sokoban does), centred on the game's attention and following it from then on. "Fit" or two
// fingers show it whole again, and it stays as the player left it.
const READABLE = 28;  // px a square takes once zoomed in
const SMALL = 24;     // px below which a square is too small to play with a finger
let readableAsked = false;

export function zoomToPlay() {
  if (readableAsked) return;
  readableAsked = true;
  const box = frame(), game = current();
  const board = box && box.querySelector(".board");
  const cell = board && board.querySelector(".cell");
  if (!cell || zoom.scale > 1.01) return;
  const size = cell.getBoundingClientRect().width;
  if (!size || size >= SMALL) return;
  const target = (game && game.attention && game.attention(board)) || cell;
  const boxRect = box.getBoundingClientRect(), rect = target.getBoundingClientRect();
  zoom.scale = Math.min(5, READABLE / size);
  // The attention's centre at the frame's centre (then kept inside the board's edges).
  zoom.x = box.clientWidth / 2 - (rect.left - boxRect.left + rect.width / 2) * zoom.scale;
  zoom.y = box.clientHeight / 2 - (rect.top - boxRect.top + rect.height / 2) * zoom.scale;
  clampPan();
  showZoom();
}

// Zoomed in, the board follows the game: after each answer the square that holds the
// player's attention (a game's attention(board): Sokoban's player, the hole, the selected
// piece) is brought back into view, a quarter of the frame from its edge.
export function follow() {
  const box = frame(), game = current();
  if (!box || zoom.scale <= 1.01 || !game || !game.attention) return;
  const board = box.querySelector(".board");
  const target = board && game.attention(board);
  if (!target) return;
  const boxRect = box.getBoundingClientRect(), rect = target.getBoundingClientRect();
  const width = box.clientWidth, height = box.clientHeight;
  const x = rect.left - boxRect.left, y = rect.top - boxRect.top;
  const marginX = Math.min(width / 4, Math.max(0, (width - rect.width) / 2));
  const marginY = Math.min(height / 4, Math.max(0, (height - rect.height) / 2));
  if (x < marginX) zoom.x += marginX - x;
  else if (x + rect.width > width - marginX) zoom.x -= x + rect.width - (width - marginX);
  if (y < marginY) zoom.y += marginY - y;
  else if (y + rect.height > height - marginY) zoom.y -= y + rect.height - (height - marginY);
  clampPan();
  showZoom();
}

function clampPan() {
  const box = frame();
  if (!box) return;
  const width = box.clientWidth, height = box.clientHeight;
  zoom.x = Math.min(0, Math.max(width - width * zoom.scale, zoom.x));
  zoom.y = Math.min(0, Math.max(height - height * zoom.scale, zoom.y));
}

export function pinchStart(event) {
  const box = frame();
  if (!box || event.touches.length !== 2) return false;
  const [a, b] = event.touches;
  if (!box.contains(a.target) && !box.contains(b.target)) return false;
  const rect = box.getBoundingClientRect();
  readableAsked = true;  // the player sets the view with two fingers: it stays theirs
  pinch = {
    distance: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY) || 1,
    // The board's own point under the fingers, which stays under them.
    px: ((a.clientX + b.clientX) / 2 - rect.left - zoom.x) / zoom.scale,
    py: ((a.clientY + b.clientY) / 2 - rect.top - zoom.y) / zoom.scale,
    scale: zoom.scale,
  };
  return true;
}

export function pinchMove(event) {
  const box = frame();
  if (!pinch || !box || event.touches.length !== 2) return;
  event.preventDefault();
  const [a, b] = event.touches;
  const rect = box.getBoundingClientRect();
  const distance = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY) || 1;
  zoom.scale = Math.min(5, Math.max(1, pinch.scale * distance / pinch.distance));
  zoom.x = (a.clientX + b.clientX) / 2 - rect.left - pinch.px * zoom.scale;
  zoom.y = (a.clientY + b.clientY) / 2 - rect.top - pinch.py * zoom.scale;
  clampPan();
  showZoom();
}

// -- The room a board may take, measured: the page's width, the screen under the header ----
// On a wide screen (the style sheet's 960 px) the solver panel stands beside the board: the
// board takes what the panel leaves at its narrowest, and the panel the rest, up to its widest.
const WIDE = "(min-width: 960px)";
const SIDE_MIN = 290, SIDE_MAX = 540, MAIN_MIN = 560, GAP = 16;

export function fit() {
  const level = page();
  if (!level) return;
  const header = document.querySelector("body > header");
  const style = document.documentElement.style;
  const layout = document.querySelector(".level-layout");
  const side = document.querySelector(".level-side");
  const wide = Boolean(layout && side && window.matchMedia(WIDE).matches);
  if (wide) {
    const whole = layout.clientWidth;
    style.setProperty("--room-w", Math.floor(whole - SIDE_MIN - GAP) + "px");
    const board = document.querySelector("#play .board, #replay .board");
    const boardWidth = board ? Math.ceil(board.getBoundingClientRect().width / zoom.scale) : 0;
    const main = Math.min(whole - SIDE_MIN - GAP, Math.max(MAIN_MIN, boardWidth));
    const rest = Math.max(SIDE_MIN, Math.min(SIDE_MAX, whole - main - GAP));
    style.setProperty("--main-col", main + "px");
    style.setProperty("--side-col", rest + "px");
    // The panel's own board fits the panel's inside; the panel fits the screen's height.
    const panel = side.querySelector(".solver");
    const padding = panel ? panel.offsetWidth - panel.clientWidth + 32 : 34;
    style.setProperty("--side-room-w", Math.floor(rest - padding) + "px");
    const top = side.getBoundingClientRect().top + window.scrollY;
    style.setProperty("--side-h", Math.max(320, window.innerHeight - Math.max(8, top - window.scrollY) - 8) + "px");
    style.setProperty("--side-room-h", Math.max(140, Math.floor(window.innerHeight * 0.37)) + "px");
  } else {
    ["--main-col", "--side-col", "--side-h", "--side-room-w", "--side-room-h"].forEach((name) => style.removeProperty(name));
    style.setProperty("--room-w", Math.floor(level.clientWidth) + "px");
  }
  // The height from the board's top (the title and counters stand above it) to the foot of
  // the screen, so the whole board is in view as the page opens.
  const board = document.querySelector("#play .board");
  const headerHeight = header ? header.offsetHeight : 0;
  const top = board ? board.getBoundingClientRect().top + window.scrollY : headerHeight;
  const under = window.innerHeight - Math.max(headerHeight, top) - 16;
  style.setProperty("--room-h", Math.max(160, under) + "px");
}


// The fingers let go of the board.
export function pinchEnd(event) {
  if (!pinch) return false;
  if (!event || event.touches.length === 0) pinch = null;
  return true;
}

// Pinching: the fingers move the board, not the page.
export function pinching() {
  return pinch !== null;
}

export function start() {
  // A phone's toolbars coming and going resize the window too: only a new width lets go of
  // the zoom (a turned phone, a resized window).
  let lastWidth = window.innerWidth;
  window.addEventListener("resize", () => {
    if (window.innerWidth !== lastWidth) unzoom();
    lastWidth = window.innerWidth;
    fit();
  });
  window.addEventListener("orientationchange", fit);
}
