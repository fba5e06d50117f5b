// dokocam dashboard: renders the table state pushed by the server (SSE) and sends what people tell it.
"use strict";

const $ = (sel) => document.querySelector(sel);
const SUITS = { C: ["♣", "Kreuz"], S: ["♠", "Pik"], H: ["♥", "Herz"], D: ["♦", "Karo"] };
const RANKS = { "9": ["9", "Neun"], "10": ["10", "Zehn"], J: ["B", "Bube"], Q: ["D", "Dame"], K: ["K", "König"], A: ["A", "Ass"] };
const CALL_NAMES = { re: "Re", kontra: "Kontra", no90: "keine 90", no60: "keine 60", no30: "keine 30", black: "schwarz" };
const ALL_CARDS = [];
for (const s of "CSHD") for (const r of ["9", "10", "J", "Q", "K", "A"]) ALL_CARDS.push(r + s);

let state = null;
let selectedSeat = 0;
let fixTarget = null;
let callTarget = null;
let shownPartie = null; // an earlier Partie picked in the sheet panel, or null for the one in force
const touch = matchMedia("(pointer: coarse)").matches;
const dismissed = new Set(); // notes this page has hidden

// -- helpers ------------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}
function cardInfo(code) {
  const suit = code.slice(-1), rank = code.slice(0, -1);
  return { sym: SUITS[suit][0] + RANKS[rank][0], name: `${SUITS[suit][1]}-${RANKS[rank][1]}`, red: suit === "H" || suit === "D" };
}
function cardLabel(code) { const c = cardInfo(code); return `${c.sym} ${c.name}`; }
// Who sits at table seats 0..3 in game g (with five players the one sitting out has no seat).
function seatNames(g = state && state.game) { return g ? g.seats : ["Platz 1", "Platz 2", "Platz 3", "Platz 4"]; }
function signed(n) { return n > 0 ? `+${n}` : `${n}`; }
function toast(message, error = false) {
  const t = $("#toast");
  t.textContent = message; t.className = "toast" + (error ? " err" : ""); t.hidden = false;
  clearTimeout(toast.timer); toast.timer = setTimeout(() => { t.hidden = true; }, error ? 6000 : 2500);
}

// Every change is JSON (the server refuses anything else), a bodiless one included.
async function api(method, path, body = {}) {
  const headers = { "Content-Type": "application/json" };
  const token = localStorage.getItem("dokocam-token");
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: JSON.stringify(body) });
  if (res.status === 401 || res.status === 403) {
    const given = prompt("Dieser Tisch braucht sein Token (beim Start des Servers angezeigt):");
    if (given) { localStorage.setItem("dokocam-token", given.trim()); return api(method, path, body); }
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    let detail = data.detail;
    if (Array.isArray(detail)) detail = detail.map((d) => d.msg.replace(/^Value error, /, "")).join("; ");
    toast(detail || `Fehler ${res.status}`, true);
    throw new Error(detail);
  }
  if (data.state) render(data.state);
  return data;
}

// -- rendering ----------------------------------------------------------------------------

function render(next) {
  if (state && next.seq < state.seq) return; // an older answer arriving late
  state = next;
  window.__state = next; // for tests and the browser console
  renderStatus(); renderDeckInUse(); renderAlerts(); renderTable(); renderControls(); renderActions(); renderHistory(); renderResult(); renderSheet();
  renderPartiesOnce();
}

// Takes back one person's action; a touch screen asks first (a stray tap must not undo anything).
function takeBack(action) {
  if (touch && !confirm(`„${action.label}“ zurücknehmen?`)) return Promise.resolve();
  return api("POST", `/events/${action.event_id}/undo`).then(() => toast(`Zurückgenommen: ${action.label}`)).catch(() => {});
}

function renderActions() {
  const list = $("#actions");
  if (!state.actions.length) { list.replaceChildren(el("li", { class: "hint", text: "Noch nichts von Hand eingegeben." })); return; }
  list.replaceChildren(...state.actions.map((a) => el("li", { "data-event": a.event_id },
    el("span", { text: a.label }), a.game ? el("small", { text: `Spiel ${a.game}` }) : null,
    el("button", { class: "ghost", onclick: () => takeBack(a) }, "zurücknehmen"))));
}

function renderStatus() {
  const g = state.game, p = state.partie;
  let text = "Keine Partie – „Neue Partie“ starten.";
  if (p && p.is_over) text = "Partie beendet: " + p.standings.map(([n, v]) => `${n} ${v}`).join(" · ");
  else if (g) {
    text = `Spiel ${g.number} · Runde ${p.round} · Geber ${g.dealer}` + (g.sitting_out ? ` (setzt aus)` : "") + ` · ${g.contract.label}`;
    if (g.bocks) text += ` · Bock ×${2 ** g.bocks}`;
    if (g.forced_solo) text += ` · ${g.forced_solo} muss Pflichtsolo spielen`;
  }
  $("#status").textContent = text;
  // The button names what it takes back; a camera card is never its target.
  const undo = $("#btn-undo");
  undo.disabled = !state.undo;
  undo.textContent = state.undo ? `↶ Rückgängig: ${state.undo.label}` : "↶ Rückgängig";
  undo.dataset.event = state.undo ? state.undo.event_id : "";
}

