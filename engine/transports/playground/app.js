// flowctl playground: one EventSource per message (the seed's React example, without React).
// Tokens are appended as they arrive, DONE replaces them with the final message and brings
// the buttons and the state snapshot; the timeline shows each event relative to the request.
// A server with API keys answers 401 until the page logs in: the key prompt trades the key
// for an HttpOnly cookie (POST /v1/agent/login), which the EventSource then carries.
"use strict";

const EVENTS = ["AGENT_START", "LLM_TOKEN", "LLM_DONE", "AGENT_DONE", "TASK_PROGRESS", "DONE"];
const $ = (id) => document.getElementById(id);

const ui = {
  sessionId: null,
  busy: false,
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
  const response = await fetch("/v1/agent/sessions", { method: "POST" });
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
  const response = await fetch("/v1/agent/login", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ key }),
  });
  if (!response.ok) {
    $("login-error").textContent = response.status === 429
      ? "잠시 후 다시 시도해 주세요." : "키가 올바르지 않아요.";
    return;
  }
  $("api-key").value = "";
  $("login").hidden = true;
  setBusy(false);
  if (!ui.sessionId) await startSession();
}

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function show(value) {
  if (value === null || value === undefined || value === "") return "–";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

// -- chat -------------------------------------------------------------------------------------

function bubble(role, content) {
  const body = el("div", { className: "text", textContent: content });
  const item = el("li", { className: `msg ${role}` }, body);
  $("messages").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

function setButtons(buttons) {
  const box = $("buttons");
  box.replaceChildren(...(buttons || []).map((label) =>
    el("button", { type: "button", textContent: label, onclick: () => send(label) })));
}

function setBusy(busy) {
  ui.busy = busy;
  $("send").disabled = busy;
  for (const button of $("buttons").querySelectorAll("button")) button.disabled = busy;
}

// -- state and timeline -----------------------------------------------------------------------

function renderState(snapshot, nextAction) {
  const s = snapshot || {};
  $("flow").textContent = show(s.flow);
  $("stage").textContent = show(s.stage);
  $("next-action").textContent = show(nextAction);
  const meta = s.meta || {};
  $("batch").textContent = meta.batch_total
    ? `${(meta.batch_progress || 0) + 1} / ${meta.batch_total}` : "–";
  const missing = new Set(nextAction === "DONE" ? [] : s.missing_required || []);
  const rows = Object.entries(s.slots || {}).map(([name, value]) =>
    el("tr", { className: missing.has(name) ? "missing" : "" },
      el("th", { textContent: name }), el("td", { textContent: show(value) })));
  $("slots").tBodies[0].replaceChildren(...rows);
  const errors = Object.entries(meta.slot_errors || {});
  $("slot-errors").replaceChildren(...(errors.length
    ? errors.map(([name, why]) => el("li", {}, el("b", { textContent: name }), ": " + why))
    : [el("li", { className: "none", textContent: "none" })]));
  const queue = s.task_queue || [];
  $("task-queue").replaceChildren(...(queue.length
    ? queue.map((task) => el("li", { textContent: show(task) }))
    : [el("li", { className: "none", textContent: "empty" })]));
}

function describe(name, data) {
  switch (name) {
    case "AGENT_START": return `${data.agent} · ${data.label}`;
    case "AGENT_DONE":
      return `${data.agent} ${data.success ? "✓" : "✗"}` + (data.stage ? ` → ${data.stage}` : "")
        + (data.result !== undefined ? ` · ${show(data.result)}` : "");
    case "LLM_DONE": return `${data.action || ""} ${data.message || ""}`.trim();
    case "TASK_PROGRESS": return `task ${data.index}/${data.total} ${show(data.slots)}`;
    case "DONE": return `${data.next_action} · ${data.state_snapshot?.stage ?? "–"}`;
    default: return show(data);
  }
}

function timeline(started) {
  const list = $("timeline");
  list.replaceChildren();
  $("timeline-total").textContent = "";
  let tokens = null;
  return (name, data) => {
    const at = `+${(performance.now() - started).toFixed(1)} ms`;
    if (name === "LLM_TOKEN" && tokens) {
      tokens.count += 1;
      tokens.node.querySelector(".what").textContent = `×${tokens.count}`;
      tokens.node.querySelector(".at").textContent = at;
      return;
    }
    const node = el("li", { className: `ev ${name}` },
      el("span", { className: "at", textContent: at }),
      el("span", { className: "name", textContent: name }),
      el("span", { className: "what", textContent: name === "LLM_TOKEN" ? "×1" : describe(name, data) }));
    tokens = name === "LLM_TOKEN" ? { node, count: 1 } : null;
    list.append(node);
    if (name === "DONE") $("timeline-total").textContent = at;
  };
}

// -- one turn over EventSource ----------------------------------------------------------------

function send(raw) {
  const message = raw ?? $("input").value;
  if (ui.busy) return;
  if (!ui.sessionId) { askForKey(); return; }
  if (message.length > ui.maxChars) {
    bubble("error", `메시지가 너무 길어요. ${ui.maxChars}자 이내로 입력해 주세요.`);
    return;
  }
  $("input").value = "";
  bubble("user", message);
  setButtons([]);
  setBusy(true);
  const reply = bubble("assistant pending", "");
  const text = reply.querySelector(".text");
  const status = el("div", { className: "status", textContent: "…" });
  reply.append(status);
  const record = timeline(performance.now());
  const query = new URLSearchParams({ session_id: ui.sessionId, message });
  const source = new EventSource(`/v1/agent/chat/stream?${query}`);
  let finished = false;

  const handlers = {
    AGENT_START: (d) => { status.textContent = `${d.label}…`; },
    LLM_TOKEN: (d) => { text.textContent += d; },
    TASK_PROGRESS: (d) => { status.textContent = `작업 ${d.index}/${d.total}`; },
    DONE: (d) => {
      finished = true;
      source.close();
      text.textContent = d.message;
      status.remove();
      reply.classList.remove("pending");
      setButtons(d.ui_hint?.buttons);
      renderState(d.state_snapshot, d.next_action);
      setBusy(false);
      $("input").focus();
    },
  };
  for (const name of EVENTS) {
    source.addEventListener(name, (event) => {
      const data = JSON.parse(event.data);
      record(name, data);
      handlers[name]?.(data);
    });
  }
  source.onerror = async () => {
    if (finished) return;
    source.close();  // never let the browser resend the message by itself
    status.textContent = "연결이 끊겼어요. 다시 시도해 주세요.";
    reply.classList.replace("pending", "failed");
    setBusy(false);
    // An EventSource cannot tell a 401: ask the server whether a key is wanted now.
    const probe = await fetch("/v1/agent/sessions", { method: "POST" }).catch(() => null);
    if (probe && probe.status === 401) askForKey("로그인이 필요해요.");
  };
}

async function startSession() {
  const id = await newSessionId().catch(() => localSessionId());
  if (id === null) {
    ui.sessionId = null;
    askForKey();
    return;
  }
  ui.sessionId = id;
  $("session-id").textContent = ui.sessionId;
  $("debug-link").href = `/v1/agent/debug/${encodeURIComponent(ui.sessionId)}`;
  $("messages").replaceChildren();
  $("timeline").replaceChildren();
  $("timeline-total").textContent = "";
  setButtons([]);
  renderState({}, null);
  $("input").focus();
}

async function init() {
  $("composer").addEventListener("submit", (event) => { event.preventDefault(); send(); });
  $("new-session").addEventListener("click", startSession);
  $("login").addEventListener("submit", logIn);
  await startSession();
  try {
    const health = await (await fetch("/healthz")).json();
    $("service").textContent = health.service;
    document.title = `flowctl · ${health.service}`;
    ui.maxChars = health.max_message_chars;
    $("input").maxLength = health.max_message_chars;
    $("debug-link").hidden = !health.dev_mode;
  } catch (err) {
    console.warn("healthz failed", err);
  }
  document.body.dataset.ready = "true";
}

init();
