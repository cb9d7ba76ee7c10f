// The page's two ways to branch a conversation into a NEW session, the original left as it
// is: continue from an earlier turn (fork.js: a replay) or with a slot of the latest turn
// changed (edit.js: the server holds the change for the user's yes). A fork remembers where
// it came from, said above its chat.

import { requestEdit } from "./edit.js";
import { fork, forkNote, forkPlan } from "./fork.js";
import { $, show } from "./panels.js";
import { t } from "./texts.js";

// { ui, send, startSession, openSession, setButtons, renderSessions } of app.js
let page = null;

export function initForks(app) { page = app; }

// Say above the chat where session `id` was forked from (nothing for a session that wasn't).
export function showOrigin(saved, id) {
  const origin = saved.origin(id);
  $("notice").hidden = !origin;
  $("notice").textContent = !origin ? "" : origin.kind === "edit"
    ? t("editHeld", { title: origin.title || origin.from, slot: origin.slot,
                      value: origin.value, yes: origin.yes })
    : forkNote(origin);
}

// Continue the conversation from turn `index` in a new session (its messages sent again).
export async function forkAt(index) {
  const { ui } = page;
  if (ui.busy || ui.replaying) return;
  const from = ui.sessionId;
  const title = ui.saved.title(from);
  const plan = forkPlan(ui.turns, index, ui.view?.irreversible || []);
  ui.replaying = true;
  try {
    await fork(plan, { kind: "rewind", from, title, turn: index }, {
      start: page.startSession,
      send: (text) => page.send(text, { replay: true }),
      note: (origin) => {
        ui.saved.setOrigin(ui.sessionId, origin);
        showOrigin(ui.saved, ui.sessionId);
      },
    });
  } finally {
    ui.replaying = false;
  }
  ui.saved.remember(ui.sessionId, `⑂ ${title || t("untitled")}`, { rename: true });
  page.renderSessions();
}

// Change `slot` to `value` in a new session forked from the current one; the change waits
// for the user's yes (the buttons the server names).
export async function editSlot(slot, value) {
  const { ui } = page;
  if (ui.busy || ui.replaying) return;
  const answer = await requestEdit(ui.sessionId, slot, value);
  if (!answer.ok) {
    $("edit-error").textContent = answer.body.message || answer.body.error || "";
    return;
  }
  const forked = answer.body;
  const title = ui.saved.title(ui.sessionId);
  ui.saved.saveTurns(forked.session_id, ui.turns);  // what led to the state it was forked from
  ui.saved.setOrigin(forked.session_id, {
    kind: "edit", from: ui.sessionId, title, slot, value: show(forked.value),
    yes: forked.buttons[0], turn: ui.turns.length - 1,
  });
  ui.saved.remember(forked.session_id, `⑂ ${title || t("untitled")}`, { rename: true });
  await page.openSession(forked.session_id);
  page.setButtons(forked.buttons);
}
