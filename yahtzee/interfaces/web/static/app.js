// The browser table's page: the new-game form, then the game as the server describes it.
// Every rule is the server's; this script draws the state it is sent and sends clicks and keys.
//
// - Every request that fails for want of a server (refused connection, a restart, a 5xx) is
//   tried again with a growing pause, behind the "offline" notice, until the server answers:
//   a page loaded while the server starts again draws the game as soon as it can.
// - Moves are queued and sent one at a time, in order, each with the version of the state it
//   was meant for; the page shows at once what is queued (a saved die, a roll on its way).
//   A Roll within DOUBLE_ROLL_MS of the last is a double click or tap and is dropped: rolling
//   again unseen would throw away the dice just rolled.
// - A box pressed while re-rolls are left is only armed: it shows "score N?" and
//   takes a second press (not a double click's) to score, since scoring ends the turn for
//   good; after Stop rolling, or with no re-roll left, one press scores.
// - Buttons are built once and updated in place, so keyboard focus stays where it was.
// - The server plays a computer's turn at once and sends it in one state; the page plays its
//   rolls back, the state's "pace" apart, as frames drawn over the card as it was before the
//   turn, then draws the state itself (the box, and the next turn).
"use strict";

const PIPS = {1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8],
              6: [0, 2, 3, 5, 6, 8]};
const UPPER_BONUS = 35;
const UPPER_THRESHOLD = 63;
const YAHTZEE_BONUS_LABEL = "Yahtzee bonus:";
const DOUBLE_ROLL_MS = 500;  // a second Roll this soon after one was not meant
let lastRoll = -Infinity;    // when the last Roll was queued (performance.now())
const CONFIRM_MS = 350;      // a box's second press this soon after its first is a double click
let armed = null;            // {box, situation, at}: the box pressed once while re-rolls were left
let options = null;
let state = null;     // the state the server last sent (while a turn is played back: a frame of it)
let playing = 0;      // counts the play-backs started, so that a newer state stops an older one
let view = null;      // that state with the queued moves applied: what the page draws
let accepted = 0;     // how many states were taken (to tell a fresher answer from a late one)
const queue = [];     // moves not yet answered, in order; the first may be on its way
let sending = false;
let lastMoves = [];
let lastTurnKey = "";
let lastPhase = null;
let lastWaiting = null;
let lastStarted = null;
const game = location.pathname.startsWith("/game/") ? location.pathname.slice(6) : null;
const secret = decodeURIComponent(location.hash.slice(1));

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const backoff = (failures) => Math.min(250 * 2 ** Math.max(0, failures - 1), 4000);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function setAttr(node, name, value) {
  if (value === null || value === undefined || value === false) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
  } else if (node.getAttribute(name) !== String(value)) {
    node.setAttribute(name, value);
  }
}

// -- talking to the server ---------------------------------------------------
class ApiError extends Error {
  // kind "offline": no answer, or the server's own trouble (try again); "refused": a 4xx.
  constructor(kind, status, message) {
    super(message);
    this.kind = kind;
    this.status = status;
  }
}

async function api(path, body, timeout = 40000, seat = secret) {
  const init = {headers: {"Content-Type": "application/json"}, cache: "no-store"};
  if (seat) init.headers["X-Seat-Secret"] = seat;
  if (body !== undefined) { init.method = "POST"; init.body = JSON.stringify(body); }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  init.signal = controller.signal;
  try {
    let answer;
    try {
      answer = await fetch(path, init);
    } catch (error) {
      throw new ApiError("offline", 0, "The server cannot be reached.");
    }
    let data = null;
    try { data = await answer.json(); } catch (error) { data = null; }
    if (answer.ok && data !== null) return data;
    if (data === null || typeof data.error !== "string" || (answer.status >= 500 && answer.status !== 503)) {
      throw new ApiError("offline", answer.status, "The server is in trouble.");
    }
    throw new ApiError("refused", answer.status, data.error);
  } finally {
    clearTimeout(timer);
  }
}

let offlineSince = 0;
function setOnline(online) {
  const notice = $("offline");
  if (online) {
    offlineSince = 0;
    notice.hidden = true;
  } else {
    if (!offlineSince) offlineSince = Date.now();
    notice.hidden = false;
  }
}

// Ask until the server answers: every failure for want of a server waits a little longer.
async function patiently(request) {
  for (let failures = 1; ; failures++) {
    try {
      const data = await request();
      setOnline(true);
      return data;
    } catch (error) {
      if (error.kind !== "offline") throw error;
      setOnline(false);
      await sleep(backoff(failures));
    }
  }
}

// -- the new-game form -------------------------------------------------------
function seatRow(kind, index) {
  const select = el("select", {"aria-label": `Player ${index + 1} kind`, class: "kind"});
  for (const k of options.kinds) select.append(el("option", {value: k.name, text: kindLabel(k)}));
  select.value = kind;
  const name = el("input", {class: "name", maxlength: options.max_name, size: 14,
                            placeholder: "name (optional)", "aria-label": `Player ${index + 1} name`});
  return el("div", {class: "seat"}, el("span", {text: `${index + 1}.`}), select, name);
}

function kindLabel(kind) {
  return kind.shown || kind.label;
}

function describeChoices() {
  $("kinds-help").replaceChildren(...options.kinds.filter((k) => k.description).map(
    (k) => el("li", {}, el("b", {text: kindLabel(k)}), `: ${k.description}`)));
  $("game-help").replaceChildren(...options.games.filter((g) => g.description).map(
    (g) => el("li", {"data-game": g.name}, el("b", {text: g.label}), `: ${g.description}`)));
  $("rules-help").replaceChildren(...(options.rule_sets || []).map(
    (r) => el("li", {}, el("b", {text: r.label}), `: ${r.description}`)));
}

function gameSettings() {
  const players = [...document.querySelectorAll(".seat")].map((row) => ({
    kind: row.querySelector(".kind").value, name: row.querySelector(".name").value}));
  return {players, game: $("game").value, rules: $("rules").value,
          seed: $("seed").disabled ? "" : $("seed").value,
          coach: $("coach").checked, hot_seat: $("hot-seat").checked};
}

// A chosen seed is refused for two or more people on their own screens (its maker could foresee
// every roll): the field is off for such a game, and its hint says why.
const SEED_OFF = "No seed when two or more people play on their own screens: whoever chose it " +
                 "could foresee every roll. Alone, or all on this screen, a seed is taken.";
let seedHint = null;

function drawSeed() {
  const computers = new Set(options.kinds.filter((k) => k.computer).map((k) => k.name));
  const people = [...document.querySelectorAll(".seat .kind")].filter((s) => !computers.has(s.value)).length;
  const allowed = people < 2 || $("hot-seat").checked;
  if (seedHint === null) seedHint = $("seed-help").textContent;
  $("seed").disabled = !allowed;
  setText($("seed-help"), allowed ? seedHint : SEED_OFF);
}