function renderAlerts() {
  const box = $("#alerts"); box.replaceChildren();
  const g = state.game, last = state.last_game;
  const flagAlert = (f, prefix, names) => {
    const card = f.card ? ` – ${f.card.symbol} ${f.card.name}` : "";
    const who = f.seat !== null ? ` – ${names[f.seat]}` : "";
    return el("div", { class: "alert flag" }, `⚠ ${prefix}${f.title}: Stich ${f.trick ?? "?"}${who}${card}. ${f.message}`);
  };
  // A renege is often proven only in the last tricks: keep the finished game's alerts until the next game starts.
  const nextStarted = g && (g.tricks.length || (g.current_trick && g.current_trick.plays.length));
  if (last && !nextStarted) for (const f of last.flags) box.append(flagAlert(f, `Spiel ${last.number}: `, last.seats));
  if (g) {
    for (const f of g.flags) box.append(flagAlert(f, "", g.seats));
    for (const p of g.uncertain) {
      box.append(el("div", { class: "alert ask" },
        `? Unsicher: ${g.seats[p.seat]} spielte ${p.card.symbol} ${p.card.name} (${Math.round(p.confidence * 100)} %)`,
        el("button", { onclick: () => openFix(p, g) }, "prüfen")));
    }
    if (g.blocked) {
      // The usual cause is a wrong announcement: offer to take back or correct each one.
      box.append(el("div", { class: "alert note blocked" }, `Nicht gewertet: ${g.blocked}`,
        ...g.calls.map((c) => el("button", { onclick: () => openCall(c, g) }, `${CALL_NAMES[c.call]} von ${c.player} prüfen`))));
    }
  }
  for (const n of state.notes.slice(-3).filter((n) => !dismissed.has(n.event_id))) {
    box.append(el("div", { class: "alert note" }, `Hinweis (Ereignis ${n.event_id}): ${n.message}`,
      el("button", { class: "ghost", title: "ausblenden", onclick: () => { dismissed.add(n.event_id); renderAlerts(); } }, "×")));
  }
  for (const f of state.pipeline_flags.slice(-2)) box.append(el("div", { class: "alert note", title: f.detail || "" }, f.message));
}

function cardNode(play, g, extra = "") {
  const c = cardInfo(play.card.code);
  const cls = ["card", c.red ? "red" : "", play.uncertain ? "uncertain" : "", play.corrected ? "corrected" : "", play.revised ? "revised" : "", extra].join(" ");
  return el("div", { class: cls, title: `${play.card.symbol} ${play.card.name} – antippen zum Berichtigen`, "data-event": play.event_id, onclick: () => openFix(play, g) },
    el("span", { class: "sym", text: play.card.symbol }), el("span", { class: "nm", text: play.card.name }));
}

function seenNode(seen) {
  const c = cardInfo(seen.card.code);
  return el("div", { class: `card seen ${c.red ? "red" : ""}`, title: `${seen.card.symbol} ${seen.card.name} – gesehen, zählt, sobald die Plätze davor gelesen sind` },
    el("span", { class: "sym", text: seen.card.symbol }), el("span", { class: "nm", text: seen.card.name }));
}

function renderTable() {
  const g = state.game, names = seatNames();
  const begun = g && g.current_trick && (g.current_trick.plays.length || (g.seen || []).length);
  const trick = g ? (begun ? g.current_trick : g.tricks[g.tricks.length - 1] || g.current_trick) : null;
  $("#trick-no").textContent = trick ? trick.number : "–";
  $("#contract").textContent = g ? g.contract.label : "";
  for (const seatEl of document.querySelectorAll("#table .seat")) {
    const seat = Number(seatEl.dataset.seat);
    const party = g ? g.parties[names[seat]] : null;
    const mine = g ? g.calls.filter((c) => c.seat === seat) : [];
    // An announced Re/Kontra is the party badge itself (one badge, marked as announced), tap to correct it.
    const announced = mine.some((c) => c.call === party);
    const calls = mine.map((c) => el("button", { class: `badge call ${c.call}`, title: "antippen zum Berichtigen", onclick: () => openCall(c, g) },
      CALL_NAMES[c.call] + (c.call === "re" || c.call === "kontra" ? " angesagt" : "")));
    const nameRow = el("div", { class: "name" }, names[seat],
      party && !announced ? el("span", { class: `badge ${party}`, text: party === "re" ? "Re" : "Kontra" }) : null,
      g && g.dealer === names[seat] ? el("span", { class: "badge dealer", text: "Geber" }) : null, calls);
    const play = trick ? trick.plays.find((p) => p.seat === seat) : null;
    const extra = play ? [trick.winner === seat ? "win" : "", trick.leader === seat ? "lead" : ""].join(" ") : "";
    // A card the camera sees before its turn (a seat before it not read yet): shown, counted once its turn comes.
    const seen = !play && g && trick === g.current_trick ? (g.seen || []).find((s) => s.seat === seat) : null;
    seatEl.classList.toggle("to-move", !!g && g.to_move === seat);
    seatEl.replaceChildren(nameRow, play ? cardNode(play, g, extra) : seen ? seenNode(seen) : el("div", { class: "card-slot" }));
  }
  const center = $("#trick-center");
  if (!trick) center.replaceChildren(el("div", { text: "–" }));
  else {
    const done = trick.plays.length === 4;
    const winner = trick.winner !== null ? names[trick.winner] : "–";
    center.replaceChildren(el("div", { class: "big", text: `${trick.augen}` }), el("div", { text: "Augen" }),
      el("div", { text: trick.plays.length ? `${done ? "Stich an" : "vorn"}: ${winner}` : `raus: ${names[trick.leader] ?? "–"}` }));
  }
  const augen = $("#augen");
  if (!g) { augen.replaceChildren(); $("#specials").replaceChildren(); return; }
  const a = g.augen, total = Math.max(1, a.re + a.kontra + a.unknown);
  const part = (cls, v, label) => el("div", { class: cls, style: `flex-grow:${v}` }, v >= 12 ? `${label} ${v}` : "");
  augen.replaceChildren(
    el("div", { class: "bar-wrap" }, part("re", a.re, "Re"), part("unknown", a.unknown, "?"), part("kontra", a.kontra, "Kontra"),
      total === 1 ? el("div", { style: "flex-grow:1;color:#5f6b66" }, "noch keine Augen") : null),
    el("div", { class: "legend", text: `Re ${a.re} · Kontra ${a.kontra}` + (a.unknown ? ` · Partei unbekannt ${a.unknown}` : "") + " Augen" }));
  $("#specials").replaceChildren(...g.specials.map((s) => el("li", { text: "★ " + s })));
}

