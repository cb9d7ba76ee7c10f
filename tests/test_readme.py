"""The README keeps up with the CLI and CI: its two set-up commands, every command, and what
its test command (.ci/run) runs."""

from __future__ import annotations

import re
from pathlib import Path

from cli import app
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_has_the_two_setup_commands() -> None:
    assert "\n```bash\nbash .ci/serve\n```\n" in README
    assert "\n```bash\nbash .ci/run\n```\n" in README


def test_both_commands_install_into_a_virtual_environment() -> None:
    """Debian's own python3 refuses `pip install` outside a virtual environment."""
    venv = (ROOT / ".ci" / "venv.sh").read_text(encoding="utf-8")
    assert "python3 -m venv .venv" in venv and "apt_install python3-venv" in venv
    assert ". .venv/bin/activate" in venv
    for script in ("serve", "run"):
        lines = (ROOT / ".ci" / script).read_text(encoding="utf-8").splitlines()
        sourced = next(i for i, line in enumerate(lines) if line.startswith(". .ci/venv.sh"))
        installs = next(i for i, line in enumerate(lines) if "pip install" in line)
        assert sourced < installs, script
    serve = (ROOT / ".ci" / "serve").read_text(encoding="utf-8")
    assert "exec flowctl serve flows/transfer.yaml" in serve


def test_readme_documents_every_command() -> None:
    missing = [name for name in app.commands if f"`flowctl {name}" not in README]
    assert not missing, f"README does not document: {missing}"


# What README's sentence over its test command names -> (the program in .ci/run that does it,
# a pattern that program's line must match). README says .ci/run is "exactly what CI runs".
CI_STEPS = {
    ".venv": (".", r"^\. \.ci/venv\.sh\b"),  # made and activated before anything installs
    "chromium": ("apt_install", r"\bchromium\b"),
    "fonts-noto-cjk": ("apt_install", r"\bfonts-noto-cjk\b"),
    "tmux": ("apt_install", r"\btmux\b"),
    "ruff": ("python3 -m ruff", r"\scheck \.$"),  # the whole tree
    "mypy": ("python3 -m mypy", r""),
    "test extras": ("python3 -m pip", r"\binstall\b.*-e '?\.\[test\]'?"),
    "schema check": ("flowctl schema", r"\s--check\b"),
    "lint": ("flowctl lint", r"\sflows/?(\s|$)"),  # every shipped flow
    "conversation tests": ("flowctl test", r"\sflows/?(\s|$)"),
    "eval sets": ("flowctl eval", r"\sflows/?(\s|$)"),  # every shipped eval set
    "test suite": ("python3 -m pytest",
                   r"^python3 -m pytest(\s+(-q|-v+|-x|-p \S+|-n \d+|--dist \w+))*$"),  # whole
}
# Run by .ci/run but missing from README's sentence, which promises "exactly what CI runs": drift
# to fix in README (name them there, then move them up to CI_STEPS).
NOT_IN_README: dict[str, tuple[str, str]] = {}
SHELL = {"set", "cd", "command", "[", "test", "echo", "exit", "true", "export"}


def readme_test_command() -> tuple[str, str]:
    """README's "## Two commands": (the prose before the CI command, the command)."""
    section = README.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"(.*?)```\w*\n(.*?)\n```", section, re.S)
    ci = [(" ".join(prose.split()), code.strip()) for prose, code in blocks
          if "what CI runs" in prose]
    assert len(ci) == 1, f"README's Two commands has no single 'what CI runs' block: {blocks}"
    return ci[0]


def readme_steps(prose: str) -> list[str]:
    """'Install ... (A, B) and run C, D and E — exactly what CI runs' -> the keys of A..E."""
    said = re.search(r"\((?P<installs>[^)]*)\) and run (?P<checks>[^—]+?)\s*—", prose)
    assert said, f"README no longer says what the CI command installs and runs: {prose!r}"
    items = [i for part in said.groups() for i in re.split(r",\s*(?:and\s+)?|\s+and\s+", part)]
    steps = []
    for item in items:
        keys = [k for k in {**CI_STEPS, **NOT_IN_README} if k in item.lower()]
        assert len(keys) == 1, f"README says CI runs {item!r}: which .ci/run command is that?"
        steps += keys
    return steps


