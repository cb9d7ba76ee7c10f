"""The command runner: an argv that is not allow-listed or holds a shell operator is refused
before any process starts; a hanging command is killed (its whole process group) at its
timeout; the exit code is data; the environment is scrubbed."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from engine.workspace import CommandPolicy, CommandRefused, run_command

PY = sys.executable
MAKES_MARKER = "open('marker', 'w').write('ran')"


async def run(argv: list[str], policy: CommandPolicy, cwd: Path, *, timeout: float = 30,
              tail: int = 4000, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return await run_command(argv, policy, cwd=cwd, env=env or dict(os.environ),
                             timeout=timeout, tail=tail)


@pytest.mark.parametrize(("argv", "allowed", "why"), [
    ([PY, "-c", MAKES_MARKER], ["python -m pytest"], "is not an allowed command"),
    ([PY, "-c", MAKES_MARKER], [], "no command is allowed"),
    ([PY, "-c", MAKES_MARKER + " ; x"], [PY], "shell operator"),
    ([PY, "-c", MAKES_MARKER, "&&", "true"], [PY], "shell operator"),
    ([PY, "-c", MAKES_MARKER, "|", "cat"], [PY], "shell operator"),
    ([PY, "-c", MAKES_MARKER, ">", "out"], [PY], "shell operator"),
    ([PY, "-c", MAKES_MARKER, "<", "in"], [PY], "shell operator"),
    ([PY, "-c", MAKES_MARKER, "`id`"], [PY], "shell operator"),
    ([PY, "-c", MAKES_MARKER, "$HOME"], [PY], "shell operator"),
])
async def test_refused_commands_start_no_process(tmp_path: Path, argv: list[str],
                                                 allowed: list[str], why: str) -> None:
    policy = CommandPolicy.of(allowed)
    with pytest.raises(CommandRefused, match=why):
        await run(argv, policy, tmp_path)
    assert not (tmp_path / "marker").exists()  # the argv would have written it had it run
    # the same argv without the refused part does run and write it: the check is the cause
    ok = await run([PY, "-c", MAKES_MARKER], CommandPolicy.of([PY]), tmp_path)
    assert ok.exit_code == 0 and (tmp_path / "marker").read_text() == "ran"


def test_an_allowed_prefix_allows_longer_argvs_only() -> None:
    policy = CommandPolicy.of(["python -m pytest"])
    assert policy.check(["python", "-m", "pytest", "-q"]) == ("python", "-m", "pytest", "-q")
    for argv in (["python"], ["python", "-m", "pip", "install", "x"], ["pytest"]):
        with pytest.raises(CommandRefused):
            policy.check(argv)
    with pytest.raises(CommandRefused, match="shell operator"):
        CommandPolicy.of(["python; rm -rf /"])


async def test_a_hanging_command_is_killed_with_its_children_at_its_timeout(
        tmp_path: Path) -> None:
    code = ("import subprocess, time\n"
            "child = subprocess.Popen(['sleep', '60'])\n"
            "open('child.pid', 'w').write(str(child.pid))\n"
            "print('started', flush=True)\n"
            "time.sleep(60)\n")
    started = time.monotonic()
    result = await run([PY, "-c", code], CommandPolicy.of([PY]), tmp_path, timeout=1.5)
    assert time.monotonic() - started < 30
    assert result.timed_out and result.exit_code is None and "started" in result.output
    child = int((tmp_path / "child.pid").read_text())
    for _ in range(50):  # the kill is delivered at once; reaping by init may take a moment
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "State:\tZ" in status.read_text())


async def test_exit_code_is_data_and_only_the_output_tail_is_kept(tmp_path: Path) -> None:
    code = ("import sys\nprint('x' * 10000, flush=True)\n"
            "print('the end', file=sys.stderr)\nsys.exit(3)")
    result = await run([PY, "-c", code], CommandPolicy.of([PY]), tmp_path, tail=50)
    assert result.exit_code == 3 and not result.timed_out
    assert len(result.output) == 50 and result.output.endswith("the end\n")


async def test_the_environment_is_scrubbed_unless_the_operator_passes_a_name(
        tmp_path: Path) -> None:
    code = "import os\nprint(os.environ.get('OPENAI_API_KEY'), os.environ.get('PATH') is not None)"
    env = {**os.environ, "OPENAI_API_KEY": "sk-secret"}
    scrubbed = await run([PY, "-c", code], CommandPolicy.of([PY]), tmp_path, env=env)
    assert scrubbed.output.strip() == "None True"
    passed = await run([PY, "-c", code], CommandPolicy.of([PY], ["OPENAI_API_KEY"]), tmp_path,
                       env=env)
    assert passed.output.strip() == "sk-secret True"


async def test_the_command_runs_in_the_given_directory(tmp_path: Path) -> None:
    result = await run([PY, "-c", "import os\nprint(os.getcwd())"], CommandPolicy.of([PY]),
                       tmp_path)
    assert result.output.strip() == str(tmp_path)