// "Add a player" is off at the most seats, "Remove the last" at one (a press did nothing there);
// the keyboard's focus, on the pressed button if it goes off, moves to the other one.
function drawSeatButtons(pressed = null) {
  const count = document.querySelectorAll(".seat").length;
  const add = $("add-seat");
  const remove = $("remove-seat");
  add.disabled = count >= options.max_players;
  remove.disabled = count <= 1;
  if (pressed !== null && pressed.disabled) (pressed === add ? remove : add).focus();
}

async function showSetup() {
  options = await patiently(() => api("/api/options"));
  const seats = $("seats");
  options.default_players.forEach((kind, i) => seats.append(seatRow(kind, i)));
  for (const g of options.games) $("game").append(el("option", {value: g.name, text: g.label}));
  const ruleLabels = Object.fromEntries((options.rule_sets || []).map((r) => [r.name, r.label]));
  for (const r of options.rules) $("rules").append(el("option", {value: r, text: ruleLabels[r] || r}));
  $("rules").value = options.default_rules;
  describeChoices();
  const drawGameHelp = () => {   // the chosen game's line alone
    for (const line of $("game-help").children) line.hidden = line.dataset.game !== $("game").value;
  };
  drawGameHelp();
  $("game").addEventListener("change", () => {
    $("rules").disabled = $("game").value !== "yahtzee";
    $("rules-help").hidden = $("rules").disabled;   // the rule sets are Yahtzee's alone
    drawGameHelp();
  });
  $("add-seat").addEventListener("click", () => {
    const count = seats.querySelectorAll(".seat").length;
    if (count < options.max_players) seats.append(seatRow("human", count));
    drawSeed();
    drawSeatButtons($("add-seat"));
  });
  $("remove-seat").addEventListener("click", () => {
    const rows = seats.querySelectorAll(".seat");
    if (rows.length > 1) rows[rows.length - 1].remove();
    drawSeed();
    drawSeatButtons($("remove-seat"));
  });
  $("new-game-form").addEventListener("change", drawSeed);
  drawSeed();
  drawSeatButtons();
  $("new-game-form").addEventListener("submit", (event) => {
    event.preventDefault();
    startGame(gameSettings(), $("setup-message"), $("new-game"));
  });
  await showContinue();
  $("loading").hidden = true;
  $("setup").hidden = false;
}

// -- your unfinished games: the ones this browser made or opened with a seat's link -----------
const KEPT_GAMES = 20;

function keptGames() {
  let kept = [];
  try { kept = JSON.parse(localStorage.getItem("games") || "[]"); } catch (error) { kept = []; }
  if (!Array.isArray(kept)) kept = [];
  const known = new Set(kept.map((g) => g.game));
  for (let i = 0; i < localStorage.length; i++) {   // games made before this list was kept
    const key = localStorage.key(i);
    if (!key.startsWith("links:") || known.has(key.slice(6))) continue;
    try {
      const links = JSON.parse(localStorage.getItem(key));
      if (links.length) kept.push({game: key.slice(6), secret: links[0].secret, at: 0});
    } catch (error) { /* a damaged entry is skipped */ }
  }
  return kept.filter((g) => g && typeof g.game === "string" && /^[0-9a-f]{32}$/.test(g.game));
}

function keepGame() {
  if (!secret || !game) return;
  const kept = keptGames().filter((g) => g.game !== game);
  kept.unshift({game, secret, at: Date.now()});
  localStorage.setItem("games", JSON.stringify(kept.slice(0, KEPT_GAMES)));
}

// A finished game leaves the list, but keeps its settings a while: its page's "Play again"
// starts the same game anew (the settings of the KEPT_GAMES games that ended last are kept).
function forgetGame(id, ended = false) {
  localStorage.setItem("games", JSON.stringify(keptGames().filter((g) => g.game !== id)));
  localStorage.removeItem(`links:${id}`);
  let endedGames = [];
  try { endedGames = JSON.parse(localStorage.getItem("ended") || "[]"); } catch (error) { endedGames = []; }
  if (!Array.isArray(endedGames)) endedGames = [];
  endedGames = endedGames.filter((g) => g !== id);
  if (ended) endedGames.unshift(id);
  else localStorage.removeItem(`settings:${id}`);
  for (const old of endedGames.slice(KEPT_GAMES)) localStorage.removeItem(`settings:${old}`);
  localStorage.setItem("ended", JSON.stringify(endedGames.slice(0, KEPT_GAMES)));
}

// When this browser last opened a game (at: ms since 1970): the time today, else day and time.
function openedWords(at) {
  const when = new Date(at);
  const time = when.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
  if (when.toDateString() === new Date().toDateString()) return `today at ${time}`;
  return `${when.toLocaleDateString([], {day: "numeric", month: "short"})} at ${time}`;
}

// A kept game in words; when it was last opened tells apart two games of the same players.
function gameLine(s, at = 0) {
  const names = s.players.map((p) => p.name);
  const who = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
  const where = s.started === false ? "waiting for players" : `round ${s.round} of ${s.rounds}`;
  const turn = mine(s) ? ", your turn" : "";
  const opened = at > 0 ? `; last opened ${openedWords(at)}` : "";
  return `${s.title}: ${who}, ${where}${turn}${opened}`;
}

// Asked all at once, before the form shows, so that nothing moves under the player's pointer.
async function showContinue() {
  const kept = keptGames().sort((a, b) => b.at - a.at);
  const states = await Promise.all(kept.map((g) => api(`/api/games/${g.game}`, undefined, 5000, g.secret).catch((error) => {
    if (error.kind === "refused" && error.status === 404) forgetGame(g.game);
    return null;
  })));
  const rows = [];
  kept.forEach((g, i) => {
    const s = states[i];
    if (s !== null && s.phase === "over") forgetGame(g.game, true);   // its review is in the history
    if (s === null || s.phase === "over") return;
    const link = el("a", {href: `/game/${g.game}#${encodeURIComponent(g.secret)}`,
                          class: "button", "data-testid": `continue-${g.game}`, text: "Continue",
                          "aria-label": `Continue ${gameLine(s, g.at)}`});
    const drop = el("button", {type: "button", class: "secondary", "data-testid": `drop-${g.game}`,
                               text: "Remove", "aria-label": `Remove from this list: ${gameLine(s, g.at)}`});
    const row = el("li", {}, el("span", {text: gameLine(s, g.at)}), " ", link, " ", drop);
    drop.addEventListener("click", () => dropGame(g.game, row));
    rows.push(row);
  });
  $("continue-list").replaceChildren(...rows);
  $("continue").hidden = rows.length === 0;
}

// Take a game off this browser's list, once the player says so: its link is the only key to
// the seat this browser holds (the game itself stays on the server until it expires).
function dropGame(id, row) {
  if (!window.confirm("Remove this game from the list? Its link is forgotten here, so this " +
                      "browser can no longer play its seat, unless you kept the link.")) return;
  forgetGame(id);
  const next = row.nextElementSibling || row.previousElementSibling;
  row.remove();
  $("continue").hidden = $("continue-list").children.length === 0;
  (next ? next.querySelector("a") : $("new-game")).focus();
}

