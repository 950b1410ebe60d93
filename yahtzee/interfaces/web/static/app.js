// The browser table's page: the new-game form, then the game as the server describes it.
// Every rule is the server's; this script draws the state it is sent and sends clicks and keys.
"use strict";

const PIPS = {1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8],
              6: [0, 2, 3, 5, 6, 8]};
let options = null;
let state = null;
let busy = false;
const game = location.pathname.startsWith("/game/") ? location.pathname.slice(6) : null;
const secret = decodeURIComponent(location.hash.slice(1));

const $ = (id) => document.getElementById(id);
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

async function api(path, body) {
  const init = {headers: {"Content-Type": "application/json"}};
  if (secret) init.headers["X-Seat-Secret"] = secret;
  if (body !== undefined) { init.method = "POST"; init.body = JSON.stringify(body); }
  const answer = await fetch(path, init);
  const data = await answer.json().catch(() => ({error: "The server sent no answer."}));
  if (!answer.ok) throw Object.assign(new Error(data.error || answer.statusText), {status: answer.status});
  return data;
}

// -- the new-game form -------------------------------------------------------
function seatRow(kind, index) {
  const select = el("select", {"aria-label": `Player ${index + 1} kind`, class: "kind"});
  for (const k of options.kinds) select.append(el("option", {value: k.name, text: k.name}));
  select.value = kind;
  const name = el("input", {class: "name", maxlength: options.max_name, size: 14,
                            placeholder: "name (optional)", "aria-label": `Player ${index + 1} name`});
  return el("div", {class: "seat"}, el("span", {text: `${index + 1}.`}), select, name);
}

async function showSetup() {
  options = await api("/api/options");
  const seats = $("seats");
  options.default_players.forEach((kind, i) => seats.append(seatRow(kind, i)));
  for (const g of options.games) $("game").append(el("option", {value: g.name, text: g.label}));
  for (const r of options.rules) $("rules").append(el("option", {value: r, text: r}));
  $("rules").value = options.default_rules;
  $("game").addEventListener("change", () => { $("rules").disabled = $("game").value !== "yahtzee"; });
  $("add-seat").addEventListener("click", () => {
    const count = seats.querySelectorAll(".seat").length;
    if (count < options.max_players) seats.append(seatRow("human", count));
  });
  $("remove-seat").addEventListener("click", () => {
    const rows = seats.querySelectorAll(".seat");
    if (rows.length > 1) rows[rows.length - 1].remove();
  });
  $("new-game-form").addEventListener("submit", startGame);
  $("setup").hidden = false;
}

async function startGame(event) {
  event.preventDefault();
  $("new-game").disabled = true;
  $("setup-message").textContent = "Setting the table (the first game with a computer may take a moment)...";
  const players = [...document.querySelectorAll(".seat")].map((row) => ({
    kind: row.querySelector(".kind").value, name: row.querySelector(".name").value}));
  const body = {players, game: $("game").value, rules: $("rules").value, seed: $("seed").value,
                coach: $("coach").checked, hot_seat: $("hot-seat").checked};
  try {
    const made = await api("/api/games", body);
    localStorage.setItem(`links:${made.game}`, JSON.stringify(made.links));
    const mine = made.links.length ? made.links[0].secret : "";
    location.assign(`${made.url}#${encodeURIComponent(mine)}`);
  } catch (error) {
    $("setup-message").textContent = error.message;
    $("new-game").disabled = false;
  }
}

// -- the game ----------------------------------------------------------------
function myTurn() {
  return state && state.turn !== null && state.you.includes(state.turn) && !busy;
}

function drawDie(face, saved, index) {
  const attrs = {type: "button", class: "die" + (saved ? " saved" : ""), "data-testid": `die-${index + 1}`,
                 "aria-pressed": saved ? "true" : "false",
                 "aria-label": `Die ${index + 1}: ${face}${saved ? ", saved" : ""}`};
  const button = el("button", attrs);
  const value = Number(face);
  if (String(value) === face && PIPS[value]) {
    for (let i = 0; i < 9; i++) button.append(el("span", {class: PIPS[value].includes(i) ? "pip" : "pip off"}));
  } else {
    button.classList.add("text");
    button.textContent = face;
  }
  button.disabled = !(myTurn() && state.phase === "rolling");
  button.addEventListener("click", () => send({action: "toggle", die: index + 1}));
  return button;
}

function drawCards() {
  const table = $("cards");
  table.replaceChildren();
  const head = el("tr", {}, el("th", {text: "Box"}));
  for (const p of state.players) {
    head.append(el("th", {class: state.turn === p.seat ? "turn" : null, scope: "col",
                          text: p.name + (state.you.includes(p.seat) ? " (you)" : "")}));
  }
  table.append(el("thead", {}, head));
  const body = el("tbody");
  const boxes = state.players[0].boxes;
  boxes.forEach((box, i) => {
    const row = el("tr", {}, el("td", {text: box.name}));
    for (const p of state.players) {
      const mine = p.boxes[i];
      const cell = el("td");
      const open = mine.score === null;
      if (mine.now !== null && p.seat === state.turn && myTurn()) {
        const button = el("button", {type: "button", "data-testid": `box-${mine.number}`,
                                     "aria-label": `Score ${mine.now} in ${mine.name}`,
                                     text: open ? String(mine.now) : `${mine.score} +${mine.now}`});
        button.addEventListener("click", () => chooseBox(mine.number));
        cell.append(button);
      } else if (open && mine.now !== null) {
        cell.append(el("span", {class: "now", text: String(mine.now)}));
      } else if (!open) {
        cell.textContent = String(mine.score);
      }
      row.append(cell);
    }
    body.append(row);
  });
  state.players[0].rows.forEach((rowInfo, i) => {
    const last = i === state.players[0].rows.length - 1;
    const row = el("tr", {class: last ? "total" : null}, el("td", {text: rowInfo[0].replace(/:$/, "")}));
    for (const p of state.players) {
      row.append(el("td", {"data-testid": last ? `total-${p.seat}` : null, text: String(p.rows[i][1])}));
    }
    body.append(row);
  });
  table.append(body);
}

