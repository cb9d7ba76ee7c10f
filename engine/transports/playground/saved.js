// What this browser keeps of its sessions (localStorage), so that a reload comes back to the
// same conversation. The server keeps each session's state and its completed tasks; the page
// keeps the session ids it used (the session list) and every turn as it saw it (the user's
// message, every event with its time, the DONE payload), which no endpoint gives back.

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

  remember(id, title) {
    const known = this.sessions();
    const old = known.find((s) => s.id === id);
    const entry = { id, title: safeTitle(title) || old?.title || "", updated: Date.now() };
    const kept = [entry, ...known.filter((s) => s.id !== id)];
    for (const gone of kept.splice(MAX_SESSIONS)) localStorage.removeItem(this.prefix + `turns:${gone.id}`);
    this.write("sessions", kept);
  }

  forget(id) {
    this.write("sessions", this.sessions().filter((s) => s.id !== id));
    localStorage.removeItem(this.prefix + `turns:${id}`);
    if (this.current === id) localStorage.removeItem(this.prefix + "current");
  }

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
