// Puzzle Lab: the player's settings, kept per player on the server (the page carries them in
// <html data-kept-settings>, and each change is sent to /settings/page) and in this browser
// (localStorage) for a visitor. Loaded before the page is drawn, so a dark page never flashes light:
// this script only marks the root element; the style sheet and the modules read the marks. A classic
// script (a module would run after the first paint): sending a change to the server is kept.js's.
//   theme    "auto" (follow the system's prefers-color-scheme), "light" or "dark"
//   motion   "normal", "fast" or "off" (prefers-reduced-motion always means off)
//   numbers  tile numbers over pictures
//   sound    short sounds for moves and wins (off unless chosen)
//   spoilers figures that give part of a solution away, such as the fewest moves left
(function () {
  "use strict";

  const KEY = "puzzlelab.settings";
  const DEFAULTS = { theme: "auto", motion: "normal", numbers: false, sound: false, spoilers: true };
  const CHOICES = { theme: ["auto", "light", "dark"], motion: ["normal", "fast", "off"] };

  function read() {
    const settings = Object.assign({}, DEFAULTS);
    let saved = null;
    try {
      saved = JSON.parse(localStorage.getItem(KEY) || "null");
      // Tile numbers were once a setting of their own.
      if (!saved && localStorage.getItem("puzzlelab.numbers") === "1") saved = { numbers: true };
    } catch (error) {
      saved = null;  // storage refused or unreadable: the defaults
    }
    try {
      // What the player chose in any browser: the server's copy wins over this one's.
      const kept = JSON.parse(document.documentElement.dataset.keptSettings || "{}");
      if (kept && typeof kept === "object" && Object.keys(kept).length) {
        saved = Object.assign({}, saved || {}, kept);
      }
    } catch (error) {
      // An unreadable copy: this browser's own.
    }
    if (saved && typeof saved === "object") {
      for (const name of Object.keys(DEFAULTS)) {
        const value = saved[name];
        if (CHOICES[name] ? CHOICES[name].includes(value) : typeof value === "boolean") settings[name] = value;
      }
    }
    return settings;
  }

  let settings = read();

  function apply() {
    const root = document.documentElement;
    root.dataset.theme = settings.theme;
    root.dataset.motion = settings.motion;
    root.dataset.spoilers = settings.spoilers ? "on" : "off";
    root.classList.toggle("numbered", settings.numbers);
  }

  function set(name, value) {
    if (!(name in DEFAULTS)) return;
    settings[name] = value;
    try {
      localStorage.setItem(KEY, JSON.stringify(settings));
    } catch (error) {
      // Kept for this page only.
    }
    apply();
    // The player's change, with its name: kept.js keeps it on the server too.
    document.dispatchEvent(new CustomEvent("puzzlelab:settings", { detail: { name: name, value: value } }));
  }

  // -- The settings dialog (base.html): its fields show and change the settings ----------------
  function fill(form) {
    for (const name of Object.keys(DEFAULTS)) {
      const field = form.elements[name];
      if (!field) continue;
      if (typeof DEFAULTS[name] === "boolean") field.checked = settings[name];
      else field.value = settings[name];
    }
  }

  function wire() {
    const dialog = document.getElementById("settings");
    const opener = document.getElementById("settings-button");
    if (!dialog || !opener) return;
    const form = dialog.querySelector("form");
    opener.addEventListener("click", () => {
      fill(form);
      dialog.showModal();
    });
    form.addEventListener("change", (event) => {
      const field = event.target;
      if (!field.name || !(field.name in DEFAULTS)) return;
      set(field.name, typeof DEFAULTS[field.name] === "boolean" ? field.checked : field.value);
    });
    // A click on the backdrop (outside the dialog's box) closes it too.
    dialog.addEventListener("click", (event) => { if (event.target === dialog) dialog.close(); });
    // Another page of this site changed them: follow.
    window.addEventListener("storage", (event) => {
      if (event.key !== KEY) return;
      settings = read();
      apply();
      fill(form);
      // Not the player's change here (no name): nothing to keep again.
      document.dispatchEvent(new CustomEvent("puzzlelab:settings", { detail: {} }));
    });
  }

  apply();
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();

  window.PuzzleSettings = {
    get: (name) => settings[name],
    set: set,
    // Milliseconds one step of motion takes; 0 when the player or the system wants none.
    stepMs: () => {
      if (settings.motion === "off") return 0;
      if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return 0;
      return settings.motion === "fast" ? 70 : 130;
    },
  };
})();
