"""The playground's flow stack panel, the reload banner and the stage graph's edge labels, in
Debian's headless Chromium (DOM structure and text, and boxes for overlap; never pixels);
and ``GET /v1/agent/reload`` over HTTP."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from engine.compiler import compile_file
from engine.config import Settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from engine.transports.http import reload_status
from engine.transports.http.reload_status import ReloadState
from tests.server.conftest import ROOT, MakeServer
from tests.server.test_auth import KEY_A, bearer
from tests.server.test_playground import browser, open_playground, page, say
from tests.server.test_reload import Reloading, flow_text

__all__ = ["browser", "page"]  # the fixtures, shared with test_playground

RELOAD = "/v1/agent/reload"


def served(make_server: MakeServer, flow: Path) -> str:
    engine = Engine(compile_file(flow), store=MemoryStore(), settings=Settings(dev_mode=True))
    return make_server(engine=engine).url


def ready(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


# -- the flow stack ---------------------------------------------------------------------------

KINDS = "() => [...document.querySelectorAll('#stack li.frame')].map((li) => li.dataset.kind)"


def shows_frames(page: Page, expected: list[tuple[str, str]]) -> None:
    """Waits until the stack lists ``expected`` (kind, text) frames. Waiting on the texts
    first matters: the panel re-renders as the session changes, and a count taken from the
    previous render would read elements that are about to go."""
    expect(page.locator("#stack li.frame")).to_have_text([text for _, text in expected])
    assert page.evaluate(KINDS) == [kind for kind, _ in expected]


def test_the_stack_shows_the_flows_waiting_and_why(make_server: MakeServer, page: Page) -> None:
    ready(page, served(make_server, ROOT / "flows" / "cards.yaml"))
    expect(page.locator("#stack")).to_have_text("none")
    say(page, "verify me and then check my balance")
    expect(page.locator("#stage")).to_have_text("FILLING")
    shows_frames(page, [("current", "verify FILLING current"),
                        ("queued", "balance – queued: asked for in the same message, "
                                   "next in line")])

    first = page.locator("#session-id").inner_text()
    page.locator("#new-session").click()
    expect(page.locator("#session-id")).not_to_have_text(first)  # sent before: the old one's
    say(page, "I need a new card")  # the replacement calls verify and waits for it
    shows_frames(page, [("current", "verify FILLING current"),
                        ("caller", "replace CHECK caller: waits for the flow it called "
                                   "to finish")])
    say(page, "u12")
    say(page, "9876")  # verified: the replacement goes on, nothing waits
    expect(page.locator("#flow")).to_have_text("replace")
    shows_frames(page, [("current", "replace FILLING current")])
    page.locator("#timeline .turn-head").first.click()  # the panel follows the turn picked
    expect(page.locator("#stack li.frame")).to_have_count(2)


STACK = """async (stack) => {
  const { renderStack } = await import("/playground/panels.js");
  renderStack({ flow: "balance", stage: "LOOKUP", stack }, { transfer: "pending" });
  return [...document.querySelectorAll("#stack li.frame")].map((li) => li.dataset.kind);
}"""


def test_a_flow_waiting_on_an_unknown_outcome_reads_pending(make_server: MakeServer,
                                                             page: Page) -> None:
    open_playground(page, make_server().url)
    kinds = page.evaluate(STACK, [{"flow": "transfer", "stage": "CONFIRMED",
                                   "kind": "interrupted", "slots": {}}])
    assert kinds == ["current", "pending"]
    expect(page.locator("#stack .pending .why")).to_have_text(
        "결과 확인 대기: 되돌릴 수 없는 작업의 결과를 아직 몰라요")


# -- the reload banner ------------------------------------------------------------------------

@pytest.fixture
def reloading(tmp_path: Path) -> Iterator[tuple[Reloading, Path]]:
    flow = tmp_path / "hello.yaml"
    flow.write_text(flow_text("first version"), encoding="utf-8")
    server = Reloading(flow)
    yield server, flow
    if server.proc.poll() is None:
        os.killpg(server.proc.pid, signal.SIGTERM)
        server.proc.wait(timeout=20)
    assert not reload_status.status_path(flow).exists()  # the watcher cleans up


def test_a_broken_edit_shows_a_banner_until_a_good_one_loads(
        reloading: tuple[Reloading, Path], page: Page) -> None:
    server, flow = reloading
    server.until(lambda: server.says() == "first version", "the first version answers")
    assert httpx.get(server.url + RELOAD).json() == {"watching": True, "ok": True,
                                                     "findings": []}
    ready(page, server.url)
    expect(page.locator("#reload-banner")).to_be_hidden()

    flow.write_text(flow_text("broken").replace("say: greeting", "say: nowhere"),
                    encoding="utf-8")
    expect(page.locator("#reload-banner")).to_be_visible(timeout=20_000)
    expect(page.locator("#reload-banner b")).to_have_text(
        "편집한 흐름을 불러오지 못했어요. 마지막으로 정상이던 버전이 계속 응답해요:")
    findings = page.locator("#reload-findings li")
    expect(findings.locator("code")).to_have_text([f"{flow}:8:19", f"{flow}:10:3"])
    expect(findings.first).to_have_text(f"{flow}:8:19: unknown message `nowhere` "
                                        "(known: greeting)")
    say(page, "안녕")  # the last good version still answers
    expect(page.locator("#messages .msg.assistant").last).to_have_text("first version")

    flow.write_text(flow_text("second version"), encoding="utf-8")
    expect(page.locator("#reload-banner")).to_be_hidden(timeout=20_000)
    server.until(lambda: server.says() == "second version", "the fix is served")


def test_a_server_not_reloading_says_so_and_the_page_stops_asking(
        make_server: MakeServer, page: Page) -> None:
    server = make_server()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if RELOAD in r.url else None)
    assert httpx.get(server.url + RELOAD).json() == {"watching": False, "ok": True,
                                                     "findings": []}
    open_playground(page, server.url)
    page.wait_for_timeout(1500)
    assert len(asked) == 1
    expect(page.locator("#reload-banner")).to_be_hidden()


def test_the_reload_state_needs_a_key_and_belongs_to_the_watcher(
        make_server: MakeServer, tmp_path: Path) -> None:
    server = make_server(settings=Settings(api_keys=(KEY_A,)))
    assert httpx.get(server.url + RELOAD).status_code == 401
    assert httpx.get(server.url + RELOAD, headers=bearer(KEY_A)).status_code == 200
    flow = tmp_path / "x.yaml"
    reload_status.write(flow, None)  # written by this process: not the parent of itself
    try:
        assert reload_status.read(flow) == ReloadState(watching=False, ok=True)
        assert reload_status.read(flow, parent=os.getpid()).watching
    finally:
        reload_status.remove(flow)


# -- the stage graph's edge labels ------------------------------------------------------------

CROWD = """\
service: crowd
description: A stage graph with many ways out of one stage.
locale: en
default_flow: order
flows:
  order:
    slots: [size]
    initial: START
    stages:
      START: {}
      SURE: {decide: confirm, say: ask, buttons: ['Yes', 'No']}
      SMALL: {terminal: true, say: ask}
      MEDIUM: {terminal: true, say: ask}
      LARGE: {terminal: true, say: ask}
      HUGE: {terminal: true, say: ask}
    transitions:
      - {trigger: update, source: START, dest: SURE}
      - {trigger: update, source: SURE, dest: SMALL, when: "slots.size == 's'"}
      - {trigger: update, source: SURE, dest: MEDIUM, when: "slots.size == 'm'"}
      - {trigger: update, source: SURE, dest: LARGE, when: "slots.size == 'l'"}
      - {trigger: update, source: SURE, dest: HUGE}
      - {trigger: confirm, source: SURE, dest: SMALL, when: "slots.size == 's'"}
      - {trigger: confirm, source: SURE, dest: MEDIUM, when: "slots.size == 'm'"}
      - {trigger: confirm, source: SURE, dest: LARGE, when: "slots.size == 'l'"}
      - {trigger: confirm, source: SURE, dest: HUGE}
      - {trigger: deny, source: SURE, dest: SMALL, when: "slots.size == 's'"}
      - {trigger: deny, source: SURE, dest: MEDIUM, when: "slots.size == 'm'"}
      - {trigger: deny, source: SURE, dest: LARGE, when: "slots.size == 'l'"}
      - {trigger: deny, source: SURE, dest: HUGE}
      - {trigger: cancel, source: SURE, dest: SMALL, when: "slots.size == 's'"}
      - {trigger: cancel, source: SURE, dest: HUGE}
