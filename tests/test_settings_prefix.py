"""Every setting is a ``FLOWCTL_`` variable; the old unprefixed names (DEV_MODE,
MAX_FILL_TURNS, MEMORY_*) still set theirs, with one warning line per name and process
naming the new one, and lose to the new name when both are set."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import config
from engine.config import DEPRECATED_VARIABLES, SettingsError, load_settings
from tests.conftest import ROOT

# old name -> (the setting, a value for the old name, what it sets, another for the new name,
# what that sets, a value that does not parse or None when any text is a value)
CASES: dict[str, tuple[str, str, object, str, object, str | None]] = {
    "DEV_MODE": ("dev_mode", "1", True, "0", False, "maybe"),
    "MAX_FILL_TURNS": ("max_fill_turns", "3", 3, "4", 4, "abc"),
    "MEMORY_ENABLE_SUMMARY": ("memory_enable_summary", "false", False, "true", True, "perhaps"),
    "MEMORY_SUMMARIZE_THRESHOLD": ("memory_summarize_threshold", "9", 9, "7", 7, "lots"),
    "MEMORY_KEEP_RECENT_TURNS": ("memory_keep_recent_turns", "0", 0, "2", 2, "-1"),
    "MEMORY_SUMMARY_MODEL": ("memory_summary_model", "gpt-4o-mini", "gpt-4o-mini",
                             "claude-haiku-4-5", "claude-haiku-4-5", None),
    "MEMORY_MAX_RAW_TURNS": ("memory_max_raw_turns", "30", 30, "25", 25, "0"),
}
OLD_NAMES = list(CASES)
PARSED = [old for old in OLD_NAMES if CASES[old][5] is not None]  # a model name is any text


def deprecated(old: str) -> str:
    return f"flowctl: {old} is deprecated; set FLOWCTL_{old} instead"


def ignored(old: str) -> str:
    return f"flowctl: {old} is deprecated and ignored because FLOWCTL_{old} is set; unset {old}"


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.getMessage()}")


@pytest.fixture
def warned(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The warning lines config logs, as in a fresh process (nothing warned about yet)."""
    monkeypatch.setattr(config, "_warned", set())
    monkeypatch.setattr(config.log, "disabled", False)
    handler, level = Lines(), config.log.level
    config.log.addHandler(handler)
    config.log.setLevel(logging.WARNING)  # whatever an earlier server configured
    try:
        yield handler.lines
    finally:
        config.log.removeHandler(handler)
        config.log.setLevel(level)


def test_the_old_names_are_the_seven_unprefixed_ones() -> None:
    assert DEPRECATED_VARIABLES == {old: f"FLOWCTL_{old}" for old in OLD_NAMES}


@pytest.mark.parametrize("old", OLD_NAMES)
def test_the_new_name_sets_the_setting_without_a_word(old: str, warned: list[str]) -> None:
    name, _, _, new_value, expected, _ = CASES[old]
    assert getattr(load_settings({f"FLOWCTL_{old}": new_value}), name) == expected
    assert warned == []


@pytest.mark.parametrize("old", OLD_NAMES)
def test_an_old_name_still_works_and_warns_once(old: str, warned: list[str]) -> None:
    name, value, expected, *_ = CASES[old]
    settings = load_settings({old: value})
    assert getattr(settings, name) == expected
    assert name in settings.from_env  # it beats the flow file as the new name would
    assert warned == [f"WARNING {deprecated(old)}"]
    for _ in range(3):  # read again (another worker's engine, `flowctl test`'s next file)
        assert getattr(load_settings({old: value}), name) == expected
    assert warned == [f"WARNING {deprecated(old)}"]


@pytest.mark.parametrize("old", OLD_NAMES)
def test_the_new_name_wins_over_the_old(old: str, warned: list[str]) -> None:
    name, value, _, new_value, expected, _ = CASES[old]
    settings = load_settings({old: value, f"FLOWCTL_{old}": new_value})
    assert getattr(settings, name) == expected
    assert warned == [f"WARNING {ignored(old)}"]


def test_each_old_name_warns_once_on_its_own(warned: list[str]) -> None:
    env = {old: CASES[old][1] for old in OLD_NAMES}
    load_settings(env)
    load_settings(env)
    assert warned == [f"WARNING {deprecated(old)}" for old in OLD_NAMES]


