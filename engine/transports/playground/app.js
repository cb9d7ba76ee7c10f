// flowctl playground: one EventSource per message, no framework.
// Tokens are appended as they arrive; DONE replaces them with the final message and brings
// the buttons, the state, the trace and the hooks. Every turn is kept (saved.js), so the
// timeline runs across turns and a reload comes back to the same session; clicking a turn
// in the timeline shows the state, trace, hooks and graph as they were after it. A turn that
// starts a background run opens it in the Runs panel (runs.js), which a reload replays.
// A server with API keys answers 401 until the page logs in: the key prompt trades the key
// for an HttpOnly cookie (POST /v1/agent/login), which the EventSource then carries.
// Any turn can be continued in a new session (fork.js: a replay), a slot of the latest turn
// changed in a new session (edit.js), and a broken edit under --reload shows (banner.js).

import { watchReloads } from "./banner.js";
import { offerEdits } from "./edit.js";
import { editSlot, forkAt, initForks, showOrigin } from "./forks.js";
import { drawGraph } from "./graph.js";
import {
  $, el, eventRow, renderCompleted, renderHooks, renderStack, renderState, renderTrace,
  turnGroup,
} from "./panels.js";
import { initRuns, runStarted, showRuns } from "./runs.js";
import { Saved, lastLocale } from "./saved.js";
import { apply, setLocale, t } from "./texts.js";

const EVENTS = ["AGENT_START", "LLM_TOKEN", "LLM_DONE", "AGENT_DONE", "TASK_PROGRESS", "DONE"];
const API = "/v1/agent";

const ui = {
  serviceName: null,
  view: null,        // GET /v1/agent/service: description, examples, flow graphs, locale
  saved: null,       // this browser's sessions and their turns
  sessionId: null,
  turns: [],         // [{user, at, events: [{name, at, data, count?, text?}], done, ttft}]
  selected: null,    // the turn the panels show
  graphFlow: null,   // the flow whose graph is shown (null: the selected turn's)
  busy: false,
  replaying: false,  // a fork's replay owns the composer until it ends
  maxChars: 4000,
  devMode: false,
};

function localSessionId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return "pg-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// A fresh id from the server (unguessable); null when the server wants a key first.
async function newSessionId() {
  const response = await fetch(`${API}/sessions`, { method: "POST" });
  if (response.status === 401) return null;
  if (!response.ok) return localSessionId();
  return (await response.json()).session_id;
}

// -- login ------------------------------------------------------------------------------------

function askForKey(why) {
  $("login").hidden = false;
  $("login-error").textContent = why || "";
  setBusy(true);
  $("api-key").focus();
}

async function logIn(event) {
  event.preventDefault();
  const key = $("api-key").value.trim();
  if (!key) return;
  const response = await fetch(`${API}/login`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ key }),
  });
  if (!response.ok) {
    $("login-error").textContent = response.status === 429 ? t("tryLater") : t("wrongKey");
    return;
  }
  $("api-key").value = "";
  $("login").hidden = true;
  setBusy(false);
  if (!ui.view && await loadService()) watchReloads();
  if (!ui.sessionId) await resume();
}

// -- the service: what it does, what to try, its graphs ---------------------------------------

// False when the server wants a key first; without the description (an older server, a
// failure) the page still chats, in the last language it used.
async function loadService() {
  const response = await fetch(`${API}/service`).catch(() => null);
  if (response?.status === 401) {
    askForKey();
    return false;
  }
  if (!response?.ok) {
    console.warn("GET /v1/agent/service failed", response?.status);
    return true;
  }
  ui.view = await response.json();
  setLocale(ui.view.locale);
  lastLocale.set(ui.view.locale);
  apply();
  $("description").textContent = ui.view.description;
  $("examples").replaceChildren(...ui.view.examples.map((example) =>
    el("button", { type: "button", className: "example", textContent: example,
                   onclick: () => send(example) })));
  $("about").hidden = !ui.view.description && !ui.view.examples.length;
  if (ui.view.examples.length) {
    $("input").placeholder = t("placeholderExample", { example: ui.view.examples[0] });
  }
  return true;
}