function renderControls() {
  const names = seatNames();
  const pick = $("#seat-pick");
  pick.replaceChildren(...names.map((n, i) => el("button", { role: "radio", "aria-checked": String(i === selectedSeat), "data-seat": i,
    onclick: () => { selectedSeat = i; renderControls(); } }, n)));
  const g = state.game;
  for (const b of document.querySelectorAll("#calls button, #btn-contract, #btn-card, #btn-end, #btn-claim")) b.disabled = !g;
  const partner = $("#contract-partner");
  partner.replaceChildren(...names.map((n, i) => el("option", { value: i }, `nimmt: ${n}`)));
  partner.hidden = $("#contract-type").value !== "armut";
  const left = $("#end-left"), keep = left.value;
  const present = state.partie ? state.partie.present : [];
  left.replaceChildren(el("option", { value: "" }, "niemand geht"), ...present.map((n) => el("option", { value: n }, `${n} geht`)));
  left.value = keep;
  $("#end-what").textContent = endExplained(left.value);
}

// What ending the game does, said before it is done: with a player leaving, maybe the whole Partie ends.
function endExplained(left) {
  if (!state.game) return "";
  const n = state.game.number;
  if (!left) return `Spiel ${n} endet ohne Punkte; der nächste Geber gibt.`;
  const rest = state.partie.present.length - 1;
  return rest >= 4
    ? `Spiel ${n} endet ohne Punkte; ${left} verlässt die Partie, die übrigen ${rest} spielen weiter.`
    : `${left} verlässt die Partie: mit nur noch ${rest} Spielern endet die ganze Partie (Spiel ${n} ohne Punkte).`;
}

function renderHistory() {
  // Until the next game's first trick, the finished game stays in view (and correctable).
  const g = state.game && state.game.tricks.length ? state.game : state.last_game || state.game;
  const names = seatNames(g), box = $("#history");
  $("#history-title").textContent = g && g !== state.game ? `(Spiel ${g.number})` : "";
  if (!g || !g.tricks.length) { box.replaceChildren(el("p", { class: "hint", text: "Noch kein Stich." })); return; }
  // Cards in the order they were played, the leader first and marked: with two equal cards the first one wins.
  box.replaceChildren(...[...g.tricks].reverse().map((t) => {
    const cells = t.plays.map((p, i) => {
      const c = cardInfo(p.card.code);
      const cls = ["mini", i === 0 ? "lead" : "", t.winner === p.seat ? "win" : "", p.uncertain ? "uncertain" : ""].join(" ");
      return el("div", { class: cls, "data-event": p.event_id,
        title: `${names[p.seat]}${i === 0 ? " (spielte aus)" : ""}: ${p.card.name}`, onclick: () => openFix(p, g) },
        el("span", { class: `sym ${c.red ? "red" : ""}`, text: (i === 0 ? "▶" : "") + p.card.symbol }), el("span", { class: "who", text: names[p.seat] }));
    });
    return el("div", { class: "trick-row" }, el("span", { class: "no", text: t.number }), cells,
      el("span", { class: "pts", text: `${t.augen} → ${names[t.winner]}` }));
  }));
}

