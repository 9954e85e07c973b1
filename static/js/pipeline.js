// Every action is a request whose answer swaps the #play partial. Actions are sent at once,
// without waiting for the last answer (a few at a time; what queues behind them goes as one
// request), and numbered: the server plays them in that order, and an answer older than the
// one shown is dropped, so the board never shows moves out of order. The server stays the one
// authority on the game.
import { csrf } from "./csrf.js";
import { noteFocus } from "./cursor.js";
import { current, flash, page } from "./lab.js";
import { motion } from "./motion.js";

const queue = [];
// Requests on their way at once; what queues behind them is sent together when one lands.
const IN_FLIGHT = 4;
let inFlight = 0;
let sent = 0;   // the number of the last request sent
let shown = 0;  // the number of the last answer shown
let holding = false;
// This page's name for itself: the server orders the requests of each page.
const pageId = (Math.random().toString(36).slice(2, 10) + Date.now().toString(36)).slice(0, 20);

// Motion is decoration: whatever goes wrong in it, the board is shown and the game goes on.
export function animation(step) {
  try {
    return step(motion);
  } catch (error) {
    return null;
  }
}

// Whether input waits: a game animates a move (hold), or the positions between the moves
// of one answer show (motion.js).
export function busy() {
  const game = current();
  return Boolean(motion.walking() || (game && game.hold && game.hold()));
}

// Ends what busy() waits for, at once.
export function skip() {
  const game = current();
  if (motion.walking()) animation((m) => m.skip());
  if (game && game.hold && game.hold() && game.skip) game.skip();
}

// Moves alone (a key, a drag), with the same fields, can share one request.
function joinable(a, b) {
  const plain = (v) => v.action === "move" && Object.keys(v).every((k) => ["action", "moves", "quiet"].includes(k));
  return plain(a) && plain(b) && (a.quiet || "") === (b.quiet || "");
}

function pump() {
  const level = page();
  if (!level) { queue.length = 0; return; }
  // A key faster than the animation: the animation jumps to its end.
  if (busy() && queue.length > 0) skip();
  if (busy()) {
    if (!holding) { holding = true; setTimeout(() => { holding = false; pump(); }, 50); }
    return;
  }
  while (queue.length > 0 && inFlight < IN_FLIGHT) {
    const values = Object.assign({}, queue.shift());
    if (values.action === "move" && joinable(values, values)) {
      values.moves = [values.moves];
      while (queue.length > 0 && values.moves.length < 200 && joinable(values, queue[0])) {
        values.moves.push(queue.shift().moves);
      }
    }
    post(level, values);
  }
}

function post(level, values) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    for (const one of [].concat(value)) body.append(name, one);
  }
  if (level.dataset.picture) body.set("picture", level.dataset.picture);
  const number = ++sent;
  body.set("page", pageId);
  body.set("seq", String(number));
  inFlight += 1;
  fetch(level.dataset.playUrl, {
    method: "POST", body: body, credentials: "same-origin",
    headers: { "X-CSRF-Token": csrf(), "HX-Request": "true" },
  }).then((response) => response.text().then((text) => {
    if (response.status === 409) { window.location.reload(); return; }  // changed elsewhere
    if (!response.ok) { flash(text || "Something went wrong."); return; }
    if (response.headers.get("X-Play-Dropped")) { flash(text); return; }  // came too late
    if (response.status === 204 || number <= shown) return;  // nothing new, or overtaken
    shown = number;
    showPlay(text);
  })).catch(() => {
    flash("The server cannot be reached. Your game is safe; try again.");
  }).finally(() => { inFlight -= 1; pump(); });
}

// While the game animates a move (hold), the newest answer waits its turn to be shown.
let waiting = null;
function showPlay(html) {
  // The next answer while the last still animates: the animation jumps to its end.
  if (busy()) skip();
  if (busy()) {
    if (waiting === null) setTimeout(() => { const next = waiting; waiting = null; showPlay(next); }, 50);
    waiting = html;
    return;
  }
  const old = document.getElementById("play");
  if (!old) return;
  noteFocus(old);  // the board keeps the keyboard across the redraw
  const before = animation((m) => m.measure(old));
  htmx.swap(old, html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0 });
  const fresh = document.getElementById("play");
  // The same event as htmx's own swaps, so swap.js tells everyone who listens.
  if (fresh) htmx.trigger(fresh, "htmx:afterSwap", { target: fresh, elt: fresh });
  if (fresh) animation((m) => m.animate(before, fresh));
  // A hint is for the position it was asked in: gone once the board changed.
  const hint = document.getElementById("hint");
  if (hint && fresh && old.dataset.cursor !== fresh.dataset.cursor) hint.textContent = "";
}

// Sends one action (its request values) in its turn.
export function send(values) {
  queue.push(values);
  pump();
}