function statusText() {
  if (state.phase === "over") return `Game over after ${state.rounds} rounds`;
  const rolls = state.rolls_left;
  const who = state.you.includes(state.turn) ? (state.you.length > 1 ? `${state.turn_name}, your turn` : "Your turn")
                                             : `${state.turn_name} is playing`;
  const stage = state.phase === "scoring" ? "choose a box"
              : `${rolls} re-roll${rolls === 1 ? "" : "s"} left`;
  return `Round ${state.round} of ${state.rounds}: ${who} (${stage})`;
}

function drawLinks() {
  const links = JSON.parse(localStorage.getItem(`links:${state.game}`) || "[]");
  const list = $("links");
  list.replaceChildren();
  for (const link of links) {
    const url = `${location.origin}/game/${state.game}#${encodeURIComponent(link.secret)}`;
    for (const seat of link.seats) {
      const name = state.players[seat - 1].name;
      list.append(el("li", {}, `Seat ${seat} (${name}): `,
                     el("a", {href: url, "data-testid": `seat-link-${seat}`, text: url})));
    }
  }
  $("invite").hidden = !links.some((l) => !l.seats.every((s) => state.you.includes(s))) || state.hot_seat;
}

function draw() {
  $("title").textContent = state.title;
  document.title = `Yahtzee: ${state.title}`;
  $("status").textContent = statusText();
  $("dice").replaceChildren(...state.dice.map((face, i) => drawDie(face, state.saved[i], i)));
  const rolling = myTurn() && state.phase === "rolling";
  $("roll").disabled = !rolling;
  $("score").disabled = !rolling;
  const over = state.phase === "over";
  $("coach-panel").hidden = !state.coach || (over && !state.luck);
  $("advice").hidden = over;
  const chances = state.win_chances || [];
  $("win-chances").replaceChildren(...(chances.length ? [el("span", {text: "Win chances: "})] : []),
    ...chances.map((c, i) => el("span", {text: `${c.name} ${c.shown}${i + 1 < chances.length ? ", " : ""}`,
                                         "data-testid": `win-chance-${c.seat}`})));
  $("options").replaceChildren(...(state.options || []).map((line) => el("li", {text: line})));
  $("luck").replaceChildren(...(state.luck || []).map((line) => el("li", {text: line})));
  $("controls").hidden = over;
  $("dice").hidden = over;
  $("card-hint").hidden = over;
  $("advice").textContent = state.advice || "Advice is shown on a person's turn.";
  drawCards();
  $("moves").replaceChildren(...state.moves.map((line) => el("li", {text: line})));
  $("moves").scrollTop = $("moves").scrollHeight;
  $("winner-line").hidden = !state.winner;
  $("winner-line").textContent = state.winner || "";
  $("review-line").hidden = !state.winner;
  $("review-link").href = `/game/${encodeURIComponent(state.game)}/review`;
  drawLinks();
}

function accept(next) {
  if (!state || next.version >= state.version) { state = next; draw(); }
}

async function send(move) {
  if (!myTurn()) return;
  busy = true;
  $("message").textContent = "";
  try {
    accept(await api(`/api/games/${game}/moves`, {...move, version: state.version}));
  } catch (error) {
    $("message").textContent = error.message;
    accept(await api(`/api/games/${game}`));
  } finally {
    busy = false;
    draw();
  }
}

async function chooseBox(number) {
  if (state.phase === "rolling") {
    await send({action: "score"});
    if (state.phase !== "scoring") return;
  }
  await send({action: "box", box: number});
}

async function follow() {
  for (;;) {
    try {
      accept(await api(`/api/games/${game}?after=${state ? state.version : ""}`));
    } catch (error) {
      $("message").textContent = error.message;
      if (error.status === 404) return;
      await new Promise((done) => setTimeout(done, 2000));
    }
  }
}

function keys(event) {
  if (event.target.closest && event.target.closest("input, select, textarea")) return;
  if (event.ctrlKey || event.metaKey || event.altKey || !state) return;
  if (/^[1-5]$/.test(event.key) && state.phase === "rolling") send({action: "toggle", die: Number(event.key)});
  else if (event.key === "r") send({action: "roll"});
  else if (event.key === "s") send({action: "score"});
  else return;
  event.preventDefault();
}

async function showGame() {
  $("table").hidden = false;
  $("roll").addEventListener("click", () => send({action: "roll"}));
  $("score").addEventListener("click", () => send({action: "score"}));
  document.addEventListener("keydown", keys);
  follow();
}

window.addEventListener("DOMContentLoaded", () => (game ? showGame() : showSetup()).catch((error) => {
  document.querySelector("main").prepend(el("p", {class: "message", text: error.message}));
}));