async function startGame(settings, message, button) {
  button.disabled = true;
  message.classList.remove("error");
  message.textContent = "Setting the table (the first game with a computer may take a moment)…";
  try {
    const made = await patiently(() => api("/api/games", settings));
    localStorage.setItem(`links:${made.game}`, JSON.stringify(made.links));
    localStorage.setItem(`settings:${made.game}`, JSON.stringify({...settings, seed: ""}));
    const mine = made.links.length ? made.links[0].secret : "";
    location.assign(`${made.url}#${encodeURIComponent(mine)}`);
  } catch (error) {
    message.classList.add("error");
    message.textContent = error.message;
    button.disabled = false;
  }
}

// -- what the queued moves will do ---------------------------------------------
function mine(s) {
  return s !== null && s.started !== false && s.turn !== null && s.you.includes(s.turn) && s.phase !== "over";
}

function waitingFor(s) {
  return s.started === false && s.phase !== "over";
}

function namesOf(seats) {
  const names = seats.map((seat) => state.players[seat - 1].name);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0] || "";
}

function predict() {
  if (state === null) { view = null; return; }
  view = structuredClone(state);
  view.pendingDice = [false, false, false, false, false];
  view.rolling = false;
  view.pendingBox = null;
  for (const [at, move] of queue.entries()) {
    // the move on its way, sent at an older state than the one shown: a long poll brought the
    // state with it before its own answer came, so it is not made again on top
    if (at === 0 && move.version !== undefined && state.version > move.version) continue;
    if (move.action === "toggle") {
      view.saved[move.die - 1] = !view.saved[move.die - 1];
      view.pendingDice[move.die - 1] = true;
    } else if (move.action === "roll") {
      view.rolling = true;
      view.rolls_left = Math.max(0, view.rolls_left - 1);
      if (view.rolls_left === 0) view.phase = "scoring";
    } else if (move.action === "score") {
      view.phase = "scoring";
    } else if (move.action === "box") {
      view.pendingBox = move.box;
      view.phase = "waiting";
    }
  }
}

function canPlay() {
  return view !== null && mine(view) && view.phase !== "waiting";
}

function enqueue(move) {
  if (!canPlay()) return false;
  if (move.action === "toggle" || move.action === "roll" || move.action === "score") {
    if (view.phase !== "rolling") return false;
  }
  if (move.action === "box" && view.rolling) return false;   // its points were for other dice
  if (move.action === "toggle" && view.rolling) return false;   // a face not seen yet
  if (move.action === "box" && !confirmed(move.box)) return false;
  armed = null;
  if (move.action === "box" && view.phase === "rolling") queue.push({action: "score"});
  if (move.action === "roll") {
    const now = performance.now();
    if (now - lastRoll < DOUBLE_ROLL_MS) return false;
    lastRoll = now;
  }
  queue.push(move);
  if (move.action === "box") toTop();
  clearMessage();
  predict();
  draw();
  pump();
  return true;
}

// The dice a box's points are for: the answer to a die saved meanwhile (a new version, the same
// dice) leaves an armed box armed, so that over a slow link no second press is lost.
function situationOf(s) {
  return JSON.stringify([s.round, s.turn, s.rolls_left, s.dice]);
}

function isArmed(number) {
  return armed !== null && armed.box === number && armed.situation === situationOf(view);
}

// Whether a press of ``number`` may score now; a first press with re-rolls left arms the box.
function confirmed(number) {
  if (view.phase !== "rolling" || view.rolls_left === 0) return true;
  const now = performance.now();
  if (isArmed(number)) return now - armed.at >= CONFIRM_MS;
  // the box itself says so (no line above the card: it would push the box from under a finger)
  armed = {box: number, situation: situationOf(view), at: now};
  draw();
  return false;
}

async function pump() {
  if (sending) return;
  sending = true;
  try {
    while (queue.length) {
      const move = queue[0];
      if (move.version === undefined) move.version = state.version;
      let answer = null;
      try {
        answer = await patiently(() => api(`/api/games/${game}/moves`, move));
      } catch (error) {
        // refused: the moves queued after it were meant to follow it, so they go too
        queue.length = 0;
        showMessage(error.message);
        try { take(await patiently(() => api(`/api/games/${game}`)), true); } catch (e) { /* follow() */ }
        break;
      }
      queue.shift();
      take(answer, false);
    }
  } finally {
    sending = false;
    predict();
    draw();
  }
}

function take(next, fresh) {
  if (state === null || next.version >= state.version || fresh) {
    const frames = state !== null && next.version > state.version ? framesOf(state, next) : [];
    state = next;
    accepted += 1;
    playing += 1;   // a play-back under way stops (its state is drawn, or a newer one)
    if (frames.length) playBack(frames, next, playing);
    else {
      predict();
      draw();
    }
  }
}

// The states to draw, "pace" apart, before ``next``: one for each move that ``next`` brings
// after ``before`` but the last, which ``next`` itself shows (a computer's box, with the
// next turn's first roll). None unless those moves are a computer's re-rolls, at most a
// turn's (a page that was away, or is not in view, draws where the game stands).
const MOST_FRAMES = 2;
function framesOf(before, next) {
  if (before === null || before.game !== next.game || !(next.pace > 0) || !next.steps
      || document.hidden) return [];
  const seen = Math.max(-1, ...(before.steps || []).map((step) => step.made));
  const offset = next.moves.length - next.steps.length;
  const fresh = next.steps.map((step, n) => ({...step, line: offset + n}))
    .filter((step) => step.made > seen);
  const moves = [...new Set(fresh.map((step) => step.made))].slice(0, -1);
  const shown = fresh.filter((step) => moves.includes(step.made));
  if (moves.length > MOST_FRAMES
      || shown.some((step) => !next.players[step.seat - 1].computer || step.box !== null)) return [];
  return shown.map((step) => frame(before, next, step));   // a move without a box: one roll
}

// ``next`` as it stood after ``step`` (a re-roll): its dice, the moves up to it, and the cards
// as ``before`` showed them, with nothing in them offered; the coach and the win chances say
// nothing of a position that is already past.
function frame(before, next, step) {
  const shown = {
    ...next,   // what a frame changes is its own; the rest is read, never written
    turn: step.seat, turn_name: next.players[step.seat - 1].name, computer_turn: true,
    round: before.turn === step.seat ? before.round : next.round,
    phase: step.rolls_left > 0 ? "rolling" : "scoring", rolls_left: step.rolls_left,
    dice: step.dice, saved: step.saved || step.dice.map(() => false),
    moves: next.moves.slice(0, step.line + 1),
    steps: next.steps.filter((s) => s.made <= step.made),
    players: structuredClone(before.players),
    win_chances: before.win_chances, advice: null, advice_box: null, advice_dice: [],
    advice_roll_all: false,
    options: [], winner: null, luck: null, drawn: before.version,
  };
  shown.players.forEach((p) => p.boxes.forEach((box) => { box.now = null; }));
  return shown;
}

