// The level page and the games played on it: each game's script registers its handlers here
// (the interface app.js describes), and the rest of the front end asks for the current one.
const games = {};

export function register(name, handlers) {
  games[name] = handlers;
}

export function game(name) {
  return games[name] || null;
}

// The level page on screen, or null elsewhere.
export function page() {
  return document.querySelector(".level-page");
}

// The handlers of the game on this level page, or null.
export function current() {
  const level = page();
  return level ? game(level.dataset.game) : null;
}

// A short message in the page's one message box (#flash, read out as it changes).
let timer = null;
export function flash(text) {
  const box = document.getElementById("flash");
  if (!box) return;
  box.textContent = text;
  box.classList.add("show");
  clearTimeout(timer);
  timer = setTimeout(() => box.classList.remove("show"), 4000);
}