def ci_commands(script: str) -> list[tuple[str, str]]:
    """(program, its command) of every command .ci/run runs; `flowctl X` and `python3 -m X`
    count as programs of their own, arrays like APT=(sudo apt-get) are expanded."""
    arrays = dict(re.findall(r"\b(\w+)=\((?:sudo )?([\w-]+)\)", script))
    found = []
    for line in script.splitlines():
        line = re.sub(r"\b\w+=\([^)]*\)", "", line.split(" #", 1)[0]).strip()
        for command in re.split(r";|&&|\|\||\|", "" if line.startswith("#") else line):
            words = command.split()
            while words and (words[0] in {"if", "then", "else", "fi", "!"} or
                             re.fullmatch(r"\w+=\S*", words[0])):
                words.pop(0)
            if not words or words[0] in SHELL or words[0].startswith(">"):
                continue
            array = re.fullmatch(r'"?\$\{(\w+)\[@\]\}"?', words[0])
            program = arrays[array.group(1)] if array else words[0]
            if program in {"python", "python3"} and words[1:2] == ["-m"]:
                program = f"python3 -m {words[2]}"
            elif program == "flowctl":
                program = f"flowctl {words[1]}"
            found.append((program, command.strip()))
    return found


def test_ci_runs_what_the_readme_says() -> None:
    prose, command = readme_test_command()
    script_path = re.fullmatch(r"bash (\S+)", command)
    assert script_path, f"README's test command is not `bash SCRIPT`: {command!r}"
    script = ROOT / script_path.group(1)
    assert script.is_file(), f"README runs {command!r}; {script} does not exist"
    ci = script.read_text(encoding="utf-8")
    assert re.search(r"^set -\w*e", ci, re.M), f"{script}: a failing check must fail the run"
    assert "|| true" not in ci, f"{script}: a check's failure is ignored"

    steps = readme_steps(prose)
    lost = sorted(set(CI_STEPS) - set(steps))
    assert not lost, f"README's sentence no longer names {lost}, which {script} runs"
    named = set(steps) & set(NOT_IN_README)
    assert not named, f"README now names {named}: move them from NOT_IN_README to CI_STEPS"

    commands = ci_commands(ci)
    for step in steps:
        program, pattern = CI_STEPS[step]
        assert any(p == program and re.search(pattern, c) for p, c in commands), (
            f"README says {command!r} runs the {step}, but {script} has no `{program}` "
            f"matching {pattern!r}: {commands}")
    expected = {program for program, _ in {**CI_STEPS, **NOT_IN_README}.values()}
    extra = sorted({p for p, _ in commands} - expected)
    assert not extra, f"{script} runs {extra}, which README's sentence does not name"


def test_the_number_of_lint_checks_is_the_catalogue_s() -> None:
    from engine.codes import CATALOGUE

    (said,) = re.findall(r"— (\d+) checks, each", README)
    assert int(said) == len(CATALOGUE)


def test_the_readme_flow_lints_strict_and_does_what_its_transcript_shows(tmp_path: Path) -> None:
    """The one-file service the README shows is a real one: lint --strict passes, and the
    conversation printed under it is what it says."""
    import asyncio

    from engine.compiler import compile_file
    from engine.lint.run import lint_paths
    from engine.runtime.engine import Engine
    from engine.store import MemoryStore

    block = README.split("```yaml\n", 1)[1].split("```", 1)[0]
    flow = tmp_path / "tip.yaml"
    flow.write_text(block, encoding="utf-8")
    report = lint_paths([flow], jobs=1)  # --strict: no warnings either
    assert not report.findings, [str(f) for f in report.findings]
    transcript = README.split("$ flowctl chat tip.yaml\n", 1)[1].split("```", 1)[0]
    said = [line[5:] for line in transcript.splitlines() if line.startswith("you> ")]
    answers = [line[4:] for line in transcript.splitlines() if line.startswith("bot ")]

    async def talk() -> list[str]:
        engine = Engine(compile_file(flow), store=MemoryStore())
        return [(await engine.reply("readme", text)).message for text in said]

    assert asyncio.run(talk()) == answers
