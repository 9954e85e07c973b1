// The one place that hears htmx swap a part of the page (and pipeline.js's own swaps of #play,
// which fire the same event): whoever needs to know registers here, and is told in the order
// it registered. One failing does not keep the others from hearing.
const before = [];
const after = [];

export function beforeSwap(handler) {
  before.push(handler);
}

export function afterSwap(handler) {
  after.push(handler);
}

function tell(handlers, event) {
  for (const handler of handlers) {
    try {
      handler(event);
    } catch (error) {
      reportError(error);  // as a listener of its own would have
    }
  }
}

export function start() {
  document.addEventListener("htmx:beforeSwap", (event) => tell(before, event));
  document.addEventListener("htmx:afterSwap", (event) => tell(after, event));
}