async function playBack(frames, next, run) {
  for (const shown of frames) {
    state = shown;
    predict();
    draw();
    await sleep(next.pace * 1000);
    if (run !== playing) return;   // a newer state came meanwhile: it is drawn
  }
  state = next;
  predict();
  draw();
}

// Follow the game: a long poll, asked again at once after each answer, patiently after a failure.
async function follow() {
  let failures = 0;
  for (;;) {
    const since = accepted;
    const after = state !== null && failures === 0 ? state.version : "";
    try {
      const next = await api(`/api/games/${game}?after=${after}`);
      failures = 0;
      setOnline(true);
      // a lower version is taken only if nothing came in meanwhile (a server that lost a move)
      take(next, accepted === since && queue.length === 0);
    } catch (error) {
      failures += 1;
      if (error.kind === "offline") {
        setOnline(false);
      } else if ((error.status === 404 || error.status === 423) && state === null) {
        setOnline(true);
        showMissing(error.message);   // 423: played at the console meanwhile; asked again
      } else if (error.status === 423) {
        setOnline(true);
        showMessage(error.message);
      }
      await sleep(error.kind === "offline" ? backoff(failures) : Math.max(2000, backoff(failures)));
    }
  }
}

function showMissing(message) {
  $("loading").hidden = true;
  $("table").hidden = true;
  $("missing").hidden = false;
  setText($("missing-text"), message);
}

let messageTimer = null;
function showMessage(text) {
  setText($("message"), text);
  clearTimeout(messageTimer);
  messageTimer = setTimeout(clearMessage, 8000);
}

function clearMessage() {
  setText($("message"), "");
}

// -- the table ------------------------------------------------------------------
const dice = [];
function buildDice() {
  for (let index = 0; index < 5; index++) {
    const button = el("button", {type: "button", class: "die", "data-testid": `die-${index + 1}`,
                                 "aria-pressed": "false"});
    const pips = el("span", {class: "pips", "aria-hidden": "true"});
    for (let p = 0; p < 9; p++) pips.append(el("span", {class: "pip off"}));
    const face = el("span", {class: "face", "aria-hidden": "true"});
    const label = el("span", {class: "saved-label", "aria-hidden": "true", text: "saved"});
    button.append(pips, face, label);
    button.addEventListener("click", () => enqueue({action: "toggle", die: index + 1}));
    button.addEventListener("animationend", () => button.classList.remove("landed"));
    dice.push({button, pips, face});
    $("dice").append(button);
  }
  // the room beside the dice: a word to the eye only (the dice's group says it to a screen reader)
  $("dice").append(el("span", {id: "dice-hint", class: "dice-hint", "aria-hidden": "true"}));
}

const HINT_ROUNDS = 3;   // the rounds in which a person is told, beside the dice, how to save one
let savedOne = false;    // whether this page has shown one of its own dice saved: then it knows how
const CHEER = "Yahtzee!";   // what the room beside the dice says while they show a Yahtzee

// the coach's one keep that stars no die, said instead ("roll all" kept on one line)
const ROLL_ALL = "Coach: roll\u00a0all";
// said before Roll is pressed in vain: a roll of no die is no roll (the server refuses it)
const ALL_SAVED = "All saved: unsave one to roll";

// What the room beside the dice says for ``v`` (a view): ``CHEER`` while a Yahtzee game's dice
// show one; ``ROLL_ALL`` when the coach would roll every die; ``ALL_SAVED`` on a person's turn
// with every die saved and a roll left; in a person's first rounds, on
// their turn before a die is saved, how to save one (``touch``: by a tap), until this page has
// shown a die of theirs saved (``savedOne``); else nothing.
function diceHint(v, touch) {
  const faces = v.dice.map(Number);
  const yahtzee = !v.rolling && yahtzeeCard(v.players[0]) && faces.length === 5
                  && faces.every((f) => PIPS[f] !== undefined && f === faces[0]);
  if (yahtzee) return CHEER;
  if (v.advice_roll_all && v.phase === "rolling" && !v.rolling && mine(v)) return ROLL_ALL;
  if (mine(v) && v.phase === "rolling" && !v.rolling && v.rolls_left > 0 && v.saved.length
      && v.saved.every(Boolean)) return ALL_SAVED;
  const first = mine(v) && v.phase === "rolling" && !v.rolling && v.round <= HINT_ROUNDS;
  return first && !savedOne && !v.saved.some(Boolean) ? `${touch ? "Tap" : "Click"} a die to save it` : "";
}

// The roll the dice show (its round, seat and re-rolls left): when a drawing shows another,
// the dice just rolled land (app.css), so that a die rolled to the face it showed is seen rolled.
let rollShown = null;

function land(button) {
  button.classList.remove("landed");
  void button.offsetWidth;   // the animation starts again on a die that landed a moment ago
  button.classList.add("landed");
}

function drawDice() {
  const rolling = canPlay() && view.phase === "rolling";
  const roll = view.rolling ? rollShown : JSON.stringify([view.round, view.turn, view.rolls_left]);
  const landing = rollShown !== null && roll !== rollShown && view.phase !== "over";
  rollShown = roll;
  // the dice the coach would save (its advice is for these dice: none while a roll is on its way)
  const coachDice = rolling && !view.rolling ? (view.advice_dice || []) : [];
  // once a person scores no die is marked saved: all five are the final dice (a computer's
  // re-rolls played back keep theirs, which the line beside them names; a last roll on its
  // way still shows the dice it keeps)
  const stopped = view.phase === "scoring" && !view.computer_turn && !view.rolling;
  view.dice.forEach((face, i) => {
    const {button, pips} = dice[i];
    const saved = view.saved[i] && !stopped;
    const value = Number(face);
    const isPips = String(value) === face && PIPS[value] !== undefined;
    button.classList.toggle("text", !isPips);
    [...pips.children].forEach((pip, p) => pip.classList.toggle("off", !isPips || !PIPS[value].includes(p)));
    setText(dice[i].face, isPips ? "" : face);
    button.classList.toggle("saved", saved);
    button.classList.toggle("pending", view.pendingDice[i]);
    button.classList.toggle("rolling", view.rolling && !saved);
    setAttr(button, "aria-pressed", saved ? "true" : "false");
    const pick = coachDice.includes(i + 1);
    button.classList.toggle("coach-pick", pick);
    setAttr(button, "aria-label", `Die ${i + 1}: ${face}${saved ? ", saved" : ""}` +
                                  `${pick ? ", the coach would save it" : ""}`);
    button.disabled = !rolling;
    if (landing && !view.saved[i]) land(button);
  });
  if (rolling && !view.rolling && view.saved.some(Boolean)) savedOne = true;
  const hint = $("dice-hint");
  const touch = getComputedStyle(document.documentElement).getPropertyValue("--touch").trim() === "1";
  setText(hint, diceHint(view, touch));   // the touch screen's media query is app.css's
  hint.classList.toggle("cheer", hint.textContent === CHEER);
}