slots:
  size: {type: string}
messages:
  ask: Which size?
"""

# Draw the graph with each stage current; per stage: whether two labels overlap, whether two
# would have overlapped at their curves' midpoints (the old placement), whether every label
# lies within the drawing, and whether the drawing lies within its panel.
LABELS = """async (flowName) => {
  const { drawGraph } = await import("/playground/graph.js");
  const view = await (await fetch("/v1/agent/service")).json();
  const graph = view.flows.find((f) => f.name === flowName);
  const container = document.getElementById("graph");
  const meet = (a, b) => a.left < b.right && b.left < a.right
    && a.top < b.bottom && b.top < a.bottom;
  const anyMeet = (boxes) => boxes.some((a, i) => boxes.slice(i + 1).some((b) => meet(a, b)));
  return graph.stages.map((stage) => {
    drawGraph(container, graph, stage.name);
    const svg = container.querySelector("svg");
    const labels = [...svg.querySelectorAll(".edge-label")];
    const boxes = labels.map((l) => l.getBoundingClientRect());
    const naive = labels.map((l) => {
      const { source, dest } = l.dataset;
      const path = svg.querySelector(`path.leaving[data-source="${source}"][data-dest="${dest}"]`);
      const mid = path.getPointAtLength(path.getTotalLength() / 2);
      const b = l.getBBox(), m = svg.getScreenCTM();
      const x = (mid.x - b.width / 2) * m.a + m.e, y = (mid.y - 3 - b.height) * m.d + m.f;
      return { left: x, right: x + b.width * m.a, top: y, bottom: y + b.height * m.d };
    });
    const drawn = svg.getBoundingClientRect(), panel = container.getBoundingClientRect();
    const inside = (b, o) => b.left >= o.left - 1 && b.right <= o.right + 1
      && b.top >= o.top - 1 && b.bottom <= o.bottom + 1;
    return { stage: stage.name, labels: labels.length, overlap: anyMeet(boxes),
             naiveOverlap: anyMeet(naive), inDrawing: boxes.every((b) => inside(b, drawn)),
             inPanel: drawn.left >= panel.left - 1 && drawn.right <= panel.right + 1 };
  });
}"""


@pytest.mark.parametrize("width", [1400, 1024])
def test_edge_labels_never_overlap_and_the_graph_fits(make_server: MakeServer, page: Page,
                                                      tmp_path: Path, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    flow = tmp_path / "crowd.yaml"
    flow.write_text(CROWD, encoding="utf-8")
    ready(page, served(make_server, flow))
    drawn = page.evaluate(LABELS, "order")
    sure = next(d for d in drawn if d["stage"] == "SURE")
    assert sure["labels"] == 4 and sure["naiveOverlap"], sure  # crowded at the midpoints
    assert [d for d in drawn if d["overlap"] or not d["inDrawing"] or not d["inPanel"]] == []


def test_the_transfer_graph_labels_are_apart_at_every_stage(make_server: MakeServer,
                                                            page: Page) -> None:
    open_playground(page, make_server().url)
    drawn = page.evaluate(LABELS, "transfer")
    assert sum(d["labels"] for d in drawn) > 10
    assert [d for d in drawn if d["overlap"] or not d["inDrawing"] or not d["inPanel"]] == []
