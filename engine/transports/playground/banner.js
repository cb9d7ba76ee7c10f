// The reload banner: under `flowctl serve --reload` an edit that breaks the flow leaves the
// last good version answering; GET /v1/agent/reload says so, with the findings (file:line:
// message), and the banner shows them until a version that compiles is loaded. A server
// not watching its files (or one that has no such route) is asked once, then never again.

import { $, el } from "./panels.js";

const RELOAD = "/v1/agent/reload";
const EVERY_MS = 1000;

function show(state) {
  const banner = $("reload-banner");
  banner.hidden = state.ok;
  if (state.ok) return;
  $("reload-findings").replaceChildren(...state.findings.map((f) =>
    el("li", {}, el("code", { textContent: `${f.file}:${f.line}:${f.column}` }), `: ${f.message}`)));
}

// Ask now and, while the server watches its files, every second (a server restarting after
// a good edit does not answer for a moment: asked again).
export async function watchReloads() {
  const response = await fetch(RELOAD, { cache: "no-store" }).catch(() => null);
  if (response && !response.ok) return;  // no such route, or no key yet: nothing to watch
  const state = response ? await response.json().catch(() => null) : null;
  if (state) show(state);
  if (state && !state.watching) return;
  setTimeout(watchReloads, EVERY_MS);
}