let cardKey = "";
let cells = [];   // per seat (from 0): {boxes: [{cell, text, button}], bonus, totals: {...}}
function yahtzeeCard(player) {
  const labels = player.rows.map((row) => row[0]);
  return player.boxes.length === 13 && labels.includes("Upper Total") && labels.includes(YAHTZEE_BONUS_LABEL);
}

function buildCard() {
  const table = $("cards");
  const players = state.players;
  const full = yahtzeeCard(players[0]);
  const head = el("tr", {}, el("th", {scope: "col", text: "Box"}));
  const heads = players.map((p) => {
    const th = el("th", {scope: "col", class: "player"});
    head.append(th);
    return th;
  });
  const body = el("tbody");
  cells = players.map(() => ({boxes: [], bonus: null, totals: {}}));
  const row = (label, className) => {
    const tr = el("tr", {class: className}, el("th", {scope: "row", text: label}));
    body.append(tr);
    return tr;
  };
  players[0].boxes.forEach((box, i) => {
    const tr = row(box.name, i === 5 && full ? "last-upper" : null);
    players.forEach((p, s) => {
      const td = el("td");
      const text = el("span", {class: "score"});
      td.append(text);
      let button = null;
      if (state.you.includes(p.seat)) {
        button = el("button", {type: "button", class: "box", hidden: "hidden"});
        button.addEventListener("click", () => enqueue({action: "box", box: box.number}));
        td.append(button);
      }
      tr.append(td);
      cells[s].boxes.push({td, text, button});
    });
    if (i === 5 && full) {
      const bonus = row(`Bonus at ${UPPER_THRESHOLD}`, "bonus-progress");
      setAttr(bonus.firstChild, "title", `${UPPER_BONUS} points once Ones to Sixes add up to ${UPPER_THRESHOLD}`);
      players.forEach((p, s) => {
        const td = el("td", {"data-testid": `upper-bonus-${p.seat}`});
        bonus.append(td);
        cells[s].bonus = td;
      });
    }
  });
  const foot = el("tbody", {class: "totals"});
  const totals = full ? [["upper", "Upper section"], ["bonus", "Upper bonus"], ["lower", "Lower section"],
                         ["ybonus", "Yahtzee bonus"], ["total", "Total"]]
                      : players[0].rows.map((r, i) => [`row${i}`, r[0].replace(/:$/, "")]);
  totals.forEach(([key, label], i) => {
    const last = i === totals.length - 1;
    const tr = el("tr", {class: last ? "total" : null}, el("th", {scope: "row", text: label}));
    players.forEach((p, s) => {
      const td = el("td", {"data-testid": last ? `total-${p.seat}` : null});
      tr.append(td);
      cells[s].totals[key] = td;
    });
    foot.append(tr);
  });
  table.replaceChildren(el("caption", {class: "sr-only", text: "Score cards, one column per player"}),
                        el("thead", {}, head), body, foot);
  cells.heads = heads;
}

// The box another player scored last, [column, row], marked on the card until the next score:
// on a phone the moves' list is far below, and a number appearing unmarked is easily missed.
let freshBox = null;
let lastScores = null;
function noteFreshBox() {
  const scores = view.players.map((p) => p.boxes.map((b) => b.score));
  if (lastScores !== null) {   // null again whenever the card is built anew (buildCard)
    // one answer may hold several scores (a page that slept): another player's wins over yours
    const changed = [];
    scores.forEach((column, s) => column.forEach((score, i) => {
      if (score !== lastScores[s][i]) changed.push([s, i]);
    }));
    const theirs = changed.filter(([s]) => !state.you.includes(view.players[s].seat));
    if (changed.length > 0) freshBox = theirs.length > 0 ? theirs[theirs.length - 1] : null;
  }
  lastScores = scores;
}

function drawCard() {
  const key = JSON.stringify([state.players.map((p) => [p.name, p.boxes.length]), state.you]);
  if (key !== cardKey) { buildCard(); cardKey = key; lastScores = null; }
  noteFreshBox();
  const full = yahtzeeCard(state.players[0]);
  const playing = canPlay();
  const coachBox = view.rolling ? null : view.advice_box ?? null;   // the box the coach would score
  $("open-note").hidden = !(view.phase === "over"
                            && view.players.some((p) => p.boxes.some((b) => b.score === null)));
  view.players.forEach((p, s) => {
    const turn = view.turn === p.seat && view.phase !== "over" && !waitingFor(view);
    const th = cells.heads[s];
    if (th.dataset.key !== p.name) {
      th.dataset.key = p.name;
      // "(you)" tells your column from the others'; all people on one screen are all "you"
      const yours = state.you.includes(p.seat) && state.you.length === 1;
      th.replaceChildren(p.name, ...(yours ? [el("span", {class: "you", text: " (you)"})] : []));
    }
    th.classList.toggle("turn", turn);
    setAttr(th, "aria-current", turn ? "true" : null);
    p.boxes.forEach((box, i) => {
      const {td, text, button} = cells[s].boxes[i];
      // no box is offered for dice that a roll on its way will change (its points would be stale)
      const offered = playing && turn && box.now !== null && !view.rolling;
      const never = box.score === null && view.phase === "over";  // a turn went to a bonus
      setText(text, box.score === null ? (never ? "\u2014" : "") : String(box.score));
      td.classList.toggle("open", box.score === null);
      td.classList.toggle("pending", view.pendingBox === box.number && turn);
      td.classList.toggle("fresh", freshBox !== null && freshBox[0] === s && freshBox[1] === i
                                   && view.phase !== "over");   // the end's card is all settled
      if (button !== null) {
        button.hidden = !offered;
        setAttr(button, "data-testid", offered ? `box-${box.number}` : null);
        if (offered) {
          const filled = box.score !== null;
          // a Yahtzee bonus earned besides the box is shown apart, its label in the coach's words
          const said = box.now_said ? `Score ${box.now_said}` : null;
          setText(button, box.now_shown || (filled ? `${box.score} +${box.now}` : String(box.now)));
          text.hidden = filled;
          button.classList.toggle("zero", box.now === 0);
          button.classList.toggle("with-bonus", said !== null);
          button.classList.toggle("coach-pick", coachBox === box.number);
          const ready = isArmed(box.number);
          button.classList.toggle("armed", ready);
          setAttr(button, "title", said);
          setAttr(button, "aria-label", (ready ? "Press again to end your turn: " : "") + (said
            || (box.now === 0 ? `Score 0 in ${box.name} (nothing scores there with these dice)`
                              : `Score ${box.now} in ${box.name}${filled ? " (a bonus)" : ""}`)));
        } else {
          text.hidden = false;
          setAttr(button, "title", null);
        }
      }
    });
    const upper = p.boxes.slice(0, 6).reduce((sum, b) => sum + (b.score || 0), 0);
    const lower = p.boxes.slice(6).reduce((sum, b) => sum + (b.score || 0), 0);
    const bonus = upper >= UPPER_THRESHOLD ? UPPER_BONUS : 0;
    if (full) {
      const progress = cells[s].bonus;
      setText(progress, bonus ? `+${bonus} (${upper}/${UPPER_THRESHOLD})` : `${upper} / ${UPPER_THRESHOLD}`);
      progress.classList.toggle("earned", bonus > 0);
      setAttr(progress, "title", bonus ? `Upper bonus earned: ${upper} points in Ones to Sixes`
                                       : `${UPPER_THRESHOLD - upper} more points in Ones to Sixes earn ${UPPER_BONUS}`);
      const ybonus = (p.rows.find((r) => r[0] === YAHTZEE_BONUS_LABEL) || [null, 0])[1];
      const t = cells[s].totals;
      setText(t.upper, String(upper));
      setText(t.bonus, String(bonus));
      setText(t.lower, String(lower));
      setText(t.ybonus, String(ybonus));
      setText(t.total, String(p.total));
    } else {
      p.rows.forEach((r, i) => setText(cells[s].totals[`row${i}`], String(r[1])));
    }
  });
  fitCard();
}

