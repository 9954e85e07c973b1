// Keys and clicks on a level page: the arrows (and WASD, hjkl) are a game's key(), Space and
// Enter its select(), a click on a square its click(); undo, redo and restart; the arrow
// pad's buttons; the keys that step a replay or the solver's playback.
import { busy, send, skip } from "./pipeline.js";
import { current, page } from "./lab.js";

// Key -> direction letter (l u r d), for every game that moves in four directions.
const DIRECTIONS = {
  ArrowLeft: "l", ArrowUp: "u", ArrowRight: "r", ArrowDown: "d",
  a: "l", w: "u", d: "r", s: "d", A: "l", W: "u", D: "r", S: "d",
  h: "l", k: "u", l: "r", j: "d",
};

// Keys that step through a replay link's view (links, so each position has an address)
// or the solver's playback (commands over its socket).
const STEPS = { ArrowLeft: "back", ArrowRight: "forward", Home: "start", End: "end" };
// , and . step the playback from anywhere; the arrows do while the player's last click (or
// the keyboard's focus) was in the solver panel, and move the game otherwise. The root
// element carries which (data-keys-to), so the panel can say it and show it.
const PLAYBACK = { ",": "back", ".": "forward" };

function keysTo(target) {
  const inPanel = Boolean(target && target.closest && target.closest("#solver"));
  document.documentElement.dataset.keysTo = inPanel ? "playback" : "game";
}

function onStepKey(event, level) {
  if (level.dataset.view === "replay") {
    const step = STEPS[event.key];
    event.preventDefault();  // a replay view takes no moves
    const link = step && document.querySelector('#replay [data-step="' + step + '"]');
    if (link) link.click();
    return true;
  }
  const toPlayback = document.documentElement.dataset.keysTo === "playback";
  const command = PLAYBACK[event.key] || (toPlayback ? STEPS[event.key] : null);
  const button = command && document.querySelector('#playback [data-command="' + command + '"]');
  if (button) {
    event.preventDefault();
    button.click();
    return true;
  }
  return false;
}

function onKey(event) {
  const level = page();
  if (!level || event.altKey || event.metaKey) return;
  const target = event.target;
  if (target && (["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
  if (!event.ctrlKey && onStepKey(event, level)) return;
  const key = event.key;
  let values = null;
  if ((key === " " || key === "Enter") && !event.ctrlKey) {
    // A button or a link does its own thing with Space and Enter; elsewhere they select.
    if (target && target.closest && target.closest("button, a, summary, [role=button]")) return;
    const game = current();
    const onBoard = Boolean(target && target.closest && target.closest("#play .board"));
    if (onBoard) event.preventDefault();  // Space on the board never scrolls the page
    if (!game || !game.select) return;
    event.preventDefault();
    values = game.select();
    if (values) send(values);
    return;
  }
  if ((event.ctrlKey && (key === "z" || key === "Z")) || (!event.ctrlKey && (key === "u" || key === "z"))) {
    values = { action: "undo" };
  } else if ((event.ctrlKey && (key === "y" || key === "Y")) || (!event.ctrlKey && key === "U")) {
    values = { action: "redo" };
  } else if (!event.ctrlKey && key === "r") {
    values = { action: "restart" };
  } else if (!event.ctrlKey && DIRECTIONS[key]) {
    const game = current();
    if (game && game.key) values = game.key(DIRECTIONS[key]);
    if (!values) { event.preventDefault(); return; }
  }
  if (values) {
    event.preventDefault();
    send(values);
  }
}

function onClick(event) {
  const level = page();
  if (!level) return;
  const button = event.target.closest("#play [data-action]");
  if (button) {
    event.preventDefault();
    if (!button.disabled) send({ action: button.dataset.action });
    return;
  }
  const arrow = event.target.closest("#play [data-direction]");
  if (arrow) {
    event.preventDefault();
    const game = current();
    const values = game && game.key ? game.key(arrow.dataset.direction) : null;
    if (values) send(values);
    return;
  }
  let cell = event.target.closest("#play .board [data-cell]");
  const game = current();
  if (cell && busy()) {
    // A click on a position shown between the moves of an answer: the same square of
    // the board the game rests on.
    skip();
    const kind = cell.classList.item(0);
    cell = document.querySelector('#play .board [data-cell="' + cell.dataset.cell + '"]' + (kind ? "." + kind : ""));
  }
  if (cell && game && game.click) {
    const values = game.click(cell);
    if (values) send(values);
  }
}

export function start() {
  document.addEventListener("keydown", onKey);
  document.addEventListener("click", onClick);
  document.addEventListener("focusin", (event) => keysTo(event.target));
  document.addEventListener("pointerdown", (event) => {
    keysTo(event.target);
    const game = current();
    if (game && game.pointerdown) game.pointerdown(event);
  });
}