function renderResult() {
  const g = state.game && state.game.result ? state.game : state.last_game;
  const panel = $("#result-panel");
  if (!g || !g.result) { panel.hidden = true; return; }
  panel.hidden = false;
  const r = g.result;
  // Re's Augen always first, whoever won: "Re 118 : Kontra 122".
  const winner = r.winner === "re" ? "Re gewinnt" : r.winner === "kontra" ? "Kontra gewinnt" : "niemand gewinnt";
  $("#result-title").textContent = `Spiel ${g.number}: ${winner} · Re ${r.augen.re ?? "?"} : Kontra ${r.augen.kontra ?? "?"}`;
  const link = $("#record-link");
  link.href = `/games/${g.number}/record`;
  link.download = `doppelkopf-spiel-${g.number}.json`;
  const claim = g.claimed ? el("p", { class: "hint", text: `Spielabkürzung: ${g.claimed.player} beanspruchte die letzten ${g.claimed.tricks} Stiche (${g.claimed.augen} Augen).` }) : null;
  const rows = r.items.map((i) => el("tr", {}, el("td", { text: i.name }), el("td", { text: i.party === "re" ? "Re" : i.party === "kontra" ? "Kontra" : "" }), el("td", { text: signed(i.value) })));
  $("#result").replaceChildren(
    el("table", {}, el("tbody", {}, rows, el("tr", { class: "total" }, el("td", { text: "Spielwert" }), el("td"), el("td", { text: r.game_value })))),
    el("div", { class: "points" }, Object.entries(r.points).map(([n, v]) => el("div", {}, n, el("b", { class: v > 0 ? "pos" : v < 0 ? "neg" : "", text: signed(v) })))),
    ...(claim ? [claim] : []));
}

async function renderParties() {
  // Earlier Parties stay readable: pick one to see its sheet, CSV and print page.
  const pick = $("#partie-pick"), parties = await fetch("/parties").then((r) => r.json()).catch(() => []);
  pick.hidden = parties.length < 2;
  pick.replaceChildren(...parties.map((p) => el("option", { value: p.current ? "" : p.number },
    `Partie ${p.number}${p.current ? " (läuft)" : ""}: ${p.players.join(", ")}`)));
  pick.value = shownPartie === null ? "" : String(shownPartie);
}

async function showPartie(number) {
  shownPartie = number;
  const base = number === null ? "/partie" : `/parties/${number}`;
  $("#csv-link").href = `${base}/sheet.csv`;
  $("#print-link").href = `${base}/print`;
  if (number === null) { renderSheet(); return; }
  renderSheet(await fetch(base).then((r) => r.json()));
}

function renderSheet(shown = null) {
  if (shown === null && shownPartie !== null) return; // an earlier Partie is on view
  const p = shown || state.partie, table = $("#sheet"), meta = $("#sheet-meta");
  if (!p) { table.replaceChildren(); meta.replaceChildren(el("span", { text: "Noch keine Partie." })); return; }
  const len = p.length.games ? `${p.length.games} Spiele` : p.length.rounds ? `${p.length.rounds} Runden` : p.length.target ? `bis ${p.length.target} Punkte` : "offen";
  meta.replaceChildren(...[el("span", { text: `Länge: ${len}` }), el("span", { text: `Regeln: ${state.rules.preset === "pub" ? "Kneipe" : "Turnier"}${Object.keys(state.rules.differs).length ? " + Hausregeln" : ""}` }),
    p.bock_queue.length ? el("span", { class: "bock", text: `Bock: ${p.bock_queue.length} Spiel(e) (×${2 ** p.bock_queue[0]} als nächstes)` }) : null,
    p.pflichtsolo_owed.length ? el("span", { text: `Pflichtsolo offen: ${p.pflichtsolo_owed.join(", ")}` }) : null].filter(Boolean));
  const head = el("tr", {}, el("th", { text: "#" }), el("th", { text: "Geber" }), el("th", { text: "Spiel" }), p.players.map((n) => el("th", { text: n })));
  const rows = p.sheet.map((row) => el("tr", { class: row.ended_early ? "early" : "" },
    el("td", { text: row.number }), el("td", { text: row.dealer }),
    el("td", { text: [row.contract || "abgebrochen", row.multiplier > 1 ? `×${row.multiplier}` : "", ...row.notes].filter(Boolean).join(" · ") }),
    p.players.map((n) => el("td", { class: n === row.sitting_out ? "out" : "", title: n === row.sitting_out ? `${n} setzt aus` : null },
      n in row.points ? signed(row.points[n]) : n === row.sitting_out ? "aus" : "–", " ", el("span", { class: "tot", text: `(${row.totals[n]})` })))));
  const totals = el("tr", { class: "totals" }, el("td"), el("td"), el("td", { text: "Stand" }), p.players.map((n) => el("td", { class: p.totals[n] > 0 ? "pos" : p.totals[n] < 0 ? "neg" : "", text: signed(p.totals[n]) })));
  table.replaceChildren(el("thead", {}, head), el("tbody", {}, rows, totals));
}

// -- camera -------------------------------------------------------------------------------