// -- sessions ---------------------------------------------------------------------------------

async function resume() {
  const known = ui.saved.current;
  if (known) await openSession(known);
  else await startSession();
}

// The new session's id, or null when the server wants a key first.
async function startSession() {
  const id = await newSessionId().catch(() => localSessionId());
  if (id === null) {
    ui.sessionId = null;
    askForKey();
    return null;
  }
  await openSession(id);
  return id;
}

async function openSession(id) {
  ui.sessionId = id;
  ui.saved.current = id;
  ui.turns = ui.saved.turns(id);
  ui.saved.remember(id, ui.turns[0]?.user);
  ui.graphFlow = null;
  $("session-id").textContent = id;
  $("debug-link").href = `${API}/debug/${encodeURIComponent(id)}`;
  $("messages").replaceChildren();
  showOrigin(ui.saved, id);
  for (const turn of ui.turns) {
    bubble("user", turn.user);
    const reply = bubble("assistant", turn.done ? turn.done.message : t("disconnected"));
    if (!turn.done) reply.classList.add("failed");
  }
  const last = ui.turns.at(-1)?.done;
  setButtons(last?.ui_hint?.buttons);
  renderTimeline();
  select(ui.turns.length ? ui.turns.length - 1 : null);
  renderSessions();
  refreshCompleted();
  if (ui.view?.runs !== false) showRuns(id);  // a flow with no background stage has none
  $("input").focus();
}

async function forget(id) {
  await fetch(`${API}/sessions/${encodeURIComponent(id)}`, { method: "DELETE" }).catch(() => null);
  ui.saved.forget(id);
  if (id === ui.sessionId) await startSession();
  else renderSessions();
}

function renderSessions() {
  $("sessions").replaceChildren(...ui.saved.sessions().map((s) => {
    const open = el("button", { type: "button", className: "open",
                                textContent: s.title || t("untitled"),
                                title: `${s.id} · ${new Date(s.updated).toLocaleString()}`,
                                onclick: () => { if (!ui.busy) openSession(s.id); } });
    const drop = el("button", { type: "button", className: "forget", textContent: "×",
                                title: t("forgetTitle"), onclick: () => forget(s.id) });
    drop.setAttribute("aria-label", t("forget"));
    const item = el("li", { className: s.id === ui.sessionId ? "current" : "" }, open, drop);
    if (s.id === ui.sessionId) item.setAttribute("aria-current", "true");
    return item;
  }));
}

async function refreshCompleted() {
  if (!ui.turns.length) {  // nothing ran yet: the server knows no such session (404)
    renderCompleted([]);
    return;
  }
  const query = new URLSearchParams({ session_id: ui.sessionId });
  const response = await fetch(`${API}/completed?${query}`).catch(() => null);
  renderCompleted(response && response.ok ? (await response.json()).completed : []);
}

// -- the panels of the selected turn ----------------------------------------------------------

function select(index) {
  ui.selected = index;
  const turn = index === null ? null : ui.turns[index];
  const done = turn?.done;
  renderState(done?.state_snapshot, done?.next_action ?? null);
  renderStack(done?.state_snapshot, pushesUpTo(index));
  offerEdits(ui.devMode && index !== null && index === ui.turns.length - 1
             && Boolean(done?.state_snapshot?.flow) && done.next_action !== "DONE", editSlot);
  renderTrace(turn, index + 1);
  renderHooks(done?.hooks);
  $("timeline").querySelectorAll(".turn").forEach((node, i) =>
    node.classList.toggle("selected", i === index));
  const last = turn?.events.at(-1);
  $("timeline-total").textContent = last ? `+${last.at.toFixed(1)} ms` : "";
  renderGraph();
}

// flow -> the reason of its latest push (DONE's _trace.stack) up to turn `index`.
function pushesUpTo(index) {
  const pushes = {};
  for (const turn of ui.turns.slice(0, (index ?? -1) + 1)) {
    for (const op of turn.done?._trace?.stack || []) if (op.op === "push") pushes[op.flow] = op.reason;
  }
  return pushes;
}

