// Edit a slot and continue: a ✎ beside each slot of the latest turn opens a small form; the
// value goes to POST /v1/agent/playground/edit (FLOWCTL_DEV_MODE only), which never writes this
// session: it forks it into a new one where the change waits for the user's yes, exactly
// as a correction the engine holds. The page then opens the fork with the buttons that
// answer it; the engine's own rules do the rest (validation, the stage machine: at a
// confirmation the question is asked again with the new value).

import { $, el } from "./panels.js";
import { t } from "./texts.js";

const EDIT = "/v1/agent/playground/edit";

// A typed value as JSON would carry it: numbers and booleans as such, the rest as text.
export function parseValue(text) {
  const value = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value === "true" || value === "false") return value === "true";
  return value;
}

// { ok, body } of the edit route: body is the fork ({session_id, buttons, ...}) or the error.
export async function requestEdit(sessionId, slot, value) {
  const response = await fetch(EDIT, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ session_id: sessionId, slot, value }),
  }).catch(() => null);
  if (!response) return { ok: false, body: { message: t("disconnected") } };
  const body = await response.json().catch(() => ({}));
  if (response.status === 404 && !body.message) body.message = t("editUnavailable");
  return { ok: response.status === 201, body };
}

function openEditor(row, name, onEdit) {
  const cell = row.cells[1];
  const input = el("input", { className: "slot-input", name: `slot-${name}` });
  input.setAttribute("aria-label", t("editSlot", { slot: name }));
  const form = el("form", { className: "slot-edit" }, input,
    el("button", { type: "submit", textContent: t("editApply") }),
    el("button", { type: "button", textContent: "×", onclick: () => form.replaceWith(...kept) }));
  const kept = [...cell.childNodes];
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value.trim()) onEdit(name, parseValue(input.value));
  });
  cell.replaceChildren(form);
  input.focus();
}

// Give each slot row of the state panel its ✎ (only `editable`: the latest turn, with
// FLOWCTL_DEV_MODE on).
export function offerEdits(editable, onEdit) {
  $("edit-error").textContent = "";
  for (const row of $("slots").tBodies[0].rows) {
    const name = row.cells[0].textContent;
    const edit = el("button", { type: "button", className: "edit", textContent: "✎",
                                title: t("editSlot", { slot: name }),
                                onclick: () => openEditor(row, name, onEdit) });
    edit.setAttribute("aria-label", t("editSlot", { slot: name }));
    edit.hidden = !editable;
    row.append(el("td", { className: "edit-cell" }, edit));
  }
}
