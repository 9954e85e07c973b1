// What a screen reader hears after a move: the play partial's [data-announce] text, read out
// through one live region that outlives the redraws of #play.
import { page } from "./lab.js";

export function announce() {
  const said = document.querySelector("#play [data-announce]");
  const level = page();
  if (!said || !level) return;
  let live = document.getElementById("announcer");
  if (!live) {
    live = document.createElement("div");
    live.id = "announcer";
    live.className = "visually-hidden";
    live.setAttribute("aria-live", "polite");
    live.setAttribute("role", "status");
    level.appendChild(live);
  }
  live.textContent = said.textContent.trim();
}