function snapshotAt(index) {
  for (let i = index; i >= 0; i -= 1) if (ui.turns[i]?.done) return ui.turns[i].done.state_snapshot;
  return null;
}

function renderGraph() {
  if (!ui.view) return;
  const snapshot = ui.selected === null ? null : snapshotAt(ui.selected);
  const shown = ui.graphFlow || snapshot?.flow || ui.view.default_flow;
  const graph = ui.view.flows.find((f) => f.name === shown) || ui.view.flows[0];
  const visited = new Set(ui.turns.slice(0, (ui.selected ?? -1) + 1)
    .map((turn) => turn.done?.state_snapshot)
    .filter((s) => s && s.flow === graph.name).map((s) => s.stage));
  const current = snapshot?.flow === graph.name ? snapshot.stage : null;
  $("graph").dataset.flow = graph.name;
  drawGraph($("graph"), graph, current, visited);
  $("graph-flows").replaceChildren(...ui.view.flows.map((flow) => {
    const tab = el("button", { type: "button", textContent: flow.name, title: flow.description,
                               onclick: () => { ui.graphFlow = flow.name; renderGraph(); } });
    if (flow.name === graph.name) tab.setAttribute("aria-pressed", "true");
    return tab;
  }));
}

function renderTimeline() {
  $("timeline").replaceChildren(...ui.turns.map((turn, i) => turnGroup(turn, i, (index) => {
    ui.graphFlow = null;
    select(index);
  }, forkAt)));
}

// -- chat -------------------------------------------------------------------------------------

function bubble(role, content) {
  const body = el("div", { className: "text", textContent: content });
  const item = el("li", { className: `msg ${role}` }, body);
  $("messages").append(item);
  keepEnd();
  return item;
}

// The newest message stays wholly in view: scrolled to after the layout settles, since a
// reply grows as it streams and the buttons that come with it take height from the list.
function keepEnd() {
  requestAnimationFrame(() => {
    const messages = $("messages");
    messages.scrollTop = messages.scrollHeight;
  });
}

function setButtons(buttons) {
  $("buttons").replaceChildren(...(buttons || []).map((label) =>
    el("button", { type: "button", textContent: label, onclick: () => send(label) })));
  keepEnd();
}

function setBusy(busy) {
  ui.busy = busy;
  $("send").disabled = busy;
  for (const button of document.querySelectorAll("#buttons button, #examples button")) {
    button.disabled = busy;
  }
}

// Record an event of `turn` and show it in the timeline (consecutive tokens folded).
function record(turn, group, name, data, at) {
  const last = turn.events.at(-1);
  if (name === "LLM_TOKEN") {
    turn.ttft ??= at;
    if (last?.name === "LLM_TOKEN") {
      last.count += 1;
      last.text += data;
      last.at = at;
      group.lastChild.replaceWith(eventRow(last));
      return;
    }
    turn.events.push({ name, at, data: null, count: 1, text: data });
  } else {
    turn.events.push({ name, at, data });
  }
  group.append(eventRow(turn.events.at(-1)));
  $("timeline-total").textContent = `+${at.toFixed(1)} ms`;
}

// -- one turn over EventSource ----------------------------------------------------------------

