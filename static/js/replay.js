// A replay link's view plays its moves: each step's page is fetched and its view swapped in
// place (the address follows), at the chosen speed, until the end or Pause.
import { flash } from "./lab.js";
import { animation } from "./pipeline.js";

let replaying = null;  // the timer while the moves play

function replaySpeed() {
  const select = document.getElementById("replay-speed");
  return Math.max(1, Number(select ? select.value : 4) || 4);
}

function showReplaying() {
  const button = document.getElementById("replay-play");
  if (button) button.textContent = replaying !== null ? "Pause" : "Play";
}

function stopReplay() {
  clearTimeout(replaying);
  replaying = null;
  showReplaying();
}

function loadReplay(url, speed) {
  return fetch(url, { credentials: "same-origin" }).then((response) => {
    if (!response.ok) throw new Error("step");
    return response.text();
  }).then((html) => {
    const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("replay");
    const old = document.getElementById("replay");
    if (!fresh || !old) throw new Error("step");
    const before = animation((motion) => motion.measure(old));
    const adopted = document.importNode(fresh, true);
    old.replaceWith(adopted);
    htmx.process(adopted);
    const select = document.getElementById("replay-speed");
    if (select) select.value = String(speed);
    history.replaceState(null, "", url);
    animation((motion) => motion.animate(before, adopted));
    showReplaying();
  });
}

function replayStep() {
  const view = document.getElementById("replay");
  const forward = view && view.querySelector('[data-step="forward"]');
  if (replaying === null || !forward || Number(view.dataset.position) >= Number(view.dataset.total)) {
    stopReplay();
    return;
  }
  const speed = replaySpeed();
  loadReplay(forward.href, speed).then(() => {
    if (replaying !== null) replaying = setTimeout(replayStep, 1000 / speed);
  }).catch(() => { stopReplay(); flash("The next step could not be loaded."); });
}

function onPlay(event) {
  const button = event.target.closest && event.target.closest("#replay-play");
  if (!button) return;
  if (replaying !== null) { stopReplay(); return; }
  const view = document.getElementById("replay");
  replaying = 0;
  showReplaying();
  if (Number(view.dataset.position) >= Number(view.dataset.total)) {
    // At the end: from the start.
    const first = view.querySelector('[data-step="start"]');
    loadReplay(first.href, replaySpeed()).then(() => { replaying = setTimeout(replayStep, 1000 / replaySpeed()); })
      .catch(stopReplay);
  } else {
    replayStep();
  }
}

export function start() {
  document.addEventListener("click", onPlay);
}
