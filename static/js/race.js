// The race page (templates/race.html): each racer's lane is fetched again while its solve
// runs; after a win, the player's moves and the solver's are stepped through side by side.

const POLL_MS = 400;

const lanes = [...document.querySelectorAll(".lane[data-url]")];

const refresh = async (lane) => {
  try {
    const response = await fetch(lane.dataset.url, { credentials: "same-origin" });
    if (response.ok) {
      lane.innerHTML = await response.text();
      lane.dataset.state = lane.querySelector(".lane-body")?.dataset.state ?? "";
    }
  } catch {
    // A dropped request: the next look tries again.
  }
  if (lane.dataset.state !== "done") setTimeout(() => refresh(lane), POLL_MS);
  else finished();
};

const versus = document.getElementById("versus");
let versusStarted = false;

function finished() {
  if (lanes.some((lane) => lane.dataset.state !== "done")) return;
  const stopForm = document.getElementById("race-stop-form");
  if (stopForm) stopForm.hidden = true; // nothing left to stop
  if (!versus || versusStarted) return;
  versusStarted = true;
  const solved = lanes[0].querySelector(".lane-body")?.dataset.status === "solved";
  const state = document.getElementById("versus-state");
  if (!solved) {
    state.textContent = "The solver found no solution to race against.";
    return;
  }
  state.textContent = "Step through both solutions, one move at a time.";
  const view = document.getElementById("versus-view");
  const play = document.getElementById("versus-play");
  let at = 0;
  let last = 0;
  let timer = null;
  let queue = Promise.resolve();
  const show = (number) => {
    queue = queue.then(async () => {
      if (number < 0 || (last && number > last)) return;
      const response = await fetch(versus.dataset.url + number, { credentials: "same-origin" });
      if (!response.ok) return;
      view.innerHTML = await response.text();
      at = number;
      last = Number(view.querySelector(".versus-view").dataset.last);
      versus.dataset.at = String(at);
      if (at >= last) stop();
    });
    return queue;
  };
  const stop = () => {
    clearInterval(timer);
    timer = null;
    play.textContent = "Play";
    play.setAttribute("aria-pressed", "false");
  };
  play.addEventListener("click", () => {
    if (timer) return stop();
    timer = setInterval(() => show(at + 1), 400);
    play.textContent = "Pause";
    play.setAttribute("aria-pressed", "true");
  });
  document.getElementById("versus-first").addEventListener("click", () => show(0));
  document.getElementById("versus-back").addEventListener("click", () => show(at - 1));
  document.getElementById("versus-next").addEventListener("click", () => show(at + 1));
  document.getElementById("versus-last").addEventListener("click", () => show(last));
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowRight") show(at + 1);
    else if (event.key === "ArrowLeft") show(at - 1);
  });
  document.getElementById("versus-controls").hidden = false;
  show(0);
}

// Each look keeps the racer's solve going (the server counts it as watched): the first at
// once, as a solve nobody looks at is stopped after a grace.
for (const lane of lanes) {
  if (lane.dataset.state !== "done") refresh(lane);
}
finished();
