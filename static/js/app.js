// Puzzle Lab's front end: this entry wires its modules together (ES modules, no build step; the
// page's import map gives each module its versioned address, so a deploy never mixes old and
// new). On the level pages every action is a request whose answer swaps the #play partial,
// sent at once and numbered (pipeline.js); the server stays the one authority on the game.
//
// A game's own script (static/games/<name>/game.js, a module loaded on its level pages only)
// registers how input becomes moves, as Tatham's interpret_move does:
//   register(name, {          (import { register } from "/static/js/lab.js", or PuzzleLab.register)
//     key(direction) -> request values or null   direction: "l" "u" "r" "d"
//     click(cell)    -> request values or null   cell: the clicked [data-cell] element
//     swipe(direction, target) -> values or null  optional: a finger swiped on the board
//     select()       -> values or null            optional: Space or Enter on the board
//     pointerdown(event)                          optional: drags
//     afterSwap()                                 optional: after the board was redrawn
//     hold()         -> true while input must wait (an animation runs)
//     skip()                                      optional: end that animation now
//     movers(board, before) -> [{key, element, pseudo, pushed}]   optional: the pieces that
//                    glide from one board to the next (motion.js), found again by key;
//                    before: the pieces of the board shown last, as motion.js noted them
//     attention(board) -> element                  optional: the square a zoomed view follows
//   });
// Buttons in #play with data-direction (an arrow pad) act as that direction's key. The board
// keeps the keyboard focus across redraws, and the play partial's [data-announce] text is read
// out through one live region that outlives the redraws.
//
// The modules, each one concern: lab.js (the games registered, the level page, flash),
// pipeline.js (the numbered requests and the swaps of #play), input.js (keys and clicks),
// touch.js (swipes, two fingers), layout.js (the board's room on the screen, its zoom),
// cursor.js (the board's keyboard focus and cursor, for every game), announce.js (the live
// region), replay.js (a replay's Play), share.js (copy and share), live.js (the solver's
// socket), motion.js (pieces glide; the win; sounds), kept.js (settings kept on the server),
// csrf.js (the token), swap.js (the one listener of htmx's swaps).
import { announce } from "./announce.js";
import { prepareBoard, noteFocus, restoreFocus } from "./cursor.js";
import * as input from "./input.js";
import * as kept from "./kept.js";
import { current, flash, game, register } from "./lab.js";
import * as layout from "./layout.js";
import * as live from "./live.js";
import { motion } from "./motion.js";
import { busy, send } from "./pipeline.js";
import * as replay from "./replay.js";
import * as share from "./share.js";
import * as swap from "./swap.js";
import * as touch from "./touch.js";

// -- What a swap of the page's parts means, in this order ----------------------------------------
swap.beforeSwap((event) => {
  const play = document.getElementById("play");
  if (play && event.detail.target === play) noteFocus(play);
});
swap.beforeSwap(motion.beforeSwap);
swap.afterSwap((event) => {
  if (!event.detail.target || event.detail.target.id !== "play") return;
  // The board keeps the keyboard, the zoom, the view of the player; the news is read out.
  restoreFocus();
  if (touch.playedByFinger()) layout.zoomToPlay();  // a big board on a phone: squares to hit
  layout.showZoom();
  layout.follow();
  announce();
});
swap.afterSwap(() => {
  // What a game marks on its board (a selection, a cursor) is marked on the new one.
  const handlers = current();
  if (handlers && handlers.afterSwap) handlers.afterSwap();
});
swap.afterSwap(motion.afterSwap);

[swap, touch, layout, replay, share, input, live, kept].forEach((module) => module.start());

// -- The rest of the site's pages ----------------------------------------------------------------
document.addEventListener("htmx:responseError", (event) => {
  flash(event.detail.xhr.responseText || "Something went wrong.");
});
document.addEventListener("htmx:sendError", () => flash("The server cannot be reached. Your game is safe; try again."));
// A level made to order can take seconds to make and prove: the page says it is at work.
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest(".make-links a");
  const status = document.getElementById("make-status");
  if (!link || !status || event.defaultPrevented || event.ctrlKey || event.metaKey || event.shiftKey) return;
  status.textContent = "Making your " + link.textContent.trim().toLowerCase() +
    " level and solving it to be sure it can be won… the hardest take a few seconds.";
  document.getElementById("make").setAttribute("aria-busy", "true");
});
window.addEventListener("pageshow", () => {  // back from the level: no stale word
  const status = document.getElementById("make-status");
  if (status) status.textContent = "";
});
// A collection's order and filter apply as they are chosen (the List button is for a page
// without scripts).
document.addEventListener("change", (event) => {
  const form = event.target.closest && event.target.closest("#level-listing");
  if (form) form.requestSubmit();
});


function ready() { layout.fit(); prepareBoard(); }
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
else ready();

// The interface a game's script registers with (a classic script from a game package uses
// this; the games here import lab.js themselves).
window.PuzzleLab = {
  send: send,
  flash: flash,
  register: register,
  game: game,
  hold: busy,
  motion: motion,
};
