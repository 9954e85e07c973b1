// Puzzle Lab: what moves on the screen, and the sounds. The server draws every board; this
// script only animates from the board that was shown to the one that replaced it (FLIP: note
// where the pieces were, draw the new board, start each moved piece where it was and let it
// glide home). A game says which of its elements are pieces through movers() in its
// registration (lab.js); a game that shows steps of its own (falls) uses glide() and hold().
//
// One step takes at most 150 ms (settings.js: normal or fast); none at all when the player
// turned animation off or the system asks for reduced motion. When the next answer comes
// while a step still plays, that step ends at once and the new board is shown as it is.
import { current as game } from "./lab.js";
import { handOver } from "./cursor.js";

// settings.js, a classic script that ran before the page was drawn.
const settings = window.PuzzleSettings || { get: () => false, stepMs: () => 0 };

let running = [];      // the animations of the step on screen
let busyUntil = 0;     // when that step ends

function stepMs() {
  return settings.stepMs();
}

function finish() {
  running.forEach((animation) => { try { animation.finish(); } catch (error) { /* gone */ } });
  running = [];
  busyUntil = 0;
}

// Moves an element (or its ::before / ::after) from (dx, dy) pixels away back to its place.
function glide(element, dx, dy, ms, pseudo) {
  if (!ms || !element.animate || (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5)) return null;
  const options = { duration: ms, easing: "cubic-bezier(.2,.7,.3,1)" };
  if (pseudo) options.pseudoElement = pseudo;
  const animation = element.animate(
    [{ transform: "translate(" + dx + "px, " + dy + "px)" }, { transform: "none" }], options);
  element.classList.add("moving");
  animation.addEventListener("finish", () => element.classList.remove("moving"));
  animation.addEventListener("cancel", () => element.classList.remove("moving"));
  running.push(animation);
  busyUntil = Math.max(busyUntil, performance.now() + ms);
  return animation;
}

function board() {
  return document.querySelector("#play .board");
}

// Where each piece of the board on screen stands, before it is replaced.
function measure(old) {
  if (walking) walking.end();  // the next board starts from the last of this answer's
  const play = old || document.getElementById("play");
  const shown = play ? play.querySelector(".board") : null;
  const handlers = game();
  const pieces = shown && handlers && handlers.movers ? handlers.movers(shown, null) : [];
  const playing = performance.now() < busyUntil;
  finish();  // the step on screen ends: the next board starts from where it was going
  return {
    pieces: pieces.map((p) => ({ key: p.key, x: p.element.offsetLeft, y: p.element.offsetTop })),
    solved: Boolean(play && play.classList.contains("is-solved")),
    moves: play ? Number(play.dataset.moves || 0) : 0,
    playing: playing,
  };
}

// The pieces of a board as measure() notes them: a key each, and where it stands.
function places(shown, before) {
  const handlers = game();
  if (!shown || !handlers || !handlers.movers) return [];
  return handlers.movers(shown, before).map((p) => ({ key: p.key, x: p.element.offsetLeft, y: p.element.offsetTop }));
}

// Glides the pieces of a board just drawn from where they stood on the last (``pieces``);
// what each did: {moved: a piece changed place, pushed: a moved piece was pushed}.
function glideFrom(pieces, shown, ms) {
  const handlers = game();
  const did = { moved: false, pushed: false };
  if (!shown || !handlers || !handlers.movers) return did;
  const was = new Map(pieces.map((p) => [p.key, p]));
  handlers.movers(shown, pieces).forEach((p) => {
    const from = was.get(p.key);
    if (!from) return;
    const dx = from.x - p.element.offsetLeft;
    const dy = from.y - p.element.offsetTop;
    if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) return;
    did.moved = true;
    // Only in a straight line: a way round corners (a walk, a piece taken along a path)
    // would cut through walls and pieces, so it jumps.
    if (!ms || (Math.abs(dx) >= 0.5 && Math.abs(dy) >= 0.5)) return;
    if (glide(p.element, dx, dy, ms, p.pseudo) && p.pushed) did.pushed = true;
  });
  return did;
}

