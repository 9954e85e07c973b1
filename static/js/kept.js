// The player's settings kept on the server too (/settings/page), so every browser of theirs
// follows: settings.js tells each change the player makes (a "puzzlelab:settings" event with
// the setting's name), and it goes here with the player's CSRF token. A visitor's first change
// makes the player.
import { csrf } from "./csrf.js";

function keep(event) {
  const change = event.detail || {};
  const token = csrf();
  if (!change.name || !token || !window.fetch) return;
  fetch("/settings/page", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
    body: JSON.stringify({ [change.name]: change.value }),
    credentials: "same-origin",
  }).catch(() => {});  // offline: this browser keeps it
}

export function start() {
  document.addEventListener("puzzlelab:settings", keep);
}