def test_an_old_flow_default_is_beaten_by_an_old_name(warned: list[str]) -> None:
    assert load_settings({"MAX_FILL_TURNS": "2"}).fill_turns(7) == 2
    assert load_settings({}).fill_turns(7) == 7


@pytest.mark.parametrize("old", PARSED)
def test_a_bad_value_names_the_variable_read(old: str, warned: list[str]) -> None:
    bad = CASES[old][5]
    assert bad is not None
    with pytest.raises(SettingsError, match=rf"^{old}={bad!r} "):
        load_settings({old: bad})
    with pytest.raises(SettingsError, match=rf"^FLOWCTL_{old}={bad!r} "):
        load_settings({f"FLOWCTL_{old}": bad})
    with pytest.raises(SettingsError, match=rf"^FLOWCTL_{old}={bad!r} "):
        load_settings({old: CASES[old][1], f"FLOWCTL_{old}": bad})
    load_settings({old: bad, f"FLOWCTL_{old}": CASES[old][3]})  # ignored: never parsed


# -- what an operator sees: `flowctl chat` and `flowctl serve` in a process of their own ---

def clean_env(extra: dict[str, str]) -> dict[str, str]:
    """os.environ without keys, models or settings of this shell (old names or new)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "ANTHROPIC_", "FLOWCTL_", "MEMORY_"))
           and not k.endswith("_API_KEY")
           and k not in ("DEV_MODE", "MAX_FILL_TURNS", "FORCE_COLOR")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def chat(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), "chat",
                           str(ROOT / "flows" / "transfer.yaml")], input="", text=True,
                          capture_output=True, timeout=60, cwd=ROOT, env=clean_env(env))


def flowctl_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "deprecated" in line]


@pytest.mark.parametrize("old", OLD_NAMES)
def test_chat_prints_the_deprecation_line_once(old: str) -> None:
    done = chat({old: CASES[old][1]})
    assert done.returncode == 0, done.stderr
    assert flowctl_lines(done.stderr) == [deprecated(old)]


def test_chat_says_the_old_name_is_ignored_when_both_are_set() -> None:
    done = chat({"MAX_FILL_TURNS": "3", "FLOWCTL_MAX_FILL_TURNS": "4"})
    assert done.returncode == 0, done.stderr
    assert flowctl_lines(done.stderr) == [ignored("MAX_FILL_TURNS")]


def test_chat_refuses_a_bad_old_value_naming_it() -> None:
    done = chat({"MAX_FILL_TURNS": "abc"})
    assert done.returncode == 2
    assert done.stderr.splitlines() == [deprecated("MAX_FILL_TURNS"),
                                        "error: MAX_FILL_TURNS='abc' is not a whole number"]


def serve_output(tmp_path: Path, env: dict[str, str], *args: str) -> str:
    """Everything ``flowctl serve ARGS`` writes to stderr until it has started (every worker),
    then stops it with SIGTERM."""
    workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 1
    lines: list[str] = []
    with subprocess.Popen(
            [sys.executable, str(ROOT / "cli.py"), "serve", str(ROOT / "flows" / "transfer.yaml"),
             "--port", "0", "--store", f"sqlite:///{tmp_path / 'sessions.db'}", *args],
            cwd=tmp_path, env=clean_env(env), text=True, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE) as proc:
        assert proc.stderr is not None
        watchdog = threading.Timer(60, proc.kill)
        watchdog.start()
        try:
            started = 0
            while started < workers:
                line = proc.stderr.readline()
                if not line:
                    raise AssertionError("flowctl serve exited:\n" + "".join(lines))
                lines.append(line)
                started += "Application startup complete" in line
            proc.send_signal(signal.SIGTERM)
            lines.append(proc.stderr.read())
            proc.wait(timeout=30)
        finally:
            watchdog.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return "".join(lines)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_prints_each_deprecation_line_once(tmp_path: Path, workers: str) -> None:
    """All seven old names at once; forked workers do not repeat what the supervisor said."""
    env = {old: CASES[old][1] for old in OLD_NAMES}
    out = serve_output(tmp_path, env, "--workers", workers)
    assert flowctl_lines(out) == [deprecated(old) for old in OLD_NAMES], out
    assert "Traceback" not in out
