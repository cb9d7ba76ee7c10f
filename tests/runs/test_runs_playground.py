"""The playground's Runs panel in a real headless Chromium (Debian's, through Playwright)
against a real ``flowctl serve``: a turn starts a run, the panel follows it live (each
event as it happens, the diff and the output tail the worker's answer carries, the final
summary), and after a reload replays it from the store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.runs.worker import Worker
from tests.server.processes import Serve

FLOW = Path(__file__).parent / "flows" / "build.yaml"
RESULT = {"ok": True, "attempt": 2, "path": "calc.py", "diff": "-return a - b\n+return a + b",
          "output": "3 passed in 0.01s", "exit_code": 0}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Serve, Worker]]:
    with Worker(hold=True, test_result=RESULT) as worker:
        server = Serve(FLOW, "--store", f"sqlite:///{tmp_path / 'runs.db'}",
                       env={"WORKER_URL": worker.url}).wait_ready()
        try:
            yield server, worker
        finally:
            worker.release()
            server.stop()


def test_the_runs_panel_follows_a_run_live_and_replays_it_after_a_reload(
        page: Page, problems: list[str], served: tuple[Serve, Worker]) -> None:
    server, worker = served
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#runs-panel")).to_be_hidden()
    page.locator("#input").fill("build it")
    page.locator("#input").press("Enter")
    expect(page.locator(".msg.assistant").last).to_have_text("The build has started.")
    panel = page.locator("#runs-panel")
    expect(panel).to_be_visible()
    expect(page.locator("#run-status")).to_have_text("running")
    expect(page.locator("#run-events .ev.AGENT_START").first).to_contain_text("Compiling")
    expect(page.locator("#run-cancel")).to_be_visible()
    expect(page.locator("#run-summary")).to_have_text("")
    worker.release()
    expect(page.locator("#run-summary")).to_have_text("The build passed.")
    expect(page.locator("#run-status")).to_have_text("success")
    expect(page.locator("#run-cancel")).to_be_hidden()
    tested = page.locator("#run-events .ev.AGENT_DONE").last
    expect(tested.locator(".attempt-no")).to_have_text("attempt 2")
    expect(tested.locator(".diff .add")).to_have_text("+return a + b\n")
    expect(tested.locator(".diff .del")).to_have_text("-return a - b\n")
    expect(tested.locator(".tail")).to_have_text("3 passed in 0.01s")
    expect(page.locator("#runs .run.success")).to_have_count(1)
    live = page.locator("#run-events .ev").count()

    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#run-summary")).to_have_text("The build passed.")
    expect(page.locator("#run-events .ev")).to_have_count(live)
    expect(page.locator("#runs .run.success")).to_have_count(1)
    expect(page.locator("#run-events .ev.AGENT_DONE").last.locator(".tail")).to_have_text(
        "3 passed in 0.01s")
    assert problems == []


def test_the_cancel_button_cancels_the_run(page: Page,
                                           served: tuple[Serve, Worker]) -> None:
    server, worker = served
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.locator("#input").fill("build it")
    page.locator("#input").press("Enter")
    expect(page.locator("#run-status")).to_have_text("running")
    assert worker.arrived.wait(10)
    page.locator("#run-cancel").click()
    expect(page.locator("#run-status")).to_have_text("cancelled")
    expect(page.locator("#run-summary")).to_have_text("The build was cancelled.")
    expect(page.locator("#completed li.task.CANCELLED")).to_have_count(1)