// A card wider than its panel (on a phone, two long names) scrolls sideways, as a panel that
// clips what is too wide would hide a column; its Total row then stays under the card rather
// than at the screen's foot (a scrolling panel holds a sticky row to itself).
function fitCard() {
  const table = $("cards");
  const panel = table.closest(".cards");
  panel.classList.toggle("wide", table.getBoundingClientRect().right
                                 > panel.getBoundingClientRect().right + 1);
}
addEventListener("resize", () => { if (view !== null) fitCard(); });

function statusText() {
  if (view.phase === "over") return `All ${view.rounds} rounds played`;  // "Game over" heads the end
  if (waitingFor(view)) return `Waiting for ${namesOf(view.waiting)} to join…`;
  const rolls = view.rolls_left;
  const who = view.you.includes(view.turn) ? (view.you.length > 1 ? `${view.turn_name}, your turn` : "Your turn")
                                           : `${view.turn_name}'s turn`;
  const stage = view.phase === "waiting" ? "scoring…"
              : view.rolling ? "rolling…"
              : view.phase === "scoring" ? (mine(view) ? "choose a box" : "choosing a box")
              : `${rolls} re-roll${rolls === 1 ? "" : "s"} left`;
  // a phone's one line keeps its end (whose turn, re-rolls left) with the round written short
  const round = matchMedia("(max-width: 30rem)").matches ? `${view.round}/${view.rounds}`
                                                         : `${view.round} of ${view.rounds}`;
  return `Round ${round}: ${who} (${stage})`;
}

// The address others reach the server at (the server's word, else this page's own origin).
let shareOrigin = location.origin;

// Put a text on the clipboard; return whether it went. Browsers give the Clipboard API only to
// a secure page (https, or this machine's own address): at a network address over plain HTTP,
// the very address friends are sent, the text is copied from a hidden field's selection.
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (error) { /* refused: try the selection below */ }
  }
  const field = el("textarea", {class: "copy-source", readonly: "readonly", "aria-hidden": "true",
                                tabindex: "-1"});
  field.value = text;
  document.body.append(field);
  field.select();
  let copied = false;
  try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
  field.remove();
  return copied;
}

// A link's Copy button: "Copied" once it is on the clipboard; where the browser copies nothing,
// the link is selected, for the player to copy it themselves.
function copyButton(url, what, link) {
  const copy = el("button", {type: "button", class: "copy", text: "Copy", "aria-label": `Copy ${what}`});
  copy.addEventListener("click", async () => {
    const copied = await copyText(url);
    copy.focus();
    if (copied) {
      copy.textContent = "Copied";
    } else {
      window.getSelection().selectAllChildren(link);
      copy.textContent = "Not copied: the link is selected";
    }
  });
  return copy;
}

// Whether an origin is this machine's loopback, which no other device can open.
function loopback(origin) {
  let host = "";
  try { host = new URL(origin).hostname; } catch (error) { return false; }
  return host === "localhost" || host.endsWith(".localhost") || host.startsWith("127.") || host === "[::1]";
}

function storedLinks(id) {
  try {
    const links = JSON.parse(localStorage.getItem(`links:${id}`) || "[]");
    return Array.isArray(links) ? links : [];
  } catch (error) {
    return [];
  }
}

function drawLinks() {
  const links = storedLinks(state.game);
  const list = $("links");
  const waiting = waitingFor(state);
  const local = loopback(shareOrigin);
  const key = JSON.stringify([links, shareOrigin, state.waiting, waiting]);
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    list.replaceChildren();
    for (const link of links) {
      const url = `${shareOrigin}/game/${state.game}#${encodeURIComponent(link.secret)}`;
      for (const seat of link.seats) {
        const name = state.players[seat - 1].name;
        const own = state.you.includes(seat);
        const joined = !state.waiting.includes(seat);
        // in the waiting room, a QR code for each seat still empty: a phone's camera opens it
        // (not for a loopback address, which a phone cannot open)
        const code = waiting && !joined && !local && window.QR ? window.QR.svg(url, `QR code of the link of seat ${seat} (${name})`) : null;
        const anchor = el("a", {href: url, "data-testid": `seat-link-${seat}`, text: url});
        // your own link has no Copy: sent to a friend, it would hand them your seat
        const share = own ? el("span", {class: "hint own-link", text: "your own link: it opens your seat on "
                                         + "another device of yours; send it to no one"})
                          : copyButton(url, `the link of seat ${seat} (${name})`, anchor);
        list.append(el("li", {class: joined ? "joined" : "not-joined"},
                       el("span", {class: "seat-name", text: `Seat ${seat} (${name}${own ? ", you" : ""})`}),
                       el("span", {class: "seat-state", text: joined ? " joined " : " not here yet "}),
                       anchor, " ", share, ...(code ? [code] : [])));
      }
    }
    $("address-line").replaceChildren(...(local
      ? [`This server listens on this computer only (${shareOrigin}), so no phone can open these links: ` +
         "others on your network can join only if the server is started with ",
         el("code", {class: "nowrap", text: "--host 0.0.0.0"}), "."]
      : [`Others reach this server at ${shareOrigin}.`]));
  }
  // a host whose browser lacks the links (another device, storage cleared) may get new ones
  const missing = state.host && !state.hot_seat && links.length === 0 && state.waiting.length > 0
                  && state.phase !== "over";
  $("links-missing").hidden = !missing;
  const others = (links.some((l) => !l.seats.every((s) => state.you.includes(s))) && !state.hot_seat) || missing;
  // while seats are empty the links sit at the top, in the waiting room; later at the bottom
  const home = waiting ? $("lobby-links") : $("invite-links");
  if ($("links-box").parentNode !== home) home.append($("links-box"));
  $("links-box").hidden = !others;
  $("invite").hidden = waiting || !others;
}

