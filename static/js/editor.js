/* The level editor (templates/edit.html): the draft lives here, in this page and in
   localStorage, and is drawn with the game's own board classes; the server reads it back with
   the game's rules (/<game>/edit/look at once, /<game>/edit/verdict from a solver child).

   A draft is {rows: [[cell, ...], ...], fields: {title, ...}}; a cell is a value of the
   game's format (a wall's "#", a colour's letter, a piece's letter, a tile's number). The tools,
   how each value looks and the whole-board actions come from the game's hooks, in the page's
   JSON config. */
import { GridCursor } from "./cursor.js";
import { csrf } from "./csrf.js";

(function () {
  "use strict";
  const root = document.getElementById("editor");
  if (!root) return;
  const config = JSON.parse(document.getElementById("editor-config").textContent);
  const board = document.getElementById("edit-board");
  const storeKey = "puzzlelab:draft:" + config.game;
  const LOOK_DELAY = 120, VERDICT_DELAY = 450, HISTORY = 200;

  let looks = config.looks;
  let draft = null;
  let undone = [], done = [];
  let tool = config.tools[0];
  // The keyboard's square on the draft (the board cursor every game uses), drawn by render().
  const cursor = new GridCursor("#edit-board");
  cursor.place([0, 0]);
  let picked = null;                // a swap tool's first cell
  let marks = { errors: [], dead: [], squares: [], outside: [], targets: [] };
  let stroke = null;                // the draft before a drag began, and the cells it painted
  let shownSize = "";               // the size the size fields were last set to

  function clone(d) { return JSON.parse(JSON.stringify(d)); }
  function sizeOf(d) { return [d.rows.length, d.rows[0].length]; }

  // -- keeping the draft ---------------------------------------------------------------------
  function load() {
    if (config.copy) {               // "Edit a copy": the level, unchanged
      const stored = read();
      if (stored) done.push(stored); // the old draft stays one undo away
      return clone(config.copy);
    }
    return read() || clone(config.blank);
  }
  function read() {
    try {
      const kept = JSON.parse(localStorage.getItem(storeKey) || "null");
      if (kept && Array.isArray(kept.rows) && kept.rows.length && Array.isArray(kept.rows[0])) return kept;
    } catch (e) { /* a broken draft: start afresh */ }
    return null;
  }
  function keep() {
    try { localStorage.setItem(storeKey, JSON.stringify(draft)); } catch (e) { /* full or off */ }
  }

  // -- changes, undo and redo -----------------------------------------------------------------
  function show(next) {              // the draft shown, kept and checked
    draft = next;
    keep();
    render();
    fieldsFromDraft();
    schedule();
  }
  function change(next) {
    done.push(draft);
    if (done.length > HISTORY) done.shift();
    undone = [];
    show(next);
  }
  function undo() { if (done.length) { undone.push(draft); show(done.pop()); } }
  function redo() { if (undone.length) { done.push(draft); show(undone.pop()); } }

  // -- painting -------------------------------------------------------------------------------
  function painted(cell) {
    if (tool.kind === "piece") return pieceLetter();
    const table = tool.paints || {};
    return Object.prototype.hasOwnProperty.call(table, cell) ? table[cell] : (table["*"] !== undefined ? table["*"] : cell);
  }
  function paintInto(d, r, c) {
    const before = d.rows[r][c];
    if (tool.kind === "remove") {
      if (!/^[A-Z]$/.test(before)) return false;
      d.rows.forEach(row => row.forEach((v, i) => { if (v === before) row[i] = tool.paints["*"]; }));
      return true;
    }
    const after = painted(before);
    if (after === before) return false;
    d.rows[r][c] = after;
    return true;
  }
  function swapInto(d, a, b) {
    const t = d.rows[a[0]][a[1]];
    d.rows[a[0]][a[1]] = d.rows[b[0]][b[1]];
    d.rows[b[0]][b[1]] = t;
  }
  function useAt(r, c) {             // one click, tap or Space
    if (tool.kind === "swap") {
      if (!picked) { picked = [r, c]; render(); return; }
      const first = picked; picked = null;
      if (first[0] === r && first[1] === c) { render(); return; }
      const next = clone(draft); swapInto(next, first, [r, c]); change(next);
      return;
    }
    const next = clone(draft);
    if (paintInto(next, r, c)) change(next); else render();
  }

  // -- pieces chosen by letter (a "piece" tool) ---------------------------------------------------
  const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  // A piece is a rectangle: a drag draws it from the square where it began to the one under
  // the pointer, in place of whatever that letter covered before (a click adds one square).
  function pieceInto(before, from, to) {
    const d = clone(before), letter = pieceLetter();
    const floor = (config.tools.find(t => t.kind === "remove") || { paints: {} }).paints["*"];
    if (floor !== undefined) d.rows.forEach(row => row.forEach((v, i) => { if (v === letter) row[i] = floor; }));
    for (let r = Math.min(from[0], to[0]); r <= Math.max(from[0], to[0]); r++) {
      for (let c = Math.min(from[1], to[1]); c <= Math.max(from[1], to[1]); c++) d.rows[r][c] = letter;
    }
    return d;
  }
  // Once a piece is drawn, the next drag draws a new one (its letter the first unused).
  function nextPiece() {
    const select = document.getElementById("edit-piece");
    const used = new Set(draft.rows.flat());
    const free = LETTERS.split("").find(l => !used.has(l));
    if (select && free) { select.value = free; fillPieces(); }
  }
  function pieceLetter() {
    const select = document.getElementById("edit-piece");
    return select && select.value ? select.value : "A";
  }
  function fillPieces() {
    const select = document.getElementById("edit-piece");
    if (!select) return;
    const used = new Set(draft.rows.flat());
    const key = LETTERS.split("").filter(l => used.has(l)).join("");
    if (select.dataset.used === key && select.options.length) return;  // drawn for these pieces
    select.dataset.used = key;
    const chosen = select.value;
    const free = LETTERS.split("").find(l => !used.has(l));
    select.textContent = "";
    for (const letter of LETTERS) {
      const option = document.createElement("option");
      option.value = letter;
      option.textContent = letter + (used.has(letter) ? "" : letter === free ? " (new)" : "");
      select.appendChild(option);
    }
    select.value = chosen && (used.has(chosen) || chosen === free) ? chosen : (free || "A");
  }

  // -- whole-board changes ----------------------------------------------------------------------
  function rotate(d) {
    const [h, w] = sizeOf(d);
    const rows = [];
    for (let c = 0; c < w; c++) { const row = []; for (let r = h - 1; r >= 0; r--) row.push(d.rows[r][c]); rows.push(row); }
    return { rows: rows, fields: clone(d.fields) };
  }
  function flipH(d) { return { rows: d.rows.map(row => row.slice().reverse()), fields: clone(d.fields) }; }
  function flipV(d) { return { rows: d.rows.slice().reverse().map(row => row.slice()), fields: clone(d.fields) }; }
  function trim(d) {
    const out = config.outside;
    let rows = d.rows.map(row => row.slice());
    const empty = row => row.every(v => v === out);
    while (rows.length > 1 && empty(rows[0])) rows.shift();
    while (rows.length > 1 && empty(rows[rows.length - 1])) rows.pop();
    const colEmpty = c => rows.every(row => row[c] === out);
    while (rows[0].length > 1 && colEmpty(0)) rows = rows.map(row => row.slice(1));
    while (rows[0].length > 1 && colEmpty(rows[0].length - 1)) rows = rows.map(row => row.slice(0, -1));
    return { rows: rows, fields: clone(d.fields) };
  }
  function fits(h, w) {
    return h >= config.rows[0] && h <= config.rows[1] && w >= config.cols[0] && w <= config.cols[1];
  }
  function resize(rows, cols) {       // what is kept is the game's (config.resize_keeps)
    return fetchBlank(rows, cols).then(blank => {
      const next = { rows: blank.rows.map(row => row.slice()), fields: clone(draft.fields) };
      if (config.resize_keeps === "nothing") return next;
      const edge = config.resize_keeps === "inside" ? 1 : 0;   // the blank's border stays
      const [h, w] = sizeOf(draft);
      for (let r = edge; r < Math.min(rows, h) - edge; r++) {
        for (let c = edge; c < Math.min(cols, w) - edge; c++) next.rows[r][c] = draft.rows[r][c];
      }
      return next;
    });
  }
  function fetchBlank(rows, cols) {
    return fetch("/" + config.game + "/edit/blank?rows=" + rows + "&cols=" + cols, { headers: { "HX-Request": "true" } })
      .then(answer => {
        if (!answer.ok) return answer.text().then(text => { throw new Error(text || "That size cannot be made."); });
        return answer.json().then(body => { looks = Object.assign({}, looks, body.looks); return body; });
      });
  }
  function shuffle() {
    const moves = document.getElementById("shuffle-moves").value;
    say("Shuffling: the solver proves the distance…");
    post("shuffle", undefined, { moves: moves })
      .then(made => { document.getElementById("edit-errors").replaceChildren(); change({ rows: made.rows, fields: made.fields }); })
      .catch(e => say(e.message || "The shuffle failed."));
  }
  function act(name, button) {
    if (name === "undo") return undo();
    if (name === "redo") return redo();
    if (name === "shuffle") return shuffle();
    let next = null;
    if (name === "rotate") next = rotate(draft);
    if (name === "flip-h") next = flipH(draft);
    if (name === "flip-v") next = flipV(draft);
    if (name === "trim") next = trim(draft);
    if (name === "table") {
      const action = config.actions.find(a => a.name === button.dataset.table);
      next = { rows: draft.rows.map(row => row.map(v => (v in action.table ? action.table[v] : v))), fields: clone(draft.fields) };
    }
    if (next) {
      if (!fits(...sizeOf(next))) return say("That would make a board of a size " + config.title + " does not allow.");
      return change(next);
    }
    const rows = parseInt(document.getElementById("edit-rows").value, 10);
    const cols = parseInt(document.getElementById("edit-cols").value, 10);
    if (!fits(rows, cols)) {
      return say("A board has " + config.rows[0] + " to " + config.rows[1] + " rows and " +
                 config.cols[0] + " to " + config.cols[1] + " columns.");
    }
    const made = name === "new" ? fetchBlank(rows, cols).then(b => ({ rows: b.rows, fields: b.fields })) : resize(rows, cols);
    made.then(d => { cursor.place([0, 0]); change(d); }).catch(e => say(e.message));
  }

  // -- drawing the board ------------------------------------------------------------------------
  function key(r, c) { return r + "," + c; }
  function render() {
    const [h, w] = sizeOf(draft);
    board.style.setProperty("--rows", h);
    board.style.setProperty("--cols", w);
    const errorAt = new Map(), dead = new Set(), flagged = new Set();
    marks.errors.forEach(e => { if (e.square) errorAt.set(key(e.square[0], e.square[1]), e.message); });
    marks.dead.forEach(s => dead.add(key(s[0], s[1])));
    marks.squares.forEach(s => flagged.add(key(s[0], s[1])));
    const outside = new Set(marks.outside.map(s => key(s[0], s[1])));
    const targets = new Set(marks.targets.map(s => key(s[0], s[1])));
    // Cells are kept and changed in place (a pointer or a screen reader stays on its cell);
    // only a new size makes them anew.
    if (board.children.length !== h * w || board.dataset.size !== h + "x" + w) {
      const cells = [];
      for (let i = 0; i < h * w; i++) {
        const div = document.createElement("div");
        div.dataset.cell = key(Math.floor(i / w), i % w);
        cells.push(div);
      }
      board.replaceChildren(...cells);
      board.dataset.size = h + "x" + w;
    }
    for (let r = 0; r < h; r++) {
      for (let c = 0; c < w; c++) {
        const value = draft.rows[r][c];
        const look = looks[value] || { classes: "floor", symbol: value, label: value };
        const div = board.children[r * w + c];
        // Beyond the walls, as the game's board draws it (the rules say which squares are).
        const drawn = look.classes === "floor" && outside.has(key(r, c)) ? "outside" : look.classes;
        let classes = "cell " + drawn;
        if (targets.has(key(r, c))) classes += " target";
        if (dead.has(key(r, c))) classes += " edit-dead";
        if (errorAt.has(key(r, c))) classes += " edit-error";
        if (flagged.has(key(r, c))) classes += " edit-flag";
        if (look.classes.indexOf("edit-piece") >= 0) {  // one piece reads as one block
          const same = (rr, cc) => rr >= 0 && rr < h && cc >= 0 && cc < w && draft.rows[rr][cc] === value;
          if (same(r, c + 1)) classes += " join-r";
          if (same(r, c - 1)) classes += " join-l";
          if (same(r + 1, c)) classes += " join-d";
          if (same(r - 1, c)) classes += " join-u";
        }
        if (cursor.at[0] === r && cursor.at[1] === c) classes += " edit-cursor";
        if (picked && picked[0] === r && picked[1] === c) classes += " selected";
        if (div.className !== classes) div.className = classes;
        const title = look.label + (errorAt.has(key(r, c)) ? ": " + errorAt.get(key(r, c)) : "");
        if (div.title !== title) div.title = title;
        const symbol = look.symbol || "";
        if ((div.textContent || "") !== symbol) {
          div.replaceChildren();
          if (symbol) {
            const span = document.createElement("span");
            span.className = look.classes.indexOf("tile") >= 0 ? "number" : "symbol";
            span.textContent = symbol;
            span.setAttribute("aria-hidden", "true");
            div.appendChild(span);
          }
        }
      }
    }
    document.querySelector('[data-act="undo"]').disabled = !done.length;
    document.querySelector('[data-act="redo"]').disabled = !undone.length;
    if (shownSize !== h + "x" + w) {  // only on a change of size: never over what is being typed
      shownSize = h + "x" + w;
      document.getElementById("edit-rows").value = h;
      document.getElementById("edit-cols").value = w;
    }
    fillPieces();
    where();
  }
  function where() {
    const value = draft.rows[cursor.at[0]][cursor.at[1]];
    const look = looks[value] || { label: value };
    document.getElementById("edit-where").textContent =
      "Tool: " + tool.label + ". Cursor at row " + (cursor.at[0] + 1) + ", column " + (cursor.at[1] + 1) +
      ": " + look.label + (picked ? ". Picked: row " + (picked[0] + 1) + ", column " + (picked[1] + 1) : "") + ".";
  }
  function say(text) {
    const list = document.getElementById("edit-errors");
    list.replaceChildren();
    const item = document.createElement("li");
    item.textContent = text;
    list.appendChild(item);
  }
  function showErrors() {
    const list = document.getElementById("edit-errors");
    list.replaceChildren(...marks.errors.map(e => {
      const item = document.createElement("li");
      item.textContent = (e.square ? "Row " + (e.square[0] + 1) + ", column " + (e.square[1] + 1) + ": " : "") + e.message;
      return item;
    }));
  }

  // -- settings beside the grid -----------------------------------------------------------------
  function fieldsFromDraft() {
    document.querySelectorAll("[data-field]").forEach(input => {
      const value = draft.fields[input.dataset.field] || "";
      if (input.value !== value) input.value = value;
    });
  }
  document.querySelectorAll("[data-field]").forEach(input => {
    input.addEventListener("change", () => {
      const next = clone(draft);
      next.fields[input.dataset.field] = input.value;
      change(next);
    });
  });

  // -- the checks -----------------------------------------------------------------------------
  let lookTimer = null, verdictTimer = null, asked = 0, verdictAbort = null;
  function post(path, signal, more) {  // the draft (and ``more`` fields) to /<game>/edit/<path>
    const body = new URLSearchParams(Object.assign({ draft: JSON.stringify(draft) }, more || {}));
    return fetch("/" + config.game + "/edit/" + path, {
      method: "POST", body: body, signal: signal,
      // As the page's other scripts do: a refusal then comes back as its sentence alone.
      headers: { "X-CSRF-Token": csrf(), "HX-Request": "true" },
    }).then(answer => {
      if (answer.ok) return answer.json();
      return answer.text().then(text => { throw new Error(text || "The server refused (" + answer.status + ")."); });
    });
  }
  function schedule() {
    const number = ++asked;
    clearTimeout(lookTimer); clearTimeout(verdictTimer);
    if (verdictAbort) verdictAbort.abort();
    document.getElementById("verdict").setAttribute("aria-busy", "true");
    lookTimer = setTimeout(() => {
      post("look").then(data => {
        if (number !== asked) return;
        if (data.looks) looks = Object.assign({}, looks, data.looks);
        marks.errors = data.errors; marks.dead = data.dead; marks.squares = data.squares || [];
        marks.outside = data.outside || [];
        marks.targets = data.targets || [];
        showErrors(); render();
        if (data.verdict) return verdictShow(data.verdict);  // the rules alone prove it unsolvable
        if (!data.ok) {
          verdictShow('<div class="verdict verdict-invalid" data-status="invalid"><p class="verdict-head">Not a level yet: fix what is listed under the board.</p></div>');
          return;
        }
        verdictShow('<div class="verdict verdict-checking" data-status="checking"><p class="verdict-head"><span class="spinner" aria-hidden="true"></span> The solver is checking this draft…</p></div>');
        verdictTimer = setTimeout(() => askVerdict(number), VERDICT_DELAY - LOOK_DELAY);
      }).catch(e => { if (number === asked) say(e.message); });
    }, LOOK_DELAY);
  }
  function askVerdict(number) {
    verdictAbort = new AbortController();
    post("verdict", verdictAbort.signal).then(data => {
      if (number !== asked || data.status === "stale") return;
      marks.squares = data.squares || [];
      verdictShow(data.html);
      render();
    }).catch(e => { if (number === asked && e.name !== "AbortError") say(e.message); });
  }
  function verdictShow(html) {
    const box = document.getElementById("verdict");
    box.innerHTML = html;
    box.removeAttribute("aria-busy");
    // On a phone the verdict is far below the board: its first line is shown under the board
    // too (for the eyes only: the verdict itself is what a screen reader hears).
    const head = box.querySelector(".verdict-head");
    const line = document.getElementById("verdict-line");
    line.textContent = head ? head.textContent.trim() : "";
    line.dataset.status = (box.querySelector("[data-status]") || { dataset: {} }).dataset.status || "";
    const watch = document.getElementById("watch-solution");
    if (watch) watch.addEventListener("click", () => submit("watch", watch.dataset.moves));
  }

  // -- test-play and save -------------------------------------------------------------------------
  const form = document.getElementById("edit-save");
  function submit(intent, moves) {
    document.getElementById("edit-draft").value = JSON.stringify(draft);
    document.getElementById("edit-moves").value = moves || "";
    const button = document.createElement("input");
    button.type = "hidden"; button.name = "intent"; button.value = intent;
    form.appendChild(button);
    form.submit();
  }
  form.addEventListener("submit", () => {
    document.getElementById("edit-draft").value = JSON.stringify(draft);
  });

  // -- mouse, finger and pen ------------------------------------------------------------------------
  function cellAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const cell = hit && hit.closest("#edit-board [data-cell]");
    return cell ? cell.dataset.cell.split(",").map(Number) : null;
  }
  board.addEventListener("pointerdown", event => {
    const at = cellAt(event.clientX, event.clientY);
    if (!at || event.button > 0) return;
    event.preventDefault();
    board.focus({ preventScroll: true });
    cursor.place(at);
    board.setPointerCapture(event.pointerId);
    stroke = { start: at, before: draft, work: clone(draft), seen: new Set([key(at[0], at[1])]), moved: false };
    if (tool.kind !== "swap") { paintInto(stroke.work, at[0], at[1]); draft = stroke.work; render(); draft = stroke.before; }
  });
  board.addEventListener("pointermove", event => {
    if (!stroke) return;
    const at = cellAt(event.clientX, event.clientY);
    if (!at || stroke.seen.has(key(at[0], at[1]))) return;
    stroke.seen.add(key(at[0], at[1]));
    stroke.moved = true;
    cursor.place(at);
    if (tool.kind === "swap" || tool.kind === "remove") return;
    if (tool.kind === "piece") stroke.work = pieceInto(stroke.before, stroke.start, at);
    else paintInto(stroke.work, at[0], at[1]);
    draft = stroke.work; render(); draft = stroke.before;
  });
  function endStroke(event) {
    if (!stroke) return;
    const s = stroke; stroke = null;
    if (tool.kind === "swap") {
      const at = cellAt(event.clientX, event.clientY) || s.start;
      if (s.moved && (at[0] !== s.start[0] || at[1] !== s.start[1])) {
        picked = null;
        const next = clone(draft); swapInto(next, s.start, at); change(next);
      } else {
        useAt(s.start[0], s.start[1]);
      }
      return;
    }
    if (JSON.stringify(s.work.rows) !== JSON.stringify(draft.rows)) {
      change(s.work);
      if (tool.kind === "piece" && s.moved) nextPiece();  // a click adds a square; a drag, a piece
    } else {
      render();
    }
  }
  board.addEventListener("pointerup", endStroke);
  board.addEventListener("pointercancel", endStroke);

  // -- keys -------------------------------------------------------------------------------------
  const ARROWS = { ArrowUp: "u", ArrowDown: "d", ArrowLeft: "l", ArrowRight: "r" };
  function choose(next) {
    tool = next; picked = null;
    document.querySelectorAll("#palette [data-tool]").forEach(b => b.setAttribute("aria-pressed", String(b.dataset.tool === tool.key)));
    render();
  }
  document.addEventListener("keydown", event => {
    const typing = event.target.closest && event.target.closest("input, select, textarea");
    if (typing) return;
    if ((event.ctrlKey || event.metaKey) && !event.altKey) {
      const k = event.key.toLowerCase();
      if (k === "z" && !event.shiftKey) { event.preventDefault(); undo(); }
      else if (k === "y" || (k === "z" && event.shiftKey)) { event.preventDefault(); redo(); }
      return;
    }
    if (event.altKey || event.metaKey) return;
    const onBoard = event.target === board;
    if (ARROWS[event.key] && onBoard) {
      event.preventDefault();
      cursor.move(ARROWS[event.key], () => [0, 0]);  // within the board drawn (--rows, --cols)
      render();
      return;
    }
    if ((event.key === " " || event.key === "Enter") && onBoard) {
      event.preventDefault();
      useAt(cursor.at[0], cursor.at[1]);
      return;
    }
    const named = config.tools.find(t => t.key === event.key);
    if (named) { event.preventDefault(); choose(named); return; }
    if (event.key === "t") { event.preventDefault(); submit("play"); }
  });
  document.querySelectorAll("#palette [data-tool]").forEach(button => {
    button.addEventListener("click", () => choose(config.tools.find(t => t.key === button.dataset.tool)));
  });
  document.querySelectorAll("[data-act]").forEach(button => {
    button.addEventListener("click", () => act(button.dataset.act, button));
  });
  const pieceSelect = document.getElementById("edit-piece");
  if (pieceSelect) pieceSelect.addEventListener("change", () => {
    choose(config.tools.find(t => t.kind === "piece") || tool);
  });

  draft = load();
  if (config.copy) keep();
  render();
  fieldsFromDraft();
  schedule();
})();
