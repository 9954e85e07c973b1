// The board's keyboard cursor, one for every game. The board itself takes the keyboard focus
// (for a game whose arrows move the player or a tile, that is all it needs), keeps it across
// the redraws of #play and when a game shows other boards in its place (the steps of a move);
// a game that picks pieces from the keyboard (and the editor) moves a GridCursor over the
// squares with the arrows and marks the square it is on.

// The board of #play made focusable (a board drawn by the server has no tabindex).
export function prepareBoard() {
  const board = document.querySelector("#play .board");
  if (board && !board.hasAttribute("tabindex")) board.tabIndex = 0;
  return board;
}

// Whether the keyboard was in the game as #play is replaced, so the new board takes it.
let focusInPlay = false;

export function noteFocus(play) {
  const active = document.activeElement;
  focusInPlay = Boolean(play && active && active !== document.body && play.contains(active));
}

// After #play was replaced: the board takes the focus the old one had.
export function restoreFocus() {
  const board = prepareBoard();
  if (focusInPlay && board && (!document.activeElement || document.activeElement === document.body)) {
    board.focus({ preventScroll: true });
  }
  focusInPlay = false;
}

// One board drawn in place of another (a step of a move shown): the keyboard stays on it.
export function handOver(shown, next) {
  const focused = document.activeElement === shown;
  if (shown.parentElement) shown.parentElement.replaceChild(next, shown);
  next.tabIndex = 0;
  if (focused) next.focus({ preventScroll: true });
  return next;
}

const STEP = { l: [0, -1], r: [0, 1], u: [-1, 0], d: [1, 0] };

// A square of a grid board the arrows move over, once the keyboard is used: null until then.
export class GridCursor {
  constructor(boardSelector) {
    this.selector = boardSelector;
    this.at = null;  // [row, column]
  }

  board() {
    return document.querySelector(this.selector);
  }

  // "row,column", as the board's [data-cell] names a square; null before the first key.
  get key() {
    return this.at ? this.at.join(",") : null;
  }

  // To a square: [row, column], "row,column", or null to hide the cursor.
  place(square) {
    if (square === null || square === undefined) this.at = null;
    else this.at = (typeof square === "string" ? square.split(",") : square).slice(0, 2).map(Number);
  }

  // The first arrow shows the cursor where start(board) says (the first piece); the next step
  // it a square, stopping at the board's edge (its --rows and --cols).
  move(direction, start) {
    const board = this.board();
    if (!board) return;
    if (!this.at) {
      this.place(start(board) || [0, 0]);
      return;
    }
    const rows = parseInt(board.style.getPropertyValue("--rows"), 10);
    const cols = parseInt(board.style.getPropertyValue("--cols"), 10);
    const [dr, dc] = STEP[direction] || [0, 0];
    this.at = [Math.min(rows - 1, Math.max(0, this.at[0] + dr)), Math.min(cols - 1, Math.max(0, this.at[1] + dc))];
  }

  // Marks where the cursor is: mark(board, [row, column]) returns the element to mark and the
  // class it takes ("cursor" unless said); the old mark goes first.
  show(mark) {
    const board = this.board();
    if (!board) return;
    board.querySelectorAll(".cursor").forEach((el) => el.classList.remove("cursor"));
    board.querySelectorAll(".at-cursor").forEach((el) => el.classList.remove("at-cursor"));
    if (!this.at) return;
    const found = mark ? mark(board, this.at) : board.querySelector('[data-cell="' + this.key + '"]');
    const [element, name] = Array.isArray(found) ? found : [found, "cursor"];
    if (element) element.classList.add(name || "cursor");
  }
}