function drawLobby() {
  const waiting = waitingFor(view);
  $("lobby").hidden = !waiting;
  if (!waiting) return;
  setText($("lobby-status"), `Waiting for ${namesOf(view.waiting)} to join…`);
  const people = view.players.filter((p) => !p.computer).map((p) => p.seat);
  const joined = people.filter((seat) => !view.waiting.includes(seat));
  setText($("lobby-joined"), joined.length ? `Joined: ${namesOf(joined)}.` : "");
  $("lobby-host").hidden = !view.host;
  $("lobby-guest").hidden = view.host;
}

async function getLinks() {
  const button = $("get-links");
  button.disabled = true;
  setText($("links-message"), "");
  try {
    const made = await patiently(() => api(`/api/games/${game}/links`, {}));
    localStorage.setItem(`links:${game}`, JSON.stringify(made.links));
    draw();
    const first = $("links").querySelector("a");
    if (first) first.focus();
  } catch (error) {
    setText($("links-message"), error.message);
  } finally {
    button.disabled = false;
  }
}

async function startAnyway() {
  const button = $("start-anyway");
  button.disabled = true;
  try {
    take(await patiently(() => api(`/api/games/${game}/start`, {})), false);
  } catch (error) {
    showMessage(error.message);
  } finally {
    button.disabled = false;
  }
}

function drawCoach() {
  const over = view.phase === "over";
  const chances = view.win_chances || [];
  $("coach-panel").hidden = !view.coach || over || waitingFor(view);   // no dice shown yet
  // the legend's upper bonus and Yahtzee chances are Yahtzee's (Poker Dice has neither)
  const yahtzee = yahtzeeCard(view.players[0]);
  for (const part of document.querySelectorAll("#coach-panel .yahtzee-only")) part.hidden = !yahtzee;
  const advice = canPlay() && !view.rolling && view.advice ? view.advice : "";   // none for dice gone
  for (const id of ["advice", "advice-low"]) {   // the second sits under the card on a phone
    setText($(id), advice);
    $(id).hidden = !advice;
  }
  const key = JSON.stringify([chances, view.options]);
  if ($("coach-panel").dataset.key !== key) {
    $("coach-panel").dataset.key = key;
    $("win-chances").replaceChildren(...(chances.length ? [el("span", {text: "Win chances: "})] : []),
      ...chances.map((c, i) => el("span", {text: `${c.name} ${c.shown}${i + 1 < chances.length ? ", " : ""}`,
                                           "data-testid": `win-chance-${c.seat}`})));
    $("options").replaceChildren(...(view.options || []).map((line) => el("li", {text: line})));
  }
  // what the numbers are, in a line each, where a casual player reads them (the legend says more)
  $("options-note").hidden = !(view.options || []).length;
  $("chances-note").hidden = !chances.length;
}

// "Ann: 231 = 254.6 expected + 12.3 luck - 35.9 decisions": the name, then the formula in one
// piece, so that a narrow screen puts the formula under the name rather than cut it anywhere;
// a screen too narrow even for that breaks it once, before the luck
function luckItem(line) {
  const parts = /^(.*:) (\d+ = .*)$/.exec(line);
  if (!parts) return el("li", {text: line});
  const terms = /^(.* expected) (.*)$/.exec(parts[2]) || [null, parts[2]];
  const pieces = terms.slice(1).filter(Boolean).map((text) => el("span", {text}));
  const formula = el("span", {class: "formula"}, ...pieces.flatMap((piece, i) => (i ? [" ", piece] : [piece])));
  return el("li", {}, el("span", {text: parts[1]}), " ", formula);
}

function drawEnd() {
  const over = view.phase === "over";
  $("end").hidden = !over;
  $("winner-line").hidden = !view.winner;
  setText($("winner-line"), view.winner || "");
  if (!over) return;
  const ranked = [...view.players].sort((a, b) => b.total - a.total);
  const key = JSON.stringify([ranked.map((p) => [p.name, p.total]), view.luck]);
  if ($("end").dataset.key !== key) {
    $("end").dataset.key = key;
    // equal totals share a place ("1. Sam, 1. Computer"), as the winner's line calls it a tie
    $("standings").replaceChildren(...ranked.map((p) => el("li", {
      value: String(1 + ranked.filter((q) => q.total > p.total).length),
      text: `${p.name}: ${p.total} points`})));
    $("luck").replaceChildren(...(view.luck || []).map(luckItem));
  }
  $("luck-box").hidden = !(view.luck && view.luck.length);
  // the win chances, and a computer that trades points for them, are a matter of two or more
  const versus = view.players.length > 1;
  $("luck-computer").hidden = !(versus && view.players.some((p) => p.kind === "computer"));
  $("review-chances").hidden = !versus;
  $("review-link").href = `/game/${encodeURIComponent(view.game)}/review`;
  // one watching without a seat's link has no place in this game to play again
  const seated = state.you.length > 0;
  $("play-again").hidden = !seated;
  setText($("new-other"), seated ? "New game with other players" : "Start a new game");
}

function drawMoves() {
  const list = $("moves");
  if (JSON.stringify(view.moves) === list.dataset.key) return;
  list.dataset.key = JSON.stringify(view.moves);
  list.replaceChildren(...view.moves.map((line) => el("li", {text: line})));
  list.scrollTop = list.scrollHeight;
}

// The newest move of another player, in view under the buttons (the moves' list may be far
// below, on a phone or a long card); one line whose room is kept, so nothing under it moves.
// Screen readers hear it from the live region (announce), so it is hidden from them here.
function drawLastMove(over) {
  // all on one screen: any move but those of the one to play, whose dice are above the line
  const seats = state.you.length === state.players.length ? [state.turn] : state.you;
  const names = seats.filter((seat) => state.players[seat - 1]).map((seat) => state.players[seat - 1].name);
  const line = [...state.moves].reverse().find(
    (text) => !names.some((name) => text.startsWith(`${name} `)));
  setText($("last-move"), line ? `Last: ${line}` : "");
  $("last-move").hidden = over || waitingFor(view);
  // a phone has no room for the line, but while another plays the buttons' room is idle: the
  // style sheet writes it there (controls::after), so nothing on the screen moves
  setAttr($("controls"), "data-last", line ? `Last: ${line}` : null);
  $("play").classList.toggle("others-turn", !over && !waitingFor(view) && !canPlay());
  // on a short phone your dice and buttons stay at the screen's top while the card scrolls
  $("play").classList.toggle("your-turn", canPlay());
}