function renderFrame(frame) {
  const img = $("#cam-img"), svg = $("#cam-boxes");
  $("#cam-empty").hidden = true;
  $("#camera").classList.remove("empty");
  img.hidden = false;
  img.src = `/frame.jpg?index=${frame.index}`;
  svg.setAttribute("viewBox", `0 0 ${frame.width} ${frame.height}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  const ns = "http://www.w3.org/2000/svg";
  const fontSize = Math.max(12, frame.height / 32);
  const make = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const boxes = frame.boxes.map((b) => make("rect", { x: b.xyxy[0], y: b.xyxy[1], width: b.xyxy[2] - b.xyxy[0], height: b.xyxy[3] - b.xyxy[1], class: b.confidence < 0.6 ? "box low" : "box" }));
  // Each label goes above, below or inside its box where it touches no other label; when one finds
  // no free place the picture only numbers the boxes and a list beside it names the cards.
  const labels = frame.boxes.map((b) => `${b.label} ${Math.round(b.confidence * 100)}%`);
  const placed = placeLabels(frame, labels, fontSize);
  const list = $("#cam-list");
  if (placed) {
    list.hidden = true;
    svg.replaceChildren(...boxes, ...placed.flatMap((r, i) => [
      make("rect", { x: r.x, y: r.y, width: r.w, height: r.h, class: "label-bg" }),
      make("text", { x: r.x + 4, y: r.y + r.h - 5, class: "label", "font-size": fontSize }, labels[i])]));
    return;
  }
  const tags = placeLabels(frame, frame.boxes.map((_, i) => String(i + 1)), fontSize, true) || [];
  svg.replaceChildren(...boxes, ...tags.flatMap((r, i) => [
    make("rect", { x: r.x, y: r.y, width: r.w, height: r.h, class: "label-bg" }),
    make("text", { x: r.x + 4, y: r.y + r.h - 5, class: "label", "font-size": fontSize }, String(i + 1))]));
  list.hidden = false;
  list.replaceChildren(...labels.map((l) => el("li", { text: l })));
}

// Label rectangles (viewBox units) that overlap neither each other nor leave the picture; null when one does not fit.
function placeLabels(frame, labels, fontSize, skipMissing = false) {
  const h = fontSize + 8, placed = [];
  const free = (r) => r.x >= 0 && r.y >= 0 && r.x + r.w <= frame.width && r.y + r.h <= frame.height
    && placed.every((o) => o === null || r.x + r.w <= o.x || o.x + o.w <= r.x || r.y + r.h <= o.y || o.y + o.h <= r.y);
  for (const [i, b] of frame.boxes.entries()) {
    const [x1, y1, x2, y2] = b.xyxy, w = labels[i].length * fontSize * 0.62 + 8;
    const left = Math.min(Math.max(0, x1), frame.width - w);
    const spots = [{ x: left, y: y1 - h }, { x: left, y: y2 }, { x: left, y: y1 }, { x: left, y: y2 - h },
      { x: x2, y: y1 }, { x: x1 - w, y: y1 }].map((p) => ({ ...p, w, h }));
    const spot = spots.find(free);
    if (!spot && !skipMissing) return null;
    placed.push(spot || null);
  }
  return placed.map((r) => r || { x: -1000, y: -1000, w: 0, h: 0 });
}

// -- dialogs and actions ------------------------------------------------------------------

function cardOptions(select) {
  select.replaceChildren(...ALL_CARDS.map((code) => el("option", { value: code }, cardLabel(code))));
}

function openFix(play, g) {
  fixTarget = play;
  const names = seatNames(g);
  $("#fix-what").textContent = `${names[play.seat]} spielte ${play.card.symbol} ${play.card.name}` + (play.uncertain ? ` – die Kamera ist unsicher (${Math.round(play.confidence * 100)} %).` : ".");
  $("#fix-card").value = play.card.code;
  $("#fix-seat").replaceChildren(...names.map((n, i) => el("option", { value: i }, n)));
  $("#fix-seat").value = play.seat;
  $("#btn-confirm").hidden = !play.uncertain;
  $("#btn-take-back").hidden = !play.manual; // a card a person entered can go; a camera card is corrected
  $("#dlg-fix").showModal();
}

function openCall(call, g) {
  callTarget = call;
  const names = seatNames(g);
  $("#call-what").textContent = `${CALL_NAMES[call.call]} von ${call.player} (Spiel ${g.number}). Alles danach wird neu berechnet.`;
  $("#call-seat").replaceChildren(...names.map((n, i) => el("option", { value: i }, n)));
  $("#call-seat").value = call.seat;
  $("#call-kind").value = call.call;
  $("#dlg-call").showModal();
}

async function submitCall(event) {
  const action = event.submitter && event.submitter.value;
  if (!callTarget || action === "cancel") return;
  if (action === "undo") {
    const label = `${CALL_NAMES[callTarget.call]} von ${callTarget.player}`;
    await takeBack({ event_id: callTarget.event_id, label });
    return;
  }
  const body = {}, seat = Number($("#call-seat").value), kind = $("#call-kind").value;
  if (seat !== callTarget.seat) body.seat = seat;
  if (kind !== callTarget.call) body.call = kind;
  if (!Object.keys(body).length) { toast("Nichts geändert."); return; }
  await api("PATCH", `/games/calls/${callTarget.event_id}`, body).then(() => toast("Ansage berichtigt – alles danach neu berechnet.")).catch(() => {});
}

async function submitFix(event) {
  const action = event.submitter && event.submitter.value;
  if (!fixTarget || action === "cancel") return;
  if (action === "confirm") { await api("POST", `/games/cards/${fixTarget.event_id}/confirm`).catch(() => {}); return; }
  if (action === "undo") { await takeBack({ event_id: fixTarget.event_id, label: `${fixTarget.card.name} von ${seatNames()[fixTarget.seat]}` }); return; }
  const body = {};
  const card = $("#fix-card").value, seat = Number($("#fix-seat").value);
  if (card !== fixTarget.card.code) body.card = card;
  if (seat !== fixTarget.seat) body.seat = seat;
  if (!Object.keys(body).length) { toast("Nichts geändert."); return; }
  await api("PATCH", `/games/cards/${fixTarget.event_id}`, body).then(() => toast("Berichtigt – alles danach neu berechnet.")).catch(() => {});
}

const SWITCH_NAMES = {
  without_nines: "ohne Neunen", second_dulle_beats_first: "zweite Dulle sticht die erste",
  second_dulle_except_last_trick: "… außer im letzten Stich", schweinchen: "Schweinchen", fuchs_am_end: "Fuchs am End",
  karlchen_fangen: "Karlchen fangen", armut: "Armut", schmeissen: "Schmeißen", bockrunden: "Bockrunden",
  bock_after_120: "Bock nach 120 : 120", bock_after_lost_solo: "Bock nach verlorenem Solo",
  bock_after_heart_trick: "Bock nach Herz-Stich", bock_after_lost_announcement: "Bock nach verlorener Ansage",
  pflichtsolo: "Pflichtsolo", solo_special_points: "Sonderpunkte im Solo", gegen_die_alten_in_solo: "gegen die Alten im Solo",
};

function renderSwitches(preset, switches) {
  // Bold: what differs from the chosen preset (what a table's "Hausregeln" are).
  const r = state.rules, base = r.presets[preset];
  $("#rules-switches").replaceChildren(...Object.entries(switches).map(([k, v]) =>
    el("label", { class: v !== base[k] ? "differs" : "" },
      el("input", { type: "checkbox", name: k, checked: v, disabled: !r.settable, onchange: () => renderSwitches(preset, currentSwitches()) }),
      SWITCH_NAMES[k] || k.replaceAll("_", " "))));
}
function currentSwitches() {
  return Object.fromEntries([...document.querySelectorAll("#rules-switches input")].map((b) => [b.name, b.checked]));
}

function openSettings() {
  const r = state.rules;
  const select = $("#rules-preset");
  select.replaceChildren(...Object.keys(r.presets).map((p) => el("option", { value: p }, p === "pub" ? "Kneipendoppelkopf" : "Turnier (DDV)")));
  select.value = r.preset;
  select.disabled = !r.settable;
  select.onchange = () => renderSwitches(select.value, r.presets[select.value]);
  $("#rules-note").textContent = r.settable ? "Gilt für die nächste Partie. Fett: anders als die Vorauswahl." : "Eine Partie läuft: die Regeln stehen fest.";
  renderSwitches(r.preset, r.switches);
  $("#btn-rules").hidden = !r.settable;
  $("#dlg-settings").showModal();
}

async function saveSettings(event) {
  if (!event.submitter || event.submitter.value !== "save") return;
  const preset = $("#rules-preset").value, base = state.rules.presets[preset];
  const rules = { preset };
  for (const [k, v] of Object.entries(currentSwitches())) if (v !== base[k]) rules[k] = v;
  await api("PUT", "/settings/rules", { rules }).then(() => toast("Regeln übernommen.")).catch(() => {});
}

async function startPartie(event) {
  if (!event.submitter || event.submitter.value !== "start") return;
  const f = new FormData($("#form-partie"));
  const rules = f.get("preset") ? { preset: f.get("preset") } : { preset: state.rules.preset, ...state.rules.differs };
  // The fifth name is optional; an empty one means four at the table.
  const names = [0, 1, 2, 3, 4].map((i) => (f.get(`p${i}`) || "").trim());
  const body = { players: names.slice(0, 4).concat(names[4] ? [names[4]] : []), rules };
  if (f.get("dealer") !== "") body.first_dealer = Number(f.get("dealer"));
  if (f.get("length")) body.length = { [f.get("length")]: Number(f.get("length_value")) };
  if (state.partie && !state.partie.is_over) {
    if (!confirm("Die laufende Partie beenden und eine neue starten?")) return;
    body.replace = true;
  }
  await api("POST", "/partie", body).then(() => toast("Partie gestartet.")).catch(() => {});
}

// Before play: is the trick area in view, are the indices large enough, is there light, is it in focus?
async function checkCamera() {
  const list = $("#cam-check");
  const res = await fetch("/camera/check");
  const data = await res.json().catch(() => ({}));
  list.hidden = false;
  if (!res.ok) { list.replaceChildren(el("li", { class: "bad", text: data.detail || `Fehler ${res.status}` })); return; }
  list.replaceChildren(...data.map((c) => el("li", { class: c.ok ? "good" : "bad", text: `${c.ok ? "✓" : "✗"} ${c.message}` })));
}

function wire() {
  cardOptions($("#fix-card")); cardOptions($("#manual-card"));
  $("#form-fix").addEventListener("submit", submitFix);
  $("#form-settings").addEventListener("submit", saveSettings);
  $("#form-partie").addEventListener("submit", startPartie);
  $("#btn-settings").addEventListener("click", openSettings);
  $("#btn-check").addEventListener("click", checkCamera);
  $("#btn-partie").addEventListener("click", () => $("#dlg-partie").showModal());
  // The button sends the id it showed: a card the camera adds meanwhile cannot become its target.
  $("#btn-undo").addEventListener("click", () => { if (state.undo) takeBack(state.undo); });
  $("#form-call").addEventListener("submit", submitCall);
  $("#end-left").addEventListener("change", () => { $("#end-what").textContent = endExplained($("#end-left").value); });
  $("#partie-pick").addEventListener("change", (e) => showPartie(e.target.value ? Number(e.target.value) : null));
  $("#contract-type").addEventListener("change", renderControls);
  for (const b of document.querySelectorAll("#calls button")) {
    b.addEventListener("click", () => api("POST", "/games/current/calls", { seat: selectedSeat, call: b.dataset.call })
      .then(() => toast(`${seatNames()[selectedSeat]}: ${CALL_NAMES[b.dataset.call]}`)).catch(() => {}));
  }
  $("#btn-contract").addEventListener("click", () => {
    const [type, kind] = $("#contract-type").value.split(":");
    const body = { type };
    if (kind) body.kind = kind;
    if (type !== "normal") body.declarer = selectedSeat;
    if (type === "armut") body.partner = Number($("#contract-partner").value);
    api("PUT", "/games/current/contract", body).then(() => toast("Spielart gesetzt.")).catch(() => {});
  });
  $("#btn-claim").addEventListener("click", () => {
    const who = seatNames()[selectedSeat];
    if (!confirm(`Spielabkürzung: ${who} zeigt die Karten, seine Partei bekommt alle übrigen Stiche. Das Spiel endet.`)) return;
    api("POST", "/games/current/claim", { seat: selectedSeat }).then(() => toast(`${who} beansprucht den Rest.`)).catch(() => {});
  });
  $("#btn-card").addEventListener("click", () => api("POST", "/games/current/cards", { seat: selectedSeat, card: $("#manual-card").value }).catch(() => {}));
  $("#btn-end").addEventListener("click", () => {
    if (!confirm(endExplained($("#end-left").value) + " Fortfahren?")) return;
    const left = $("#end-left").value;
    api("POST", "/games/current/end", left ? { left } : {}).then(() => toast("Spiel ohne Wertung beendet.")).catch(() => {});
  });
}

function connect() {
  const source = new EventSource("/stream");
  source.addEventListener("open", () => $("#live-dot").classList.add("on"));
  source.addEventListener("error", () => $("#live-dot").classList.remove("on"));
  source.addEventListener("state", (e) => { const s = JSON.parse(e.data); window.__lastSeq = s.seq; render(s); });
  source.addEventListener("frame", (e) => renderFrame(JSON.parse(e.data)));
  source.addEventListener("feed", (e) => { $("#feed-state").textContent = JSON.parse(e.data).message; });
}

// A new Partie adds to the list of Parties.
let partiesSeen = -1;
function renderPartiesOnce() {
  const number = state.partie ? state.partie.number : 0;
  if (number !== partiesSeen) { partiesSeen = number; renderParties(); }
}

wire();
fetch("/state").then((r) => r.json()).then(render).finally(connect);

// -- the Deck page: enrol a deck from one photo, confirm its faces, adapt, use it ---------------

let deckTimer = null;

function showDeckPage(show) {
  $("#deck-page").hidden = !show;
  document.querySelector("main.grid").hidden = show;
  if (show) { pollDeck(); loadDecks(); }
}

// The photo goes as multipart/form-data: the one request the server takes that is not JSON.
async function uploadDeckPhoto(file) {
  const form = new FormData();
  form.append("name", $("#deck-name").value.trim());
  form.append("photo", file, file.name || "auslage.jpg");
  const headers = {};
  const token = localStorage.getItem("dokocam-token");
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch("/decks/enrolment", { method: "POST", headers, body: form });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) { toast(data.detail || `Fehler ${res.status}`, true); return; }
  renderDeck(data); pollDeck();
}

async function pollDeck() {
  clearTimeout(deckTimer);
  const data = await fetch("/decks/enrolment").then((r) => r.json()).catch(() => null);
  if (!data) return;
  renderDeck(data);
  if (data.phase === "enrolling" || data.phase === "adapting") deckTimer = setTimeout(pollDeck, 700);
  else if (data.phase === "done") loadDecks();
}

const DECK_STATES = {
  idle: "Bereit: Karten auslegen und fotografieren.",
  enrolling: "Suche die 24 Karten im Foto …",
  review: "Stimmen die 24 Karten? Jede muss aufrecht an ihrem Platz stehen.",
  refused: "Das Foto ging nicht:",
  adapting: "Lerne das Deck an …",
  done: "Fertig: der Tisch liest jetzt mit diesem Deck.",
  failed: "Anlernen fehlgeschlagen:",
};

function renderDeck(d) {
  $("#deck-page").dataset.state = d.phase;
  let text = DECK_STATES[d.phase] || d.phase;
  if (d.phase === "adapting" && d.progress.total) {
    const stage = d.progress.stage.startsWith("crops") ? "Kartenausschnitte erzeugen" : "Klassifikator anpassen";
    text += ` ${stage}: ${d.progress.done}/${d.progress.total} (${Math.round(100 * d.progress.fraction)} %)`;
  }
  if (d.name && d.phase !== "idle") text = `${d.name}: ${text}`;
  $("#deck-state").textContent = text;
  const msg = $("#deck-message");
  msg.hidden = !d.message;
  msg.replaceChildren(...(d.message ? [el("strong", { text: d.message }), el("small", { text: d.message_en })] : []));
  // Refused for its orientation: the sides the Kreuz row can lie on read the same photo again.
  const sides = d.kreuz_sides || [];
  $("#deck-kreuz").hidden = !sides.length;
  for (const b of document.querySelectorAll("#deck-kreuz button")) b.disabled = !sides.includes(b.dataset.kreuz);
  const unsure = $("#deck-unsure");
  unsure.hidden = !d.unsure.length;
  $("#deck-unsure-checked").hidden = !d.unsure.length;
  if (d.phase !== "review") $("#deck-unsure-check").checked = false;
  $("#btn-deck-confirm").disabled = d.unsure.length > 0 && !$("#deck-unsure-check").checked;
  unsure.replaceChildren(...d.unsure.map((u) => el("li", { title: u.message_en, text: `Bitte prüfen: ${u.message}` })));
  const faces = $("#deck-faces");
  faces.hidden = !d.faces.length;
  faces.replaceChildren(...d.faces.map((f) => el("figure", {},
    el("img", { src: `${f.url}?t=${Date.now()}`, alt: cardLabel(f.code) }), el("figcaption", { text: cardLabel(f.code) }))));
  $("#deck-review").hidden = d.phase !== "review";
  const bar = $("#deck-progress");
  bar.hidden = d.phase !== "adapting" && d.phase !== "done";
  bar.value = d.progress.fraction || 0;
  const busy = d.phase === "enrolling" || d.phase === "adapting";
  $("#btn-deck-camera").disabled = busy; $("#deck-photo").disabled = busy;
}

async function loadDecks() {
  const decks = await fetch("/decks").then((r) => r.json()).catch(() => []);
  const list = $("#deck-list");
  const shipped = el("li", {}, el("span", { text: "Standard (mitgeliefert)" }),
    state && !state.deck ? el("em", { text: "in Gebrauch" }) : el("button", { class: "ghost small", onclick: () => useDeck(null) }, "Verwenden"));
  list.replaceChildren(shipped, ...decks.map((d) => el("li", { "data-deck": d.name }, el("span", { text: d.name }),
    el("small", { text: d.adapted ? (d.created || "") : "nicht angepasst" }),
    d.in_use ? el("em", { text: "in Gebrauch" })
      : el("button", { class: "ghost small", disabled: !d.adapted, onclick: () => useDeck(d.name) }, "Verwenden"))));
}

function useDeck(name) {
  return api("PUT", "/decks/current", { name }).then(() => { toast(`Deck: ${name || "Standard"}`); loadDecks(); }).catch(() => {});
}

function renderDeckInUse() {
  $("#deck-in-use").textContent = `Deck: ${state.deck || "Standard"}`;
  $("#deck-in-use").classList.toggle("own", !!state.deck);
}

function wireDeckPage() {
  $("#btn-deck").addEventListener("click", () => showDeckPage($("#deck-page").hidden));
  $("#btn-deck-back").addEventListener("click", () => showDeckPage(false));
  $("#deck-photo").addEventListener("change", (e) => { const f = e.target.files[0]; if (f) uploadDeckPhoto(f); e.target.value = ""; });
  $("#btn-deck-camera").addEventListener("click", () =>
    api("POST", "/decks/enrolment/camera", { name: $("#deck-name").value.trim() }).then(renderDeck).then(pollDeck).catch(() => {}));
  $("#btn-deck-confirm").addEventListener("click", () =>
    api("POST", "/decks/enrolment/confirm", { unsure_checked: $("#deck-unsure-check").checked })
      .then(renderDeck).then(pollDeck).catch(() => {}));
  $("#deck-unsure-check").addEventListener("change", (e) => { $("#btn-deck-confirm").disabled = !e.target.checked; });
  for (const b of document.querySelectorAll("#deck-kreuz button")) {
    b.addEventListener("click", () =>
      api("POST", "/decks/enrolment/kreuz", { kreuz: b.dataset.kreuz }).then(renderDeck).then(pollDeck).catch(() => {}));
  }
  $("#btn-deck-cancel").addEventListener("click", () => api("POST", "/decks/enrolment/cancel").then(renderDeck).catch(() => {}));
}
wireDeckPage();