// -- Several moves in one answer (a walk, a path, keys faster than the answers): the
// positions between them (the play partial's .steps) are shown one a step before the board
// that was drawn, each piece gliding square by square. The next key or answer ends it.
let walking = null;  // {end} while those positions show
let pressing = false;  // a pointer is down on the board (its click is still to come)
document.addEventListener("pointerdown", (event) => {
  pressing = Boolean(event.target.closest && event.target.closest("#play .board"));
}, true);
const lift = () => { setTimeout(() => { pressing = false; }, 0); };
document.addEventListener("pointerup", lift, true);
document.addEventListener("pointercancel", lift, true);

function boardOf(template) {
  const holder = document.createElement("template");
  holder.innerHTML = template.innerHTML.trim();
  return holder.content.firstElementChild;
}

function walk(before, play) {
  const steps = play.querySelector(".steps");
  if (!steps) return false;
  const boards = Array.from(steps.querySelectorAll("template")).map(boardOf).filter(Boolean);
  steps.remove();
  const still = play.querySelector(".board");
  const ms = stepMs();
  if (!still || boards.length === 0 || !ms || before.playing) return false;
  // A dragged piece is already where its moves took it: nothing to show in between.
  if (!glideFrom(before.pieces, still, 0).moved) return false;
  const shown = boards.concat([still]);
  // A long walk goes faster, so it never takes much more than two seconds.
  const each = Math.max(30, Math.min(ms, Math.floor(2000 / shown.length)));
  let current = still;
  let from = before.pieces;
  let index = 0;
  let timer = null;

  function show(next) {
    current = handOver(current, next);
    const pieces = from;
    from = places(next, pieces);
    return glideFrom(pieces, next, each);
  }

  function ended() {
    walking = null;
    const handlers = game();
    // What a game marks on its board (a selection) is marked on the board it rests on.
    if (handlers && handlers.afterSwap) handlers.afterSwap();
  }

  function step() {
    // A finger or button down on the board: its click lands on the board it went down on.
    if (pressing) { timer = setTimeout(step, 30); return; }
    const did = show(shown[index]);
    if (did.moved) sound(did.pushed ? "push" : "move");
    index += 1;
    if (index < shown.length) timer = setTimeout(step, each);
    else timer = setTimeout(ended, each);
  }

  walking = {
    end: () => {
      clearTimeout(timer);
      finish();
      if (current !== still) current = handOver(current, still);
      ended();
    },
  };
  step();
  return true;
}

// After the new board is drawn: glide its pieces from where the old ones stood.
function animate(before, fresh) {
  const play = fresh || document.getElementById("play");
  if (!before || !play) return;
  const moves = Number(play.dataset.moves || 0);
  const solved = play.classList.contains("is-solved");
  if (walk(before, play)) {
    if (solved && !before.solved) whenStill(celebrate);
    return;
  }
  const ms = stepMs();
  // Keys faster than the motion: the step on screen ends, the new board shows at once.
  const skip = before.playing || !ms;
  const did = skip ? { pushed: false } : glideFrom(before.pieces, play.querySelector(".board"), ms);
  if (moves !== before.moves) sound(moves > before.moves ? (did.pushed ? "push" : "move") : "undo");
  if (solved && !before.solved) whenStill(celebrate);
}

// Waits for a game's own steps (held input) and a walk to end.
function whenStill(then) {
  const handlers = game();
  if (walking || (handlers && handlers.hold && handlers.hold())) { setTimeout(() => whenStill(then), 40); return; }
  then();
}

// -- A win: the board glows, the banner pops, a little confetti --------------------------------
const COLOURS = ["#d1495b", "#edae49", "#00798c", "#66a182", "#8d6a9f", "#2b4c7e"];

