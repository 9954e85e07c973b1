// Step through a recorded search (templates/step.html): poll until the solver child has
// recorded it, then fetch one expansion at a time as the reader steps. A "line" is the
// position taken, then each of its children in turn; the pseudo-code lights the line the
// step is at (the child's verdict names it).

const stepper = document.getElementById("stepper");

const ENDED = {
  solved: (s) => `The search reached the goal${s.length !== null ? ` (a solution of ${s.length} ${s.metric})` : ""} after ${s.steps.toLocaleString()} positions.`,
  "node-limit": (s) => `The first ${s.steps.toLocaleString()} positions are recorded; the search had not reached the goal.`,
  unsolvable: (s) => `The search ran out of positions after ${s.steps.toLocaleString()}: no solution.`,
  timeout: (s) => `The time limit stopped the recording after ${s.steps.toLocaleString()} positions.`,
};

if (stepper) {
  const view = document.getElementById("step-view");
  const state = document.getElementById("step-state");
  const controls = document.getElementById("step-controls");
  const count = document.getElementById("step-count");
  const play = document.getElementById("step-play");
  const speed = document.getElementById("step-speed");
  const goto = document.getElementById("step-goto");
  const cache = new Map();
  let total = 0;
  let at = -1; // the expansion shown
  let line = 0; // 0: the position taken; k: its k-th child
  let timer = null;
  let queue = Promise.resolve();

  const fragment = (number) => {
    if (!cache.has(number)) {
      cache.set(
        number,
        fetch(stepper.dataset.stepUrl + number, { credentials: "same-origin" }).then((r) => {
          if (!r.ok) throw new Error(`step ${number}: ${r.status}`);
          return r.text();
        }),
      );
    }
    return cache.get(number);
  };

  const children = () => view.querySelectorAll(".step-children li");

  const light = () => {
    const kids = children();
    kids.forEach((kid, index) => {
      if (index === line - 1) kid.setAttribute("aria-current", "step");
      else kid.removeAttribute("aria-current");
    });
    for (const board of view.querySelectorAll(".child-board")) {
      board.hidden = board.dataset.index !== String(line);
    }
    const name = line === 0 ? "take" : kids[line - 1]?.dataset.verdict;
    for (const item of document.querySelectorAll(".pseudocode .code:not([hidden]) li[data-line]")) {
      item.classList.toggle("lit", item.dataset.line === name);
    }
    stepper.dataset.at = String(at);
    stepper.dataset.line = String(line);
    goto.value = String(at);
    count.textContent = `position ${at.toLocaleString()} of ${(total - 1).toLocaleString()}, line ${line} of ${kids.length}`;
  };

  // Steps run one after another: a fast reader's clicks never show an older step last.
  const go = (work) => {
    queue = queue.then(work).catch((error) => {
      state.textContent = `That step could not be shown (${error.message}); try again.`;
    });
    return queue;
  };

  const show = (number, toLine) =>
    go(async () => {
      if (number < 0 || number >= total) return;
      if (number !== at) {
        view.innerHTML = await fragment(number);
        at = number;
        if (number + 1 < total) fragment(number + 1).catch(() => cache.delete(number + 1));
      }
      line = toLine === "last" ? children().length : toLine;
      light();
    });

  const next = () => {
    if (line < children().length) return show(at, line + 1);
    if (at + 1 < total) return show(at + 1, 0);
    stop();
    return queue;
  };
  const back = () => (line > 0 ? show(at, line - 1) : show(at - 1, "last"));

  const stop = () => {
    clearInterval(timer);
    timer = null;
    play.textContent = "Play";
    play.setAttribute("aria-pressed", "false");
  };
  const start = () => {
    stop();
    timer = setInterval(next, 1000 / Number(speed.value));
    play.textContent = "Pause";
    play.setAttribute("aria-pressed", "true");
  };

  document.getElementById("step-first").addEventListener("click", () => show(0, 0));
  document.getElementById("step-back").addEventListener("click", back);
  document.getElementById("step-next").addEventListener("click", next);
  document.getElementById("step-next-position").addEventListener("click", () => show(at + 1, 0));
  play.addEventListener("click", () => (timer ? stop() : start()));
  speed.addEventListener("change", () => timer && start());
  goto.addEventListener("change", () => {
    const number = Number.parseInt(goto.value, 10);
    if (Number.isInteger(number)) show(Math.max(0, Math.min(total - 1, number)), 0);
  });
  document.addEventListener("keydown", (event) => {
    if (!total || event.target.closest("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
    const keys = { ArrowRight: next, ArrowLeft: back, PageDown: () => show(at + 1, 0), PageUp: () => show(at - 1, 0), Home: () => show(0, 0) };
    if (keys[event.key]) {
      event.preventDefault();
      keys[event.key]();
    }
  });

  const ready = (status) => {
    total = status.steps;
    for (const code of document.querySelectorAll(".pseudocode .code")) {
      code.hidden = code.dataset.kind !== status.kind;
    }
    const ended = ENDED[status.status];
    document.getElementById("step-ended").textContent = ended ? ended(status) : "";
    document.getElementById("go-on").hidden = false;
    if (!total) {
      state.textContent = status.error ? `The search failed: ${status.error}` : "The search recorded no position.";
      return;
    }
    state.textContent = `${total.toLocaleString()} positions recorded. Step with the buttons or the arrow keys.`;
    goto.max = String(total - 1);
    controls.hidden = false;
    stepper.dataset.total = String(total);
    show(0, 0);
  };

  const poll = async () => {
    try {
      const response = await fetch(stepper.dataset.statusUrl, { credentials: "same-origin" });
      if (response.status === 404) {
        // Not this player's, or forgotten (the runner keeps a search for a while): no retry.
        state.textContent = "This recording is gone (or is another player's): record the search again.";
        return;
      }
      if (!response.ok) throw new Error(String(response.status));
      const status = await response.json();
      if (status.state === "done") return ready(status);
      state.textContent =
        status.state === "queued"
          ? "Waiting for a free solver…"
          : `Recording the search in a solver… ${status.recorded.toLocaleString()} positions so far.`;
    } catch (error) {
      state.textContent = `The recording could not be read (${error.message}); retrying.`;
    }
    setTimeout(poll, 300);
  };
  poll();
}
