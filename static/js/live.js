// The solver panel's live socket (htmx's ws extension): what each message means beyond the
// panel it redraws. A playback step marks its move in the solution's list; a finished solve's
// closed socket opens again for the next playback command; and each progress or end message
// is told to the page as a "solver:progress" event (detail: the message, parsed), for any
// view that draws more from the search (such as a map of where it looked).

// A message as an object: a JSON message as it is; a redrawn panel as {type: "progress" or
// "end", state, status} plus what its [data-progress] element holds (JSON); null for a
// playback step or a note.
function parseMessage(text) {
  const trimmed = String(text || "").trim();
  if (trimmed.startsWith("{")) {
    try {
      const message = JSON.parse(trimmed);
      return message && typeof message === "object" ? message : null;
    } catch (error) {
      return null;
    }
  }
  const holder = document.createElement("template");
  holder.innerHTML = trimmed;
  const status = holder.content.querySelector("#solve-status");
  if (!status) return null;
  const state = status.dataset.state || "";
  const message = { type: state === "done" ? "end" : "progress", state: state, status: status.dataset.status || "" };
  holder.content.querySelectorAll("[data-progress]").forEach((element) => {
    try {
      const more = JSON.parse(element.dataset.progress);
      if (more && typeof more === "object") Object.assign(message, more);
    } catch (error) {
      // Unreadable: the rest of the message still goes.
    }
  });
  return message;
}

function tellProgress(event) {
  const message = parseMessage(event.detail && event.detail.message);
  if (!message || !["progress", "end"].includes(message.type)) return;
  document.dispatchEvent(new CustomEvent("solver:progress", { detail: message }));
}

// A playback step sends only its position: mark that move in the solution's move list.
function markStep() {
  const position = document.getElementById("playback-pos");
  const list = document.getElementById("playback-moves");
  if (!position || !list) return;
  const current = list.querySelector('[aria-current]');
  const next = list.querySelector('[data-position="' + position.dataset.position + '"]');
  if (current === next) return;
  if (current) current.removeAttribute("aria-current");
  if (!next) return;
  next.setAttribute("aria-current", "step");
  // Keep it in sight within the list, never scrolling the page under the player.
  if (next.offsetTop < list.scrollTop || next.offsetTop + next.offsetHeight > list.scrollTop + list.clientHeight) {
    list.scrollTop = next.offsetTop - list.clientHeight / 2;
  }
}

export function start() {
  document.addEventListener("htmx:wsAfterMessage", (event) => {
    markStep();
    tellProgress(event);
  });
  // The server closes the socket of a finished solve nobody plays back (a normal closure,
  // which htmx does not retry); the next playback command is queued and opens it again.
  document.addEventListener("htmx:wsClose", (event) => {
    const live = event.target;
    if (event.detail.event.code === 1000 && live.dataset) live.dataset.idle = "1";
  });
  document.addEventListener("htmx:wsConfigSend", (event) => {
    const live = event.target.closest && event.target.closest("[ws-connect]");
    if (!live || live.dataset.idle !== "1") return;
    delete live.dataset.idle;
    const socket = event.detail.socketWrapper;
    setTimeout(() => socket.reconnect(), 0);  // after htmx has queued the command
  });
}
