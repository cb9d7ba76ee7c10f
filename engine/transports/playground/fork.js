// Rewind and fork: continue the conversation from an earlier turn in a NEW session; the
// original stays as it is.
// The server keeps only a session's current state (no per-turn snapshots), so a fork is a
// replay: a fresh session id, and the user's messages up to the chosen turn sent again
// through the ordinary chat stream, as the user sent them. That is honest for a flow that
// answers the same way twice (offline rules, scripted replies); where a reply comes out
// different (a model, a clock, another balance) the replay stops at that turn and says so.
// A turn that ran an irreversible action (its DONE's _trace names one of the service's
// `irreversible` actions: money moved, or may have) is never sent again, nor is a yes to a
// confirmation (the turn after a CONFIRM whose reading was `confirm`: where a replayed world
// that drifted could move money the original did not): the replay stops before it and
// says so.

import { t } from "./texts.js";

// The irreversible action `turn` ran (or tried), else null.
export function moneyMoved(turn, irreversible) {
  const agents = turn?.done?._trace?.agents || [];
  return agents.find((a) => irreversible.includes(a.agent))?.agent ?? null;
}

// Whether `turn` said yes to the confirmation the turn before it asked for.
function confirmed(turn, before) {
  return before?.done?.next_action === "CONFIRM" && turn.done?._trace?.reading?.decision === "confirm";
}

// What forking at turn `index` replays: the turns before the first one that moved money,
// confirmed, or got no answer (`stop`: that turn's index and why), up to `index` itself.
export function forkPlan(turns, index, irreversible) {
  const replayed = [];
  for (const [i, turn] of turns.slice(0, index + 1).entries()) {
    const action = moneyMoved(turn, irreversible);
    if (action) return { replayed, stop: { turn: i, why: "money", action } };
    if (confirmed(turn, turns[i - 1])) return { replayed, stop: { turn: i, why: "confirm" } };
    if (!turn.done) return { replayed, stop: { turn: i, why: "unanswered" } };
    replayed.push(turn);
  }
  return { replayed, stop: null };
}

// The words that say how a fork went (kept with the fork's session, shown above its chat).
export function forkNote(origin) {
  const parts = [t("forkedFrom", { turn: origin.turn + 1, title: origin.title || origin.from })];
  const stop = origin.stop;
  if (stop?.why === "money") parts.push(t("forkStopMoney", { turn: stop.turn + 1, action: stop.action }));
  if (stop?.why === "confirm") parts.push(t("forkStopConfirm", { turn: stop.turn + 1 }));
  if (stop?.why === "unanswered") parts.push(t("forkStopUnanswered", { turn: stop.turn + 1 }));
  if (stop?.why === "diverged") parts.push(t("forkStopDiverged", { turn: stop.turn + 1 }));
  if (stop?.why === "failed") parts.push(t("forkStopFailed", { turn: stop.turn + 1 }));
  return parts.join(" ");
}

// Replay `plan` into a fresh session. `page`: { start(): the new session's id (opened, empty)
// or null, send(text): the turn's DONE or null, note(origin): show and keep the fork's note }.
export async function fork(plan, origin, page) {
  const id = await page.start();
  if (id === null) return null;
  let stop = plan.stop;
  for (const [i, turn] of plan.replayed.entries()) {
    const done = await page.send(turn.user);
    if (!done) { stop = { turn: i, why: "failed" }; break; }
    if (done.message !== turn.done.message) {  // no longer the same conversation: stop here
      stop = { turn: i, why: "diverged" };
      break;
    }
  }
  const note = { ...origin, stop };
  page.note(note);
  return note;
}