// Send one message; the turn's DONE once it came (null: refused here, failed or cut off).
// A fork's replay sends with `replay`; nothing else may send while it runs.
function send(raw, { replay = false } = {}) {
  const message = raw ?? $("input").value;
  if (ui.busy || (ui.replaying && !replay)) return Promise.resolve(null);
  if (!ui.sessionId) { askForKey(); return Promise.resolve(null); }
  if (message.length > ui.maxChars) {
    bubble("error", t("tooLong", { limit: ui.maxChars }));
    return Promise.resolve(null);
  }
  let settle;
  const answered = new Promise((resolve) => { settle = resolve; });
  $("input").value = "";
  bubble("user", message);
  setButtons([]);
  setBusy(true);
  const reply = bubble("assistant pending", "");
  const text = reply.querySelector(".text");
  const status = el("div", { className: "status", textContent: "…" });
  reply.append(status);

  const turn = { user: message, at: Date.now(), events: [], done: null, ttft: null };
  ui.turns.push(turn);
  const index = ui.turns.length - 1;
  const item = turnGroup(turn, index, (i) => { ui.graphFlow = null; select(i); }, forkAt);
  $("timeline").append(item);
  const timeline = $("timeline");  // its own scroll box: the column never jumps to it
  timeline.scrollTop = timeline.scrollHeight;
  const group = item.querySelector(".events");
  const saveTurns = () => {
    ui.saved.saveTurns(ui.sessionId, ui.turns);
    if (index === 0) { ui.saved.remember(ui.sessionId, message); renderSessions(); }
  };
  const started = performance.now();
  const query = new URLSearchParams({ session_id: ui.sessionId, message });
  const source = new EventSource(`${API}/chat/stream?${query}`);
  let finished = false;

  const handlers = {
    AGENT_START: (d) => { status.textContent = `${d.label}…`; },
    LLM_TOKEN: (d) => { text.textContent += d; keepEnd(); },
    TASK_PROGRESS: (d) => { status.textContent = t("task", d); },
    DONE: (d) => {
      finished = true;
      source.close();
      turn.done = d;
      saveTurns();
      text.textContent = d.message;
      status.remove();
      reply.classList.remove("pending");
      setButtons(d.ui_hint?.buttons);
      ui.graphFlow = null;
      select(index);
      refreshCompleted();
      if (d.state_snapshot?.meta?.run) runStarted(d.state_snapshot.meta.run);
      setBusy(false);
      item.querySelector(".fork").hidden = false;
      $("input").focus();
      settle(d);
    },
  };
  for (const name of EVENTS) {
    source.addEventListener(name, (event) => {
      const data = JSON.parse(event.data);
      record(turn, group, name, data, performance.now() - started);
      handlers[name]?.(data);
    });
  }
  source.onerror = async () => {
    if (finished) return;
    source.close();  // never let the browser resend the message by itself
    reply.classList.replace("pending", "failed");
    turn.failed = true;
    item.replaceWith(turnGroup(turn, index, (i) => { ui.graphFlow = null; select(i); }, forkAt));
    saveTurns();
    setBusy(false);
    settle(null);
    // An EventSource hides the status: a server that still answers failed this turn (an
    // HTTP error, a stream cut before DONE); one that does not is out of reach.
    status.textContent = t("disconnected");
    const alive = await fetch("/healthz").then((r) => r.ok).catch(() => false);
    if (alive) status.textContent = t("serverFailed");
    // An EventSource cannot tell a 401: ask the server whether a key is wanted now.
    const probe = await fetch(`${API}/sessions`, { method: "POST" }).catch(() => null);
    if (probe && probe.status === 401) askForKey(t("loginNeeded"));
  };
  return answered;
}

async function init() {
  setLocale(lastLocale.get());
  apply();
  renderState({}, null);
  renderStack({});
  renderHooks([]);
  renderCompleted([]);
  $("composer").addEventListener("submit", (event) => { event.preventDefault(); send(); });
  $("new-session").addEventListener("click", async () => {
    if (ui.busy || ui.replaying) return;
    setBusy(true);  // a message sent meanwhile would go to the session being left
    if (await startSession() !== null) setBusy(false);  // null: the login form holds it
  });
  $("login").addEventListener("submit", logIn);
  initRuns({ onEnd: () => refreshCompleted() });
  initForks({ ui, send, startSession, openSession, setButtons, renderSessions });
  try {
    const health = await (await fetch("/healthz")).json();
    ui.serviceName = health.service;
    $("service").textContent = health.service;
    document.title = `flowctl · ${health.service}`;
    ui.maxChars = health.max_message_chars;  // longer is refused, never cut (no maxLength)
    $("debug-link").hidden = !health.dev_mode;
    ui.devMode = Boolean(health.dev_mode);
  } catch (err) {
    console.warn("healthz failed", err);
  }
  ui.saved = new Saved(ui.serviceName || "flowctl");
  if (await loadService()) {
    watchReloads();
    await resume();
  }
  document.body.dataset.ready = "true";
}

init();
