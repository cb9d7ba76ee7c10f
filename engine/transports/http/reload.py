"""``flowctl serve --reload``: restart the server when the service's files change.

A watcher process runs ``flowctl serve`` (without ``--reload``) as its child and watches the
flow file's directory and the ``prompts/`` beside it (``watchfiles``: inotify on Linux,
FSEvents on macOS). On a change it compiles the service first: a broken edit prints the same
located findings as ``flowctl lint`` and the last good server keeps answering; a good one
replaces the server (stopped with SIGTERM, as Ctrl-C would). Sessions live in the store, so
a conversation carries on across reloads. Each verdict is also written for the server to
show (reload_status.py: the playground's banner with the findings, gone once an edit
compiles). For development only: one worker, no graceful
hand-over between the two servers.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from watchfiles import Change, DefaultFilter, watch

from engine.errors import FlowDefinitionError
from engine.transports.http import reload_status

__all__ = ["Reloader", "child_command", "watched_paths"]

WATCHED_SUFFIXES = (".yaml", ".yml", ".md", ".txt", ".j2", ".jinja", ".json")
STOP_SECONDS = 10.0


def watched_paths(flow: str | Path, cwd: Path | None = None) -> list[Path]:
    """The flow's directory, and a ``prompts/`` next to it or in the working directory."""
    folder = Path(flow).resolve().parent
    places = [folder]
    for prompts in (folder.parent / "prompts", (cwd or Path.cwd()) / "prompts"):
        if prompts.is_dir() and prompts.resolve() not in places \
                and not prompts.resolve().is_relative_to(folder):
            places.append(prompts.resolve())
    return places


NOT_SERVED = (".test.yaml", ".eval.yaml", ".replies.yaml")
"""Files beside a flow that the server never reads: conversation tests, eval sets, a model's
scripted replies for tests."""


class _ServiceFiles(DefaultFilter):
    """Changes to files a service is made of (YAML, prompts, JSON); not editors' droppings,
    nor the tests and eval sets beside it."""

    def __call__(self, change: Change, path: str) -> bool:
        return path.endswith(WATCHED_SUFFIXES) and not path.endswith(NOT_SERVED) and \
            super().__call__(change, path)


def _stop_on_signals() -> threading.Event:
    """An event SIGTERM or SIGINT sets (in the main thread), so the child is stopped too.
    SIGINT gets a handler of its own: a process started in the background by a shell
    inherits SIGINT ignored, and `kill -INT` to the watcher must still stop it."""
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda *_: stop.set())
    return stop


def child_command(ctx: click.Context, *, leaving_out: str = "reload") -> list[str]:
    """A parsed ``flowctl serve --reload`` -> the same ``flowctl serve`` without it, as a
    command line this interpreter runs: each argument and option given (not left to its
    default) passes on as parsed, so a new option of ``serve`` needs nothing here."""
    args: list[str] = []
    for param in ctx.command.params:
        name = param.name
        if name is None or name == leaving_out or \
                ctx.get_parameter_source(name) in (None, ParameterSource.DEFAULT):
            continue
        args += _spelt(param, ctx.params[name])
    return [sys.executable, "-m", "cli", "serve", *args]


def _spelt(param: click.Parameter, value: Any) -> list[str]:
    """A parameter and its parsed value -> the arguments that say it (``--port 8001``)."""
    if not isinstance(param, click.Option):
        return [str(value)]
    if param.is_flag:
        return [param.opts[0]] if value else param.secondary_opts[:1]
    values = value if param.multiple else (value,)
    return [arg for one in values for arg in (param.opts[0], str(one))]


class Reloader:
    """Keeps one server child running the last version of the service that compiled."""

    def __init__(self, flow: str, command: Sequence[str], *,
                 check: Callable[[str], object], report: Callable[[FlowDefinitionError], None],
                 say: Callable[[str], None], paths: Iterable[Path] | None = None) -> None:
        self.flow, self.command = flow, list(command)
        self.check, self.report, self.say = check, report, say
        self.paths = list(paths) if paths is not None else watched_paths(flow)
        self.child: subprocess.Popen[bytes] | None = None

    def run(self, stop: threading.Event | None = None) -> int:
        """Serve until interrupted (Ctrl-C, SIGTERM or ``stop``); the exit status of
        ``flowctl serve --reload``: the server's own when it stops before any change (a
        port in use), else 0."""
        stop = stop or _stop_on_signals()
        self.say("watching " + ", ".join(str(p) for p in self.paths) + " for changes")
        changes_seen = 0
        if self._compiles():
            self._start()
        else:
            self.say("waiting for a change that compiles")
        try:
            for changes in watch(*self.paths, watch_filter=_ServiceFiles(), rust_timeout=300,
                                 yield_on_timeout=True, stop_event=stop,
                                 raise_interrupt=False):
                if changes:
                    changes_seen += 1
                    self._changed(sorted({Path(p).name for _, p in changes}))
                elif (code := self._died()) is not None and not changes_seen:
                    return code
        finally:
            self._stop()
            reload_status.remove(self.flow)
        return 0

    def _changed(self, names: list[str]) -> None:
        self.say(f"changed: {', '.join(names)}")
        if not self._compiles():
            self.say("kept the last good version running" if self._alive()
                     else "waiting for a change that compiles")
            return
        self._stop()
        self._start()
        self.say("reloaded")

    def _compiles(self) -> bool:
        try:
            self.check(self.flow)
        except FlowDefinitionError as err:
            self.report(err)
            self._verdict(err)
            return False
        self._verdict(None)
        return True

    def _verdict(self, error: FlowDefinitionError | None) -> None:
        """Tell the server (its playground's banner) whether the files compile."""
        try:
            reload_status.write(self.flow, error)
        except OSError as err:  # the banner is a convenience: reloading goes on without it
            self.say(f"could not record the reload state: {err}")

    def _start(self) -> None:
        self.child = subprocess.Popen(self.command)

    def _alive(self) -> bool:
        return self.child is not None and self.child.poll() is None

    def _died(self) -> int | None:
        """The exit status of a server that stopped by itself (said once), else None."""
        if self.child is None or self.child.poll() is None:
            return None
        code, self.child = self.child.returncode, None
        self.say(f"the server stopped (exit {code}); waiting for a change")
        return code

    def _stop(self) -> None:
        child, self.child = self.child, None
        if child is None or child.poll() is not None:
            return
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
