// Sharing: the level's address to the clipboard, or the phone's own share sheet; a text to
// share (the daily result) to the clipboard as it is.
import { flash } from "./lab.js";

function copied(button, text) {
  const label = button.dataset.label || button.textContent;
  button.dataset.label = label;
  button.textContent = text;
  button.classList.add("done");
  clearTimeout(button.timer);
  button.timer = setTimeout(() => { button.textContent = label; button.classList.remove("done"); }, 2500);
  flash(text);
}

function copyByHand(url) {
  // Without the clipboard API (a page not served over HTTPS): a selected field and the copy command.
  const field = document.createElement("textarea");
  field.value = url;
  field.setAttribute("readonly", "");
  field.style.position = "fixed";
  field.style.opacity = "0";
  document.body.appendChild(field);
  field.select();
  let done = false;
  try { done = document.execCommand("copy"); } catch (error) { done = false; }
  field.remove();
  return done;
}

// The level's address (or the button's data-copy).
function shareLink(event) {
  const button = event.target.closest && event.target.closest(".copy-link");
  if (!button) return;
  event.preventDefault();
  const url = new URL(button.dataset.copy || window.location.pathname, window.location.origin).href;
  const phone = window.matchMedia("(pointer: coarse)").matches;
  if (phone && navigator.share) {
    navigator.share({ title: button.dataset.title || document.title, url: url })
      .then(() => copied(button, "Shared"))
      .catch((error) => { if (error && error.name !== "AbortError") copied(button, copyByHand(url) ? "Link copied" : url); });
    return;
  }
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(url)
      .then(() => copied(button, "Link copied"))
      .catch(() => copied(button, copyByHand(url) ? "Link copied" : "Copy this address: " + url));
  } else {
    copied(button, copyByHand(url) ? "Link copied" : "Copy this address: " + url);
  }
}

// A text to share (the daily result) to the clipboard as it is.
function copyText(event) {
  const button = event.target.closest && event.target.closest(".copy-text");
  if (!button) return;
  const text = button.dataset.text || "";
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(() => copied(button, "Copied"))
      .catch(() => copied(button, copyByHand(text) ? "Copied" : "Select the text to copy it"));
  } else {
    copied(button, copyByHand(text) ? "Copied" : "Select the text to copy it");
  }
}

export function start() {
  document.addEventListener("click", shareLink);
  document.addEventListener("click", copyText);
}