function celebrate() {
  sound("win");
  if (!stepMs()) return;
  const shown = board();
  const banner = document.getElementById("solved");
  if (banner) banner.classList.add("fresh");
  if (!shown) return;
  shown.classList.remove("celebrate");
  void shown.offsetWidth;  // restart the animation
  shown.classList.add("celebrate");
  setTimeout(() => shown.classList.remove("celebrate"), 700);
  const box = shown.getBoundingClientRect();
  for (let i = 0; i < 28; i += 1) {
    const bit = document.createElement("span");
    bit.className = "confetti";
    bit.setAttribute("aria-hidden", "true");
    bit.style.background = COLOURS[i % COLOURS.length];
    document.body.appendChild(bit);
    const x = box.left + box.width * (0.2 + 0.6 * Math.random());
    const y = box.top + box.height * 0.35;
    const dx = (Math.random() - 0.5) * box.width * 0.9;
    const dy = -80 - Math.random() * 140;
    const spin = (Math.random() - 0.5) * 720;
    const flight = bit.animate([
      { transform: "translate(" + x + "px," + y + "px) rotate(0deg)", opacity: 1 },
      { transform: "translate(" + (x + dx * 0.7) + "px," + (y + dy) + "px) rotate(" + spin / 2 + "deg)", opacity: 1, offset: 0.45 },
      { transform: "translate(" + (x + dx) + "px," + (y + dy + 260) + "px) rotate(" + spin + "deg)", opacity: 0 },
    ], { duration: 900 + Math.random() * 300, easing: "ease-out" });
    flight.addEventListener("finish", () => bit.remove());
  }
}

// -- Sounds: short blips made on the spot (WebAudio), only when the player turned them on ------
let audio = null;
const TONES = {
  move: [[520, 0.035]],
  push: [[330, 0.05]],
  undo: [[420, 0.03]],
  pop: [[880, 0.04], [1175, 0.05]],
  win: [[523, 0.09], [659, 0.09], [784, 0.09], [1047, 0.18]],
};

function sound(name) {
  if (!settings.get("sound") || !TONES[name]) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    audio = audio || new Context();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    let at = audio.currentTime + 0.01;
    TONES[name].forEach(([frequency, length]) => {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      tone.type = "triangle";
      tone.frequency.value = frequency;
      volume.gain.setValueAtTime(0.0001, at);
      volume.gain.exponentialRampToValueAtTime(0.12, at + 0.008);
      volume.gain.exponentialRampToValueAtTime(0.0001, at + length);
      tone.connect(volume).connect(audio.destination);
      tone.start(at);
      tone.stop(at + length + 0.02);
      at += length * 0.9;
    });
  } catch (error) {
    // No sound is no loss.
  }
}

// -- The solver's playback: one step forward or back glides too (a seek or the live search
// jumps) ------------------------------------------------------------------------------------
let stepFrom = null;

function playbackAt() {
  const position = document.getElementById("playback-pos");
  return position ? Number(position.dataset.position) : null;
}

document.addEventListener("htmx:wsBeforeMessage", () => {
  const shown = document.querySelector("#solve-board .board");
  const handlers = game();
  stepFrom = null;
  if (!shown || !handlers || !handlers.movers || playbackAt() === null) return;
  stepFrom = {
    at: playbackAt(),
    pieces: handlers.movers(shown, null).map((p) => ({ key: p.key, x: p.element.offsetLeft, y: p.element.offsetTop })),
  };
});
document.addEventListener("htmx:wsAfterMessage", () => {
  const from = stepFrom;
  stepFrom = null;
  const shown = document.querySelector("#solve-board .board");
  const handlers = game();
  const ms = stepMs();
  if (!from || !shown || Math.abs(playbackAt() - from.at) !== 1) return;
  const was = new Map(from.pieces.map((p) => [p.key, p]));
  handlers.movers(shown, from.pieces).forEach((p) => {
    const old = was.get(p.key);
    if (!old) return;
    const dx = old.x - p.element.offsetLeft, dy = old.y - p.element.offsetTop;
    if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) return;
    p.element.classList.add("last-moved");  // the step's move, marked until the next
    if (ms && (Math.abs(dx) < 0.5 || Math.abs(dy) < 0.5)) glide(p.element, dx, dy, ms, p.pseudo);
  });
});

// Swaps of the play partial that htmx makes itself (a solution used, a figure refreshed):
// swap.js tells these two (pipeline.js animates its own swaps of #play).
let pending = null;
function beforeSwap(event) {
  const target = event.detail.target;
  if (target && target.id === "play") pending = measure(target);
}
function afterSwap(event) {
  if (!pending || !event.detail.requestConfig) return;
  const before = pending;
  pending = null;
  animate(before, document.getElementById("play"));
}

export const motion = {
  walking: () => walking !== null,
  skip: () => { if (walking) walking.end(); },
  measure: measure,
  animate: animate,
  glide: glide,
  finish: finish,
  stepMs: stepMs,
  sound: sound,
  celebrate: celebrate,
  beforeSwap: beforeSwap,
  afterSwap: afterSwap,
};