// Say once what is new: the other players' moves, whose turn it is, the winner.
function announce() {
  const said = [];
  const moves = state.moves;
  let overlap = Math.min(lastMoves.length, moves.length);
  while (overlap > 0 && JSON.stringify(lastMoves.slice(-overlap)) !== JSON.stringify(moves.slice(0, overlap))) overlap--;
  const fresh = lastTurnKey === "" ? [] : moves.slice(overlap);
  const names = state.you.map((seat) => state.players[seat - 1].name);
  for (const line of fresh) {
    if (!names.some((name) => line.startsWith(`${name} `))) said.push(line);
  }
  lastMoves = moves;
  const gone = lastWaiting === null ? [] : lastWaiting.filter((seat) => !state.waiting.includes(seat));
  if (gone.length) said.push(`${namesOf(gone)} joined.`);
  if (lastStarted === false && state.started) said.push(mine(state) ? "The game starts. Your turn." : "The game starts.");
  lastWaiting = state.waiting;
  lastStarted = state.started;
  const turnKey = `${state.round}:${state.turn}:${state.phase}`;
  if (turnKey !== lastTurnKey) {
    if (state.phase === "over" && lastPhase !== "over") said.push(`Game over. ${state.winner || ""}`);
    else if (mine(state) && lastTurnKey.split(":").slice(0, 2).join(":") !== `${state.round}:${state.turn}`) {
      said.push(state.you.length > 1 ? `${state.turn_name}, your turn.` : "Your turn.");
    }
    lastTurnKey = turnKey;
  }
  lastPhase = state.phase;
  if (said.length) setText($("announce"), said.join(". "));
}

let favicon = "";
function drawTitle() {
  const turn = canPlay();
  const title = turn ? `Your turn · Yahtzee` : view.phase === "over" ? `Game over · Yahtzee`
              : waitingFor(view) ? `Waiting for players · Yahtzee` : `Yahtzee: ${view.title}`;
  if (document.title !== title) document.title = title;
  const icon = turn ? "/static/favicon-turn.svg" : "/static/favicon.svg";
  if (icon !== favicon) { $("favicon").setAttribute("href", icon); favicon = icon; }
}

let wasMine = null;
function draw() {
  if (view === null) return;
  $("loading").hidden = true;
  $("missing").hidden = true;
  $("table").hidden = false;
  // a frame of a turn played back carries the version it plays towards, for the next poll;
  // the table says the version it shows
  setAttr($("table"), "data-version", state.drawn === undefined ? state.version : state.drawn);
  setAttr($("table"), "data-pending", queue.length);
  const focused = document.activeElement;
  setText($("title"), view.title);
  setText($("status"), statusText());
  $("status").hidden = waitingFor(view);   // the waiting room says it, at the top
  const over = view.phase === "over";
  const watcher = view.you.length === 0;   // a link of no seat: nothing here is theirs to press
  $("watching").hidden = !watcher || over;
  // the maker's own browser, opened at the game's plain address: its links are its way in
  $("watching-yours").hidden = !watcher || state.hot_seat || storedLinks(view.game).length === 0;
  $("shortcuts-setting").hidden = watcher || over;   // at the end no key plays anything
  drawDice();
  const rolling = canPlay() && view.phase === "rolling";
  $("roll").disabled = !rolling;
  $("score").disabled = !rolling;
  setText($("rolls-left"), rolling ? `(${view.rolls_left} left)` : "");
  $("controls").hidden = over || waitingFor(view) || watcher;
  $("dice").hidden = over || waitingFor(view);
  drawLastMove(over);
  $("card-hint").hidden = over || waitingFor(view) || watcher;
  $("hint-mine").classList.toggle("unseen", !canPlay());   // both keep their room: the card stays put
  $("hint-theirs").classList.toggle("unseen", mine(view));   // none while your box is on its way
  drawCoach();
  drawCard();
  drawMoves();
  drawEnd();
  drawLobby();
  drawLinks();
  drawTitle();
  announce();
  const now = canPlay();
  if (now && wasMine === false) toTop();     // a new turn of yours: the dice in view
  if (over && wasMine !== null && lastShownOver !== true) toTop();
  lastShownOver = over;
  wasMine = now;
  // a control that went away (a box scored, the game over) hands focus to the table
  if (focused && focused !== document.body && (focused.disabled || focused.closest("[hidden]"))) {
    if (focused.closest("#table")) $("play").focus({preventScroll: true});
  }
}
let lastShownOver = null;

// The board's top, where the dice are when nothing is scrolled (a short phone keeps the dice
// themselves at the screen's top on your turn: app.css).
function toTop() {
  const board = $("play").parentNode.getBoundingClientRect();
  if (board.top < 0 || board.top > window.innerHeight / 3) window.scrollTo({top: 0, behavior: "auto"});
}

// -- keys ---------------------------------------------------------------------------
function shortcutsOn() {
  return localStorage.getItem("shortcuts") !== "off";
}

function keys(event) {
  if (!shortcutsOn() || view === null) return;
  if (event.target.closest && event.target.closest("input, select, textarea, summary")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (/^[1-5]$/.test(event.key)) enqueue({action: "toggle", die: Number(event.key)});
  else if (event.key === "r" || event.key === "R") enqueue({action: "roll"});
  else if (event.key === "s" || event.key === "S") enqueue({action: "score"});
  else return;
  event.preventDefault();
}

function setupShortcuts() {
  const box = $("shortcuts");
  box.checked = shortcutsOn();
  document.body.classList.toggle("no-shortcuts", !box.checked);
  box.addEventListener("change", () => {
    localStorage.setItem("shortcuts", box.checked ? "on" : "off");
    document.body.classList.toggle("no-shortcuts", !box.checked);
  });
}

// The same game anew: the settings this browser made it with, or (a seat's link opened on
// another device) the players, game, rules and coach the game itself shows, from the top.
async function playAgain() {
  const saved = localStorage.getItem(`settings:${game}`);
  const settings = saved ? JSON.parse(saved) : {
    players: state.players.map((p) => ({kind: p.kind, name: p.name})), game: state.variant,
    ...(state.rules ? {rules: state.rules} : {}), seed: "", coach: state.coach,
    hot_seat: state.hot_seat};
  startGame(settings, $("message"), $("play-again"));
}

async function showGame() {
  keepGame();
  buildDice();
  $("start-anyway").addEventListener("click", startAnyway);
  $("get-links").addEventListener("click", getLinks);
  patiently(() => api("/api/options")).then((got) => {
    options = got;
    if (got.address) shareOrigin = got.address;
    if (view !== null) draw();
  }, () => {});
  setupShortcuts();
  $("roll").addEventListener("click", () => enqueue({action: "roll"}));
  $("score").addEventListener("click", () => enqueue({action: "score"}));
  $("play-again").addEventListener("click", playAgain);
  document.addEventListener("keydown", keys);
  follow();
}

// A seat's link opened in a tab that shows its game already changes the hash alone, which
// loads nothing: the page reads its seat once, so it starts again with the link's.
window.addEventListener("hashchange", () => {
  if (game && decodeURIComponent(location.hash.slice(1)) !== secret) location.reload();
});
window.addEventListener("DOMContentLoaded", () => (game ? showGame() : showSetup()).catch((error) => {
  $("loading").hidden = true;
  document.querySelector("main").prepend(el("p", {class: "message", role: "alert", text: error.message}));
}));
