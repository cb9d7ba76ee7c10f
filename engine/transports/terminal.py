"""Events and results -> terminal text (rich); used by `flowctl chat` and `flowctl test`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from rich.console import Console
from rich.markup import escape

from engine.errors import Finding, SourceLocation
from engine.runtime.events import AgentDone, AgentStart, Done, Event, LlmToken, TaskProgress


class MismatchLike(Protocol):
    """What ``show_results`` prints of one missed expectation (``engine.testing`` makes them)."""

    @property
    def turn(self) -> int: ...
    @property
    def user(self) -> str: ...
    @property
    def field(self) -> str: ...
    @property
    def expected(self) -> Any: ...
    @property
    def actual(self) -> Any: ...
    @property
    def location(self) -> SourceLocation: ...


class ResultLike(Protocol):
    """What ``show_results`` prints of one conversation's result."""

    @property
    def file(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def mismatches(self) -> Sequence[MismatchLike]: ...


def show_event(console: Console, event: Event, *, verbose: bool) -> None:
    """Progress lines (dim) while a turn runs; the DONE reply with its state."""
    match event:
        case AgentStart(agent, label) if verbose:
            console.print(f"[dim]… {escape(label)} ({escape(agent)})[/dim]")
        case AgentDone(agent, _, success, stage, _) if verbose:
            mark = "✓" if success else "✗"
            console.print(f"[dim]{mark} {escape(agent)}" + (f" → {stage}" if stage else "")
                          + "[/dim]")
        case TaskProgress(index, total, _):
            console.print(f"[dim]task {index}/{total}[/dim]")
        case LlmToken(text):
            console.print(escape(text), end="")
        case Done():
            show_done(console, event)


def show_done(console: Console, done: Done) -> None:
    snap = done.state_snapshot
    console.print(f"[bold cyan]bot[/bold cyan] {escape(done.message)}")
    slots = {k: v for k, v in snap.get("slots", {}).items() if v is not None}
    state = f"stage={snap.get('stage')} next={done.next_action}"
    if slots:
        state += " slots=" + json.dumps(slots, ensure_ascii=False)
    errors = snap.get("meta", {}).get("slot_errors") or {}
    if errors:
        state += " errors=" + json.dumps(errors, ensure_ascii=False)
    if snap.get("task_queue"):
        state += f" queued={len(snap['task_queue'])}"
    console.print(f"[dim]{escape(state)}[/dim]")
    buttons = done.ui_hint.get("buttons") or []
    if buttons:
        console.print("  " + "  ".join(f"[reverse] {escape(b)} [/reverse]" for b in buttons))


def show_findings(console: Console, findings: Sequence[Finding]) -> None:
    for finding in findings:
        colour = "red" if finding.severity == "error" else "yellow"
        console.print(f"[{colour}]{escape(finding.render(with_source=True))}[/{colour}]",
                      highlight=False, emoji=False)


def show_results(console: Console, results: Sequence[ResultLike]) -> tuple[int, int]:
    """Print one line per conversation and a diff per mismatch; return (passed, failed)."""
    passed = failed = 0
    for result in results:
        if result.passed:
            passed += 1
            console.print(f"[green]PASS[/green] {escape(result.file)} :: {escape(result.name)}")
            continue
        failed += 1
        console.print(f"[red]FAIL[/red] {escape(result.file)} :: {escape(result.name)}")
        for m in result.mismatches:
            console.print(f"  {m.location} turn {m.turn} [bold]{escape(m.user)!s}[/bold] "
                          f"— {escape(m.field)}", highlight=False)
            console.print(f"    [green]- expected: {escape(_show(m.expected))}[/green]",
                          highlight=False)
            console.print(f"    [red]+ actual:   {escape(_show(m.actual))}[/red]", highlight=False)
    return passed, failed


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
