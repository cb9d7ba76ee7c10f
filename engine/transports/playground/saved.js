// What this browser keeps of its sessions (localStorage), so that a reload comes back to the
// same conversation. The server keeps each session's state and its completed tasks; the page
// keeps the session ids it used (the session list) and every turn as it saw it (the user's
// message, every event with its time, the DONE payload), which no endpoint gives back, and
// for a fork where it came from (fork.js, edit.js).

const MAX_SESSIONS = 30;
const MAX_TURNS = 200;  // per session; the oldest go first (localStorage holds ~5 MB)

export class Saved {
  constructor(service) {
    this.prefix = `flowctl:${service}:`;
  }

  read(key, fallback) {
    try {
      return JSON.parse(localStorage.getItem(this.prefix + key)) ?? fallback;
    } catch {
      return fallback;
    }
  }

  write(key, value) {
    try {
      localStorage.setItem(this.prefix + key, JSON.stringify(value));
    } catch (err) {  // full, or storage switched off: the page still works, unsaved
      console.warn("could not save", key, err);
    }
  }

  get current() { return this.read("current", null); }
  set current(id) { this.write("current", id); }

  // [{id, title, updated}], the most recently used first.
  sessions() { return this.read("sessions", []); }

  // Note that session `id` was used now; its title is the first one given (`rename` changes it).
  remember(id, title, { rename = false } = {}) {
    const known = this.sessions();
    const old = known.find((s) => s.id === id);
    const named = rename ? safeTitle(title) || old?.title : old?.title || safeTitle(title);
    const entry = { id, title: named || "", updated: Date.now() };
    const kept = [entry, ...known.filter((s) => s.id !== id)];
    for (const gone of kept.splice(MAX_SESSIONS)) this.drop(gone.id);
    this.write("sessions", kept);
  }

  forget(id) {
    this.write("sessions", this.sessions().filter((s) => s.id !== id));
    this.drop(id);
    if (this.current === id) localStorage.removeItem(this.prefix + "current");
  }

  drop(id) {
    for (const key of [`turns:${id}`, `origin:${id}`]) localStorage.removeItem(this.prefix + key);
  }

  title(id) { return this.sessions().find((s) => s.id === id)?.title || ""; }

  // A fork's origin: {kind: "rewind" | "edit", from, title, turn, stop?, slot?, value?}.
  origin(id) { return this.read(`origin:${id}`, null); }

  setOrigin(id, origin) { this.write(`origin:${id}`, origin); }

  turns(id) { return this.read(`turns:${id}`, []); }

  saveTurns(id, turns) { this.write(`turns:${id}`, turns.slice(-MAX_TURNS)); }
}

// The page's language before the service says it (the login prompt): the last one seen.
export const lastLocale = {
  get() { return localStorage.getItem("flowctl:locale") || "ko"; },
  set(locale) {
    try { localStorage.setItem("flowctl:locale", locale); } catch { /* unsaved */ }
  },
};

// A session is titled by its first message; a card or account number in it is never kept
// (the list lives in the browser's storage): runs of more than four digits become •••.
export function safeTitle(text) {
  return (text || "").replace(/\d(?:[\s-]?\d){4,}/g, "•••");
}
