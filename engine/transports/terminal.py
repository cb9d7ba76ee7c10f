"""The terminal: typed lines -> turns -> events as text (rich); `flowctl chat` and `test`.

``talk`` is `flowctl chat`'s loop. At a terminal the lines come from prompt_toolkit
(``Prompt``): line editing, history on the arrow keys, and no line-length cut (the tty's
canonical mode stops at 4096 bytes, ~1,365 Korean characters; prompt_toolkit reads in raw
mode), so an overlong message reaches the engine and is refused as the server refuses it.
Piped input (``Piped``) is read line by line and echoed. Reading happens outside the event
loop and each turn runs on its own ``Runner.run``, so the first Ctrl-C stops at once, at the
prompt or in the middle of a turn (``KeyboardInterrupt``; the CLI exits 130).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from rich.console import Console
from rich.markup import escape

from engine.errors import Finding, SourceLocation
from engine.runtime.values.events import AgentDone, AgentStart, Done, Event, LlmToken, TaskProgress

if TYPE_CHECKING:
    from engine.runtime.serving import TurnEngine

PROMPT = "you> "


class LineReader(Protocol):
    """Where `flowctl chat` gets its messages: ``read`` returns None when the input ends."""

    def read(self) -> str | None: ...


class Prompt:
    """Lines typed at a terminal, with editing, history (arrow keys, Ctrl-R) and no length
    cut; Ctrl-D ends, Ctrl-C raises ``KeyboardInterrupt``. ``history`` keeps lines across
    runs in that file."""

    def __init__(self, history: Path | None = None) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, History, InMemoryHistory

        kept: History = FileHistory(history) if history is not None else InMemoryHistory()
        self.session: PromptSession[str] = PromptSession(history=kept)

    def read(self) -> str | None:
        try:
            return self.session.prompt(PROMPT)
        except EOFError:
            return None


class Piped:
    """Lines from a pipe or a file, each echoed after the prompt so the transcript reads
    like a conversation."""

    def __init__(self, stream: TextIO, console: Console) -> None:
        self.stream = stream
        self.console = console

    def read(self) -> str | None:
        line = self.stream.readline()
        if not line:
            return None
        line = line.removesuffix("\n").removesuffix("\r")
        self.console.print(f"[bold]{PROMPT.strip()}[/bold] {escape(line)}")
        return line


def talk(engine: TurnEngine, session_id: str, reader: LineReader, console: Console, *,
         verbose: bool) -> None:
    """Read a line, run its turn and show its events, until the input ends; then close the
    engine's clients and its store (a PostgreSQL store's connections).

    The event loop runs only inside a turn here, so a summary the turn left to write in the
    background is awaited before the next line is read (while the user reads the answer):
    the next turn starts with it, as it does on a server."""
    with asyncio.Runner() as runner:
        try:
            while (line := reader.read()) is not None:
                runner.run(_show_turn(engine, session_id, line, console, verbose=verbose))
                runner.run(engine.folds.settled())
        finally:
            runner.run(engine.aclose())
            runner.run(engine.store.close())


async def _show_turn(engine: TurnEngine, session_id: str, message: str, console: Console, *,
                     verbose: bool) -> None:
    async for event in engine.turn(session_id, message):
        show_event(console, event, verbose=verbose)


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
    # a turn outside any flow (small talk, a refusal) has no flow or stage: nothing of them
    state = (f"flow={snap['flow']} " if snap.get("flow") else "") + \
        (f"stage={snap['stage']} " if snap.get("stage") else "") + f"next={done.next_action}"
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
    if done.next_suggested_actions:  # a `respond` step's `next`
        shown = " · ".join(done.next_suggested_actions)
        console.print(f"[dim]suggested: {escape(shown)}[/dim]")


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


def show_summary(console: Console, results: Sequence[ResultLike], coverage: Iterable[str], *,
                 deselected: int = 0) -> None:
    """The lines of the coverage report (MISSED ones red), then ``N passed, M failed`` (and
    how many conversations ``-k`` left out)."""
    for line in coverage:
        console.print(escape(line), style="red" if line.endswith("MISSED") else None,
                      highlight=False, emoji=False)
    passed = sum(r.passed for r in results)
    summary = f"{passed} passed, {len(results) - passed} failed"
    console.print(summary + (f", {deselected} deselected" if deselected else ""))


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
