"""(argv, operator's policy) -> exit code and output tail of a process, or CommandRefused.

No shell is involved: the argv goes to ``exec`` as is. Before any process starts, every
argument is checked for shell operators (``; & | > < ` $``, which an argv never needs and
an injected one would) and the argv must begin with one of the operator's allowed
commands (``python -m pytest`` allows ``python -m pytest -q``). The process runs in the
workspace root, in its own process group (a timeout kills the whole group), with an
environment holding only ``BASE_ENV``, ``FIXED_ENV`` and the names the operator passes
through, and only the last ``tail`` characters of its combined output are kept.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SHELL_OPERATORS = frozenset(";&|><`$")
BASE_ENV = ("PATH", "LANG", "LC_ALL", "TZ", "SYSTEMROOT")
"""Variables a command always gets (when set); everything else only when the operator
passes it through: secrets such as API keys never reach a command by default."""
FIXED_ENV = {"PYTHONDONTWRITEBYTECODE": "1"}
"""Set for every command: a loop rewrites a source file within the second and at the same
size (``a - b`` -> ``a + b``), which Python's bytecode cache (keyed by mtime in seconds and
size) cannot tell from the old file, so the next attempt would test stale code."""
MAX_TAIL_CHARS = 64 * 1024
MAX_TIMEOUT_SEC = 3600.0
_CHUNK = 16 * 1024


class CommandRefused(ValueError):
    """The argv is not allowed; no process was started."""


@dataclass(frozen=True, slots=True)
class CommandPolicy:
    """What the operator allows: argv prefixes, and environment names passed through."""

    allowed: tuple[tuple[str, ...], ...] = ()
    pass_env: tuple[str, ...] = ()
    executables: Mapping[str, str] = field(default_factory=dict)
    """argv[0] -> the program run for it (the test runner maps ``python`` to its own)."""

    @classmethod
    def of(cls, commands: Sequence[str], pass_env: Sequence[str] = (), *,
           executables: Mapping[str, str] | None = None) -> CommandPolicy:
        """``["python -m pytest", "npm test"]`` -> a policy allowing those prefixes.

        >>> CommandPolicy.of(["python -m pytest"]).check(["python", "-m", "pytest", "-q"])
        ('python', '-m', 'pytest', '-q')
        """
        allowed = tuple(tuple(shlex.split(c)) for c in commands if c.strip())
        for prefix in allowed:
            check_operators(prefix)
        return cls(allowed, tuple(pass_env), dict(executables or {}))

    def check(self, argv: Sequence[object]) -> tuple[str, ...]:
        """The argv when it may run; CommandRefused (saying why) before anything starts."""
        if not argv or not all(isinstance(a, str) for a in argv):
            raise CommandRefused("a command is a non-empty list of text arguments")
        args = tuple(str(a) for a in argv)
        check_operators(args)
        if not self.allowed:
            raise CommandRefused("no command is allowed here; the operator allows commands "
                                 "with `--allow-command` or FLOWCTL_ALLOW_COMMANDS")
        if not any(args[:len(p)] == p for p in self.allowed):
            shown = ", ".join(f"`{shlex.join(p)}`" for p in self.allowed)
            raise CommandRefused(f"`{shlex.join(args)}` is not an allowed command (allowed: "
                                 f"{shown})")
        return args

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        names = (*BASE_ENV, *self.pass_env)
        return {**FIXED_ENV, **{n: env[n] for n in names if n in env}}


def check_operators(args: Sequence[str]) -> None:
    for arg in args:
        bad = sorted(SHELL_OPERATORS.intersection(arg))
        if bad or "\0" in arg:
            shown = " ".join(bad) or "NUL"
            raise CommandRefused(f"argument {arg!r} holds the shell operator(s) {shown}; "
                                 "commands run without a shell and may not use them")


@dataclass(frozen=True, slots=True)
class CommandResult:
    command: str
    exit_code: int | None
    """None when the command was killed at its timeout."""
    output: str
    timed_out: bool
    seconds: float

    def as_data(self) -> dict[str, object]:
        return {"command": self.command, "exit_code": self.exit_code, "output": self.output,
                "timed_out": self.timed_out, "seconds": round(self.seconds, 3)}


async def run_command(argv: Sequence[object], policy: CommandPolicy, *, cwd: Path,
                      env: Mapping[str, str], timeout: float, tail: int) -> CommandResult:
    """Run ``argv`` if ``policy`` allows it; the exit code is data, not an error."""
    args = policy.check(argv)
    program = policy.executables.get(args[0], args[0])
    started = time.perf_counter()
    try:
        proc = await asyncio.create_subprocess_exec(
            program, *args[1:], cwd=cwd, env=policy.environment(env),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    except OSError as err:
        raise CommandRefused(f"`{args[0]}` could not start: {err.strerror}") from None
    kept = bytearray()
    limit = min(tail, MAX_TAIL_CHARS) * 4  # UTF-8: at most 4 bytes a character
    timed_out = False
    try:
        async with asyncio.timeout(min(timeout, MAX_TIMEOUT_SEC)):
            await _collect(proc, kept, limit)
            await proc.wait()
    except TimeoutError:
        timed_out = True
        _kill_group(proc.pid)
        await proc.wait()
    except BaseException:
        _kill_group(proc.pid)  # cancelled: leave nothing running behind
        raise
    text = kept.decode("utf-8", errors="replace")[-tail:] if tail else ""
    return CommandResult(shlex.join(args), None if timed_out else proc.returncode, text,
                         timed_out, time.perf_counter() - started)


async def _collect(proc: asyncio.subprocess.Process, kept: bytearray, limit: int) -> None:
    assert proc.stdout is not None
    while chunk := await proc.stdout.read(_CHUNK):
        kept += chunk
        if len(kept) > limit:
            del kept[:len(kept) - limit]


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


__all__ = ["BASE_ENV", "SHELL_OPERATORS", "CommandPolicy", "CommandRefused", "CommandResult",
           "check_operators", "run_command"]
