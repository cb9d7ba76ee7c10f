"""Every example in the docs runs, and says what really happens.

The fenced blocks of the docs below are found by parsing the markdown, so a new example is
checked as soon as it is written; each gets a kind from its language and content
(``kind``) and is run by that kind's check:

- ``service`` YAML (``service:`` and ``flows:``) compiles; ``fragment`` YAML (a few
  top-level keys) compiles merged into one of the docs' services; ``tests`` YAML
  (``conversations:``) passes ``flowctl test`` against its flow; ``excerpt`` YAML (indented)
  is lines of the flow file the prose names; ``replies`` YAML loads as a scripted fixture;
  the CI workflow and pre-commit config run their flowctl commands.
- ``session`` blocks (``$ flowctl ...`` then output) run the command and compare the
  output, ``...`` standing for any lines; ``findings`` blocks (``file:line:col: ...``)
  lint (or test) the file and compare; lint.md's per-check examples come from their case.
- ``commands`` blocks (bash): every flowctl command parses, and the cheap ones run.
- Python blocks compile, and the calls they make bind to the real signatures.

Files the walkthroughs name (``flows/booking.yaml`` ...) are written from their blocks into
one workspace beside copies of the shipped flows and prompts; files a doc shows a broken
version of are derived from the good one (``VARIANTS``); the few files no block holds are in
tests/docs_examples/. Tables are checked too: the key tables against the spec models, the
extraction and yes/no tables against the rules in code, the lint catalogue against
``engine.codes``.
"""

from __future__ import annotations

import ast
import datetime as dt
import functools
import inspect
import io
import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import click
import pytest
import yaml

from cli import app, main
from engine.compiler import compile_file
from engine.dsl.load import load_text
from engine.errors import FlowDefinitionError
from engine.lint import CATALOGUE, lint_paths
from engine.lint.formats import line as finding_line
from tests.conftest import ROOT

DOCS = ("dsl.md", "testing.md", "lint.md", "ci.md", "editors.md", "providers.md",
        "architecture.md", "performance.md", "apps.md", "understanding.md", "install.md")
EXAMPLES = ROOT / "tests" / "docs_examples"
CASES_DIR = ROOT / "tests" / "lint" / "cases"

# Blocks that only illustrate (keyed by doc and first line), each with the reason.
ILLUSTRATIVE = {
    # A drawing of the numbered list above it (how a turn runs): nothing to run.
    ("dsl.md", "message ─▶ refused? ─yes─▶ DONE"),
    # The reply of the `respond` example above it: tests/test_synthesis.py runs that flow on
    # the same data and compares the reply exactly.
    ("dsl.md", "요청하신 '노트북 보여줘'에 대해 상품 2개를 확인했습니다."),
    # A third-party model server, started with weights flowctl never has:
    # tests/test_bench_local_model.py runs the bench below it against the local fake, and
    # tests/test_model_env.py and tests/providers/test_json_forms.py the settings it names.
    ("providers.md", "pip install 'llama-cpp-python[server]'"),
    ("providers.md",
     "OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_JSON_FORM=json_object_schema \\"),
}

# Broken versions of files a doc shows the output for: (the doc, a line of the block) ->
# (file, the text in the good file, what it becomes). The good files are examples too.
VARIANTS: dict[tuple[str, str], list[tuple[str, str, str]]] = {
    # dsl.md's walkthrough: the buttons unquoted.
    ("dsl.md", "buttons[0] must be a string"): [
        ("flows/booking.yaml", "buttons: ['Yes', 'No']", "buttons: [Yes, No]")],
    # testing.md's tips: a `,` in an unquoted flow-mapping string; an unquoted yes.
    ("testing.md", "unknown key `for 2`"): [
        ("flows/booking.test.yaml", '{user: "monday then, for 2",', "{user: monday then, for 2,")],
    ("testing.md", "Input should be a valid string"): [
        ("flows/booking.test.yaml", "{user: 'yes',", "{user: yes,")],
    # testing.md's failure report: the shipped tests with three expectations made wrong.
    ("testing.md", "FAIL flows/transfer.test.yaml"): [
        ("flows/transfer.test.yaml",
         '{user: 3만원, stage: READY, slots: {amount: 30000}, say: "엄마에게 3만원을 이체할까요?"}',
         '{user: 3만원, stage: READY, slots: {amount: 3000}, say: "엄마에게 3만원을 보낼까요?"}'),
        ("flows/transfer.test.yaml", "{TASK_PROGRESS: {index: 2, total: 2}}",
         "{TASK_PROGRESS: {index: 2, total: 3}}")],
}

# Session blocks that leave lines out on purpose: their lines must appear in order.
PARTIAL = {
    # dsl.md says each reply is followed by a state line and the buttons, left out here.
    ("dsl.md", "$ flowctl chat flows/booking.yaml"),
}


# --- the markdown ----------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # of the opening fence
    lang: str
    text: str  # dedented to the fence
    prose: str  # the markdown between the previous block and this one

    def __str__(self) -> str:
        return f"docs/{self.doc}:{self.line}"

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @property
    def paragraph(self) -> str:
        """The prose paragraph right before the block."""
        return re.split(r"\n\s*\n", self.prose.rstrip())[-1]


FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,})(?P<lang>[\w-]*) *$")
PATH = r"[\w.-]+(?:/[\w.-]+)*\.(?:yaml|yml|py|json)"


def parse_blocks(doc: str) -> list[Block]:
    lines = (ROOT / "docs" / doc).read_text(encoding="utf-8").splitlines()
    blocks, i, prose_from = [], 0, 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == fence["fence"])
        cut = len(fence["indent"])
        body = "\n".join(x[cut:] if not x[:cut].strip() else x for x in lines[i + 1:end])
        blocks.append(Block(doc, i + 1, fence["lang"], body, "\n".join(lines[prose_from:i])))
        i = prose_from = end + 1
    return blocks


def markdown(doc: str) -> str:
    return (ROOT / "docs" / doc).read_text(encoding="utf-8")


def tables(doc: str) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """(the header row as written, its rows as {header: cell}) of every table of ``doc``."""
    lines = markdown(doc).splitlines()
    for i in range(len(lines) - 1):
        if lines[i].startswith("|") and re.fullmatch(r"\|[-| :]+\|", lines[i + 1].strip()):
            head = cells(lines[i])
            body = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                body.append(dict(zip(head, cells(row), strict=True)))
            yield " | ".join(head), body


def cells(row: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def table(doc: str, header: str, nth: int = 0) -> list[dict[str, str]]:
    found = [rows for head, rows in tables(doc) if head == header]
    assert len(found) > nth, f"docs/{doc} has no table `{header}` (#{nth + 1})"
    return found[nth]


def spans(text: str) -> list[str]:
    """The inline code spans of ``text``, opened and closed by equal runs of backticks."""
    found = re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", text, re.S)
    return [re.sub(r"^ (.*) $", r"\1", m[2], flags=re.S) for m in found]


BLOCKS = [b for doc in DOCS for b in parse_blocks(doc)]


def named(block: Block) -> str | None:
    """The file a block is: its first line `# path`, else the path the paragraph before
    ends with (`### The final file: `flows/booking.yaml``)."""
    first = re.fullmatch(rf"# ({PATH})", block.lines[0].strip()) if block.lines else None
    last = re.search(rf"`({PATH})`:?\s*$", block.paragraph)
    return first[1] if first else last[1] if last else None


def mentioned(block: Block) -> str | None:
    """The last path the paragraph before the block names."""
    paths = [s for s in spans(block.paragraph) if re.fullmatch(PATH, s)]
    return paths[-1] if paths else None


def yaml_data(block: Block) -> Any:
    """The block's YAML; `[...]` (the rest, left out) reads as `['...']`."""
    return yaml.safe_load(block.text.replace("[...]", "['...']"))


def yaml_kind(block: Block) -> str:
    if block.lines[0].startswith(" "):
        return "excerpt"
    data = yaml_data(block)
    if data is None:
        return "modeline"
    if isinstance(data, list):
        return "replies"
    if "jobs" in data:
        return "workflow"
    if "repos" in data:
        return "precommit"
    if "conversations" in data:
        return "tests"
    if "cases" in data:
        return "eval"
    if {"app", "services"} <= data.keys():
        return "app"
    return "service" if {"service", "flows"} <= data.keys() else "fragment"


def kind(block: Block) -> str:
    if (block.doc, block.lines[0]) in ILLUSTRATIVE:
        return "illustrative"
    if block.lang == "yaml":
        return yaml_kind(block)
    if block.lang in ("json", "python"):
        return block.lang
    if block.lang in ("bash", "sh", "shell"):
        return "commands"
    if block.lines[0].startswith("$ "):
        return "session"
    if re.search(r"Example \(\[tests/lint/cases/", block.paragraph):
        return "lint-example"
    if FINDING.match(block.lines[0]):
        return "findings"
    if any(re.search(r"-> +\S+\.py\b", x) for x in block.lines):
        return "module-map"
    return "unknown"


FINDING = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): ")


def test_the_docs_have_examples_of_every_kind() -> None:
    kinds = {kind(b) for b in BLOCKS}
    assert "unknown" not in kinds, [str(b) for b in BLOCKS if kind(b) == "unknown"]
    assert {"service", "fragment", "tests", "session", "findings", "commands",
            "lint-example"} <= kinds


def test_every_illustrative_block_still_exists() -> None:
    firsts = {(b.doc, b.lines[0]) for b in BLOCKS}
    assert ILLUSTRATIVE <= firsts and PARTIAL <= firsts
    for (doc, text) in VARIANTS:
        assert any(b.doc == doc and text in b.text for b in BLOCKS), (doc, text)


# --- running flowctl -------------------------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Ran:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines() + self.err.splitlines()


def flowctl(args: list[str], cwd: Path, *, stdin: str = "", env: dict[str, str] | None = None
            ) -> Ran:
    """``flowctl ARGS`` in process, in ``cwd``: its exit code, stdout and stderr."""
    out, err, old = io.StringIO(), io.StringIO(), Path.cwd()
    patched = {k: v for k, v in os.environ.items()  # no key, model or setting of this shell
               if not k.startswith(("OPENAI", "ANTHROPIC", "FLOWCTL_", "MEMORY_", "MAX_FILL"))}
    with mock.patch.dict(os.environ, {**patched, **(env or {})}, clear=True), \
            mock.patch.object(sys, "stdin", io.StringIO(stdin)), \
            redirect_stdout(out), redirect_stderr(err):
        os.chdir(cwd)
        try:
            code = main(args)
        finally:
            os.chdir(old)
    return Ran(code, ANSI.sub("", out.getvalue()), ANSI.sub("", err.getvalue()))


def parse_command(argv: list[str]) -> click.Command:
    """Check ``flowctl ARGV`` parses: the command, its options and choices, its arguments."""
    assert argv and argv[0] in app.commands, f"no command `flowctl {' '.join(argv[:1])}`"
    command = app.commands[argv[0]]
    with click.Context(command, info_name=argv[0]) as ctx:
        try:
            opts, args, _ = command.make_parser(ctx).parse_args(list(argv[1:]))
        except click.UsageError as err:
            pytest.fail(f"flowctl {' '.join(argv)}: {err.format_message()}")
    params = {p.name: p for p in command.params}
    for name, value in opts.items():
        choices = getattr(params[name].type, "choices", None)
        assert choices is None or value in choices, f"{argv}: --{name} {value!r} not in {choices}"
    missing = [p.name for p in command.params if p.required and not opts.get(p.name)]
    assert not missing and not args, f"{argv}: missing {missing}, extra {args}"
    return command


def matches(shown: list[str], real: list[str], *, exact: bool) -> str | None:
    """None when ``real`` is what ``shown`` says; else why not. With ``exact``, ``...``
    lines stand for any lines and the others must be there in a row; without it, every
    shown line must appear, in order."""
    chunks: list[list[str]] = [[]]
    for line in shown:
        if line.strip() in ("...", "…"):
            chunks.append([])
        elif exact:
            chunks[-1].append(line)
        else:
            chunks.append([line])
    at = 0
    for n, chunk in enumerate(chunks):
        if not chunk:
            continue
        starts = [i for i in range(at, len(real) - len(chunk) + 1)
                  if real[i:i + len(chunk)] == chunk]
        anchored = exact and n == 0
        if not starts or (anchored and starts[0] != 0):
            return f"not in the real output (from line {at + 1}):\n  " + "\n  ".join(chunk)
        at = starts[0] + len(chunk)
    if exact and chunks[-1] and at != len(real):
        return "the real output goes on:\n  " + "\n  ".join(real[at:])
    return None


def compare(block: Block, shown: list[str], ran: Ran, *, exact: bool) -> None:
    problem = matches(shown, ran.lines, exact=exact)
    assert problem is None, (f"{block}: {problem}\n--- real output (exit {ran.code}):\n"
                             + "\n".join(ran.lines))


# --- the workspace: the shipped flows plus the files the docs write ---------------------


@pytest.fixture(scope="session")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("docs")
    for folder in ("flows", "prompts", "tests/fixtures"):
        shutil.copytree(ROOT / folder, ws / folder)
    for block in BLOCKS:
        name = named(block)
        if name and kind(block) in ("service", "python", "tests") and not (ROOT / name).exists():
            (ws / name).write_text(materialised(block), encoding="utf-8")
    return ws


@pytest.fixture
def scratch(workspace: Path, tmp_path: Path) -> Path:
    """A copy of the workspace with tests/docs_examples/ laid over it, to change freely."""
    copy = tmp_path / "ws"
    shutil.copytree(workspace, copy)
    shutil.copytree(EXAMPLES, copy, dirs_exist_ok=True)
    return copy


def materialised(block: Block) -> str:
    """The block as a file; a test file's ``conversations: [...]`` gets a real one (the
    first conversation of its flow's own tests)."""
    data = yaml_data(block) if kind(block) == "tests" else None
    if isinstance(data, dict) and data.get("conversations") == ["..."]:
        flow = (ROOT / named(block)).parent / data["flow"]  # type: ignore[operator]
        own = load_text(flow.with_suffix(".test.yaml").read_text(encoding="utf-8"))[0]
        first = yaml.safe_dump(own["conversations"][:1], allow_unicode=True, sort_keys=False)
        return block.text.replace("conversations: [...]", "conversations:\n" + first)
    return block.text + "\n"


def apply_variants(block: Block, where: Path) -> None:
    for (doc, text), edits in VARIANTS.items():
        if doc == block.doc and text in block.text:
            for file, good, bad in edits:
                path = where / file
                source = path.read_text(encoding="utf-8")
                assert source.count(good) == 1, f"{block}: `{good}` is not once in {file}"
                path.write_text(source.replace(good, bad), encoding="utf-8")


# --- the checks of each kind -----------------------------------------------------------


def check_service(block: Block, ws: Path, tmp: Path) -> None:
    name = named(block)
    path = ws / name if name else tmp / "service.yaml"
    if not name:
        path.write_text(block.text, encoding="utf-8")
    try:
        compile_file(path)
    except FlowDefinitionError as err:
        pytest.fail(f"{block} does not compile:\n" + "\n".join(f.render() for f in err.findings))


def check_app(block: Block, ws: Path, tmp: Path) -> None:
    """An app file lints without errors (beside the shipped flows); a shipped one is shown
    as it is."""
    from engine.app.load import analyse_app

    name = named(block)
    if name and (ROOT / name).exists():
        assert (ROOT / name).read_text(encoding="utf-8") == block.text + "\n", block
    path = tmp / (name or "flows/app.yaml")
    path.write_text(block.text, encoding="utf-8")
    loaded, findings = analyse_app(path, {})
    errors = [f.render() for f in findings if f.severity == "error"]
    assert loaded is not None and not errors, f"{block}: " + "\n".join(errors)


def deep_merge(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        return {**base, **{k: deep_merge(base.get(k), v) for k, v in extra.items()}}
    return extra


BASES = ("flows/minimal.yaml", "flows/booking.yaml", "flows/transfer.yaml")


def check_fragment(block: Block, ws: Path, tmp: Path) -> None:
    fragment = yaml.safe_load(block.text)
    why = []
    for base in BASES:
        merged = deep_merge(load_text((tmp / base).read_text(encoding="utf-8"))[0], fragment)
        path = tmp / "flows" / "fragment.yaml"  # beside the prompts and validators
        path.write_text(yaml.safe_dump(merged, allow_unicode=True, sort_keys=False), "utf-8")
        try:
            compile_file(path)
            return
        except FlowDefinitionError as err:
            why.append(f"merged into {base}: " + "; ".join(f.render() for f in err.findings))
    pytest.fail(f"{block} compiles merged into none of {BASES}:\n" + "\n".join(why))


def check_tests(block: Block, ws: Path, tmp: Path) -> None:
    name = named(block)
    assert name, f"{block}: a conversation test example names its file (`# flows/x.test.yaml`)"
    if (ROOT / name).exists():  # the doc shows a shipped file: it must be that file
        assert load_text(block.text)[0] == load_text((ROOT / name).read_text("utf-8"))[0], (
            f"{block} is not {name}")
    ran = flowctl(["test", name], ws)
    assert ran.code == 0 and " 0 failed" in ran.out, f"{block}:\n{ran.out}{ran.err}"


def comment_free(line: str) -> str:
    return re.sub(r"\s+#\s.*$", "", line).rstrip()


def check_eval(block: Block, ws: Path, tmp: Path) -> None:
    from engine.testing.evaluate import EvalFileSpec

    spec = EvalFileSpec.model_validate(yaml_data(block))
    assert spec.flow is None or (ROOT / "flows" / spec.flow).is_file(), block
    if spec.flow is not None and "[...]" not in block.text:  # a whole file: it reads right
        import asyncio

        from engine.testing.evaluate import run_eval

        path = tmp / "docs.eval.yaml"
        path.write_text(block.text.replace(f"flow: {spec.flow}",
                                           f"flow: {ROOT / 'flows' / spec.flow}"), "utf-8")
        report = asyncio.run(run_eval(path))
        assert [r.problems for r in report.results if not r.right] == [], block


def check_excerpt(block: Block, ws: Path, tmp: Path) -> None:
    flows = [s for s in spans(block.prose) if re.fullmatch(PATH, s)
             and not s.endswith(".test.yaml") and (ROOT / s).is_file()]
    assert flows, f"{block}: an indented YAML excerpt follows prose naming its flow file"
    real = [comment_free(x) for x in (ROOT / flows[0]).read_text("utf-8").splitlines()]
    problem = matches([comment_free(x) for x in block.lines], real, exact=False)
    assert problem is None, f"{block} is not an excerpt of {flows[0]}: {problem}"


def check_modeline(block: Block, ws: Path, tmp: Path) -> None:
    from engine.dsl.schema import SCHEMA_PATH

    schema = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", block.text.strip())
    assert schema, f"{block}: only the yaml-language-server modeline"
    assert (ROOT / "flows" / schema[1]).resolve() == SCHEMA_PATH.resolve()


def check_replies(block: Block, ws: Path, tmp: Path) -> None:
    from engine.providers.scripted import ScriptedProvider

    provider = ScriptedProvider(yaml.safe_load(block.text))  # validates every entry
    assert provider.remaining == len(yaml.safe_load(block.text))


def shell_commands(script: str) -> Iterator[tuple[list[str], str]]:
    """(argv, what follows it: `> file || test $? -eq 1` ...) of each flowctl command."""
    for raw in script.splitlines():
        text = comment_free(raw).strip().removeprefix("$ ")
        command = re.split(r"\s(?:>|\|\||&&|\|)\s", text, maxsplit=1)[0]
        words = shlex.split(command)
        if words[:2] == ["python", "cli.py"]:
            words = ["flowctl", *words[2:]]
        if words[:1] == ["flowctl"]:
            yield words[1:], text[len(command):]


CHEAP = {"lint", "test", "graph", "new", "schema"}


def run_cheaply(argv: list[str], cwd: Path, tmp: Path) -> Ran | None:
    """Run a parsed command when it is cheap and local (not serve/chat, nothing written)."""
    if argv[0] not in CHEAP or (argv[0] == "schema" and "--check" not in argv):
        return None
    if argv[0] == "new":
        argv = [*argv, "--dir", str(tmp / "new")]
    paths = [a for a in argv[1:] if not a.startswith("-") and ("/" in a or "." in a)]
    if not all((cwd / p).exists() for p in paths):
        return None  # illustrative names (flows/a.yaml): parsed, not run
    if argv[0] == "new":
        return flowctl(argv, cwd)
    key = (tuple(argv), str(cwd))  # the same command in another doc: it writes nothing
    if key not in _RAN:
        _RAN[key] = flowctl(argv, cwd)
    return _RAN[key]


_RAN: dict[tuple[tuple[str, ...], str], Ran] = {}


def check_commands(block: Block, ws: Path, tmp: Path) -> None:
    checked = 0
    for raw in block.lines:
        words = shlex.split(comment_free(raw))
        if words[:1] == ["python"] and words[1:2] and words[1].startswith("bench/"):
            check_bench(raw, words[1], words[2:])
            checked += 1
    for raw in block.lines:
        for argv, _ in shell_commands(raw):
            command = parse_command(argv)
            options = {o for p in command.params for o in p.opts if o.startswith("-")}
            comment = raw[len(comment_free(raw)):]
            said = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", comment))
            assert said <= options, f"{block}: `flowctl {argv[0]}` has no {said - options}"
            ran = run_cheaply(argv, ws, tmp)
            assert ran is None or ran.code == 0, f"{block}: flowctl {' '.join(argv)}:\n{ran}"
            checked += 1
    assert checked == len([x for x in block.lines if comment_free(x)]), f"{block}: a line runs "\
        "neither flowctl nor a benchmark"


def check_bench(raw: str, script: str, args: list[str]) -> None:
    """A benchmark command: the script exists and takes the options the line names."""
    tree = ast.parse((ROOT / script).read_text(encoding="utf-8"))
    options = {a.value for node in ast.walk(tree) if isinstance(node, ast.Call)
               and getattr(node.func, "attr", "") == "add_argument"
               for a in node.args if isinstance(a, ast.Constant)}
    named_options = set(re.findall(r"--[\w-]+", raw))
    assert named_options <= options, f"{raw}: {script} has no {named_options - options}"
    values = [a for before, a in zip(["", *args], args, strict=False)
              if before in options and not a.startswith("-")]  # --stacks uvloop+httptools
    assert all(a in options or a in values or re.fullmatch(r"\d+", a) for a in args), raw


def check_workflow(block: Block, ws: Path, tmp: Path) -> None:
    steps = [s for job in yaml.safe_load(block.text)["jobs"].values() for s in job["steps"]]
    ran = 0
    for step in steps:
        for argv, rest in shell_commands(step.get("run", "")):
            parse_command(argv)
            result = run_cheaply(argv, ROOT, tmp)
            assert result is not None, f"{block}: {argv} is not run"
            allowed = {0} | {int(n) for n in re.findall(r"\|\| test \$\? -eq (\d+)", rest)}
            assert result.code in allowed, f"{block}: flowctl {' '.join(argv)}: {result}"
            if "--format" in argv and argv[argv.index("--format") + 1] == "sarif":
                assert json.loads(result.out)["version"] == "2.1.0"
            ran += 1
    assert ran >= 3, f"{block}: the workflow runs lint, the tests and SARIF"


def check_precommit(block: Block, ws: Path, tmp: Path) -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    for repo in yaml.safe_load(block.text)["repos"]:
        for hook in repo["hooks"]:
            assert hook["id"] in hooks, f"{block}: no hook `{hook['id']}`"
            entry = shlex.split(hooks[hook["id"]]["entry"])
            parse_command([*entry[1:], *hook.get("args", []), "flows/x.yaml"])


def check_json(block: Block, ws: Path, tmp: Path) -> None:
    data = json.loads(block.text)
    name = mentioned(block)
    if name == ".vscode/settings.json":
        for schema, globs in data["yaml.schemas"].items():
            assert (ROOT / schema).is_file(), f"{block}: {schema} does not exist"
            flows = {p for g in globs if not g.startswith("!") for p in ROOT.glob(g)}
            flows -= {p for g in globs if g.startswith("!") for p in ROOT.glob(g[1:])}
            kind = {"test.schema.json": ".test.yaml", "eval.schema.json": ".eval.yaml"}.get(
                Path(schema).name)  # each file goes to the schema of its own format
            assert flows and all(p.name.endswith(kind) if kind else
                                 not p.name.endswith((".test.yaml", ".eval.yaml"))
                                 for p in flows), globs
    elif name == ".vscode/tasks.json":
        for task in data["tasks"]:
            for argv, _ in shell_commands(task["command"]):
                parse_command(argv)
                assert flowctl(argv, ROOT).code == 0
            check_problem_matcher(block, task["problemMatcher"])
    elif name is not None and name.endswith("mcp.json"):  # the operator's MCP servers
        from engine.runtime.calls.mcp import load_mcp_config

        path = tmp / "mcp.json"
        path.write_text(block.text, encoding="utf-8")
        assert load_mcp_config({"FLOWCTL_MCP_CONFIG": str(path)}), block
    else:
        pytest.fail(f"{block}: a JSON example names its file (.vscode/settings.json ...)")


def check_problem_matcher(block: Block, matcher: dict[str, Any]) -> None:
    pattern = matcher["pattern"]
    regexp = re.compile(pattern["regexp"])
    report = lint_paths([CASES_DIR / "all_findings_at_once.yaml"])
    assert report.findings
    for finding in report.findings:
        found = regexp.match(finding_line(finding))
        assert found, f"{block}: the problem matcher misses {finding_line(finding)}"
        assert found[pattern["file"]] == finding.location.file
        assert int(found[pattern["line"]]) == finding.location.line
        assert int(found[pattern["column"]]) == finding.location.column
        assert (found[pattern["severity"]], found[pattern["code"]]) == (finding.severity,
                                                                         finding.code)


def check_python(block: Block, ws: Path, tmp: Path) -> None:
    tree = compile(block.text, str(block), "exec",
                   flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    name = named(block)
    if name:  # a file the docs write (a validator): the service using it compiles with it
        assert (ws / name).read_text(encoding="utf-8") == block.text + "\n"
        return
    space = python_names(tree)
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        target = resolve(call.func, space)
        if target is None:
            continue
        try:
            signature = inspect.signature(target)
        except ValueError:  # a type built in C (protobuf messages): nothing to bind to
            continue
        try:
            signature.bind(*call.args, **{k.arg: k.value for k in call.keywords if k.arg})
        except TypeError as err:
            pytest.fail(f"{block}: {ast.unparse(call)}: {err}")


PYTHON_HOMES = ("engine.providers.reliability", "engine.providers.registry",
                "engine.providers.scripted", "engine.providers.jsonout", "engine.providers.tools",
                "engine.providers.base", "engine.compiler.templates")


def python_names(tree: ast.Module) -> dict[str, Any]:
    """What a docs snippet can call: what it imports, and the provider modules' names."""
    import importlib

    space: dict[str, Any] = {}
    for home in PYTHON_HOMES:
        module = importlib.import_module(home)
        space |= {k: v for k, v in vars(module).items() if not k.startswith("_")}
        space[home.rsplit(".", 1)[1]] = module  # `registry.build_provider(...)`
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{node.module} has no {alias.name}"
                space[alias.asname or alias.name] = getattr(module, alias.name)
    return space


def resolve(func: ast.expr, space: dict[str, Any]) -> Callable[..., Any] | None:
    if isinstance(func, ast.Name):
        return space.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = space.get(func.value.id)
        if inspect.ismodule(owner) and owner.__name__ in PYTHON_HOMES:
            assert hasattr(owner, func.attr), f"{owner.__name__} has no `{func.attr}`"
            return getattr(owner, func.attr)  # type: ignore[no-any-return]
        if inspect.isclass(owner):
            assert hasattr(owner, func.attr), f"{owner.__name__} has no `{func.attr}`"
            return getattr(owner, func.attr)  # type: ignore[no-any-return]
    return None


def check_session(block: Block, ws: Path, tmp: Path) -> None:
    command, *shown = block.lines
    argv = shlex.split(command.removeprefix("$ "))[1:]
    parse_command(argv)
    stdin = "".join(x.removeprefix("you> ") + "\n" for x in shown if x.startswith("you> "))
    apply_variants(block, tmp)
    ran = flowctl(argv, tmp, stdin=stdin)
    compare(block, shown, ran, exact=(block.doc, command) not in PARTIAL)


def check_findings(block: Block, ws: Path, tmp: Path) -> None:
    apply_variants(block, tmp)
    exact = "real output" in block.paragraph.lower()
    for part in re.split(r"\n\s*\n", block.text.strip()):
        shown = part.splitlines()
        file = FINDING.match(shown[0])["file"]  # type: ignore[index]
        where = tmp if (tmp / file).exists() else ROOT
        assert (where / file).exists(), f"{block}: {file} exists nowhere"
        args = ["test", file] if file.endswith(".test.yaml") else ["lint", file]
        ran = flowctl(args, where)
        compare(block, shown, ran, exact=exact)
        assert ran.code != 0 or not any("[error FL" in x for x in shown), f"{block}: exit 0"


def check_lint_example(block: Block, ws: Path, tmp: Path) -> None:
    case = re.search(r"Example \(\[tests/lint/cases/([^\]]+)\]", block.paragraph)[1]  # type: ignore[index]
    old = Path.cwd()
    os.chdir(CASES_DIR)
    try:
        findings = lint_paths([case]).findings
    finally:
        os.chdir(old)
    by_line = {finding_line(f): f for f in findings}
    shown = [x for x in block.lines if FINDING.match(x)]
    assert shown, f"{block}: no finding line"
    for text in shown:
        assert text in by_line, f"{block}: lint of {case} does not report\n  {text}\n" + \
            "it reports:\n  " + "\n  ".join(by_line)
        before = block.lines[block.lines.index(text) - 1] if block.lines.index(text) else None
        assert before in (None, by_line[text].source_line), (
            f"{block}: the source line of `{text}` is `{by_line[text].source_line}`")


def check_module_map(block: Block, ws: Path, tmp: Path) -> None:
    modules = {p.relative_to(ROOT / "engine").as_posix() + ("/" if p.is_dir() else "")
               for p in (ROOT / "engine").rglob("*") if "__pycache__" not in p.parts}
    for token in re.findall(r"(?<![\w/.])([\w/]+(?:\.py|/))(?=[\s,)]|$)", block.text, re.M):
        assert any(m == token or m.endswith("/" + token) for m in modules), (
            f"{block}: no engine module `{token}`")


CHECKS: dict[str, Callable[[Block, Path, Path], None]] = {
    "service": check_service, "fragment": check_fragment, "tests": check_tests,
    "eval": check_eval,
    "excerpt": check_excerpt, "modeline": check_modeline, "replies": check_replies,
    "workflow": check_workflow, "precommit": check_precommit, "json": check_json,
    "python": check_python, "commands": check_commands, "session": check_session,
    "findings": check_findings, "lint-example": check_lint_example,
    "module-map": check_module_map, "illustrative": lambda *_: None, "app": check_app,
}


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.doc}:{b.line}-{kind(b)}" for b in BLOCKS])
def test_example(block: Block, workspace: Path, scratch: Path) -> None:
    CHECKS[kind(block)](block, workspace, scratch)


# --- sentences that show what a command prints --------------------------------------------


def prose(doc: str) -> str:
    """``doc`` without its fenced blocks, each paragraph on one line."""
    text = re.sub(r"^( *)(`{3,}).*?^\1\2 *$", "", markdown(doc), flags=re.M | re.S)
    return re.sub(r"(?<!\n)\n(?!\n)", " ", text)


PRINTS = [(doc, m[1], m[2]) for doc in DOCS
          for m in re.finditer(r"`(flowctl \w+ [^`]*/[^`]*)`([^.]*?\bprints\b[^.]*)", prose(doc))]


@pytest.mark.parametrize("doc, command, said", PRINTS, ids=[c for _, c, _ in PRINTS])
def test_what_a_command_prints(doc: str, command: str, said: str, workspace: Path) -> None:
    ran = flowctl(shlex.split(command)[1:], workspace)
    for text in spans(said):
        assert " ".join(text.split()) in ran.out, f"docs/{doc}: `{command}` prints\n{ran.out}"


def test_the_prints_sentences_are_found() -> None:
    assert {c for _, c, _ in PRINTS} >= {"flowctl lint flows/booking.yaml",
                                          "flowctl test flows/booking.test.yaml"}


# --- tables ----------------------------------------------------------------------------

TODAY = dt.date(2026, 1, 8)  # dsl.md: 'on Thursday 2026-01-08'


def extraction_examples() -> Iterator[tuple[str, str, Any, str]]:
    """(type, text, value or None, the enum values) of dsl.md's table of slot types."""
    for row in table("dsl.md", "type | found in text | examples → value"):
        slot_type = spans(row["type"])[0]
        examples = row["examples → value"]
        values = next((s.removeprefix("values: ") for s in spans(examples)
                       if s.startswith("values:")), "")
        for text, value in re.findall(r'"([^"]+)" → ([^,;]+)', examples):
            value = value.split(" (")[0].strip()
            yield slot_type, text, None if value == "nothing" else yaml.safe_load(value), values
        nothing = re.findall(r'"([^"]+)" is (?:skipped|a number, not)', examples)
        nothing += re.findall(r'"([^"]+)"', examples.split("not money:")[1]) \
            if "not money:" in examples else []
        for text in nothing:
            yield slot_type, text, None, values
        for text in re.findall(r'"([^"]+)"', row["found in text"]):
            yield slot_type, text, ..., values


EXTRACTION = list(extraction_examples())


@pytest.mark.parametrize("slot_type, text, value, values", EXTRACTION,
                         ids=[f"{t}:{x}" for t, x, _, _ in EXTRACTION])
def test_extraction_table(slot_type: str, text: str, value: Any, values: str) -> None:
    from engine.runtime.understanding.slots import Rejected, validate
    from engine.runtime.understanding.understand import extract

    slot = extraction_service(slot_type, values).flows["main"].extraction[0]
    found = extract(text, [slot], TODAY).get("x")
    if found is not None:  # stored as validation leaves it (a date as its ISO string)
        found = validate(slot, found, {})
        assert not isinstance(found, Rejected), f"dsl.md: {text!r} is found, then rejected"
    if isinstance(value, dt.date):
        value = value.isoformat()
    if value is ...:
        assert found is not None, f"dsl.md: {slot_type} finds something in {text!r}"
    else:
        assert found == value, f"dsl.md: {slot_type} {text!r} -> {value!r}, really {found!r}"


@functools.lru_cache
def extraction_service(slot_type: str, values: str) -> Any:
    from engine.compiler.build import build_service
    from engine.dsl.spec import ServiceSpec
    from engine.source import SourceMap

    slot: dict[str, Any] = {"type": slot_type}
    if values:
        slot["values"] = yaml.safe_load(values)
    spec = ServiceSpec.model_validate({
        "service": "x", "default_flow": "main", "slots": {"x": slot},
        "flows": {"main": {"slots": ["x"], "initial": "A", "stages": {"A": {}}}}})
    return build_service(spec, SourceMap("<docs>", []), base_dir=ROOT)


def test_extraction_table_is_read() -> None:
    types = {t for t, _, _, _ in EXTRACTION}
    assert {"money", "date", "enum", "integer", "number"} <= types and len(EXTRACTION) > 40


def yes_no_words() -> Iterator[tuple[str, str, str]]:
    for row in table("dsl.md", "locale | confirm | deny | cancel"):
        locale = spans(row["locale"])[0]
        for answer in ("confirm", "deny", "cancel"):
            for quoted, bare in re.findall(r'"([^"]+)"|(\S+)', row[answer]):
                yield locale, answer, quoted or bare


WORDS = list(yes_no_words())


@pytest.mark.parametrize("locale, answer, word", WORDS, ids=[f"{a}:{w}" for _, a, w in WORDS])
def test_yes_no_table(locale: str, answer: str, word: str) -> None:
    from engine.nlu import default_words, yes_no

    assert yes_no(word, default_words(locale)) == answer


def test_yes_no_table_lists_every_word() -> None:
    from engine.nlu import default_words, normalise

    words = default_words("ko")  # both rows apply in every locale
    assert default_words("en") == words
    for answer in ("confirm", "deny", "cancel"):
        doc = {normalise(w) for _, a, w in WORDS if a == answer}
        assert doc == set(getattr(words, answer)), answer


YES_NO_PROSE = re.findall(r'"([^"]+)" → (confirm|cancel|deny)', markdown("dsl.md"))
NOT_ANSWERS = [w for group in re.findall(r"\(((?:\"[^\"]+\",?\s*)+) are not answers",
                                         markdown("dsl.md"))
               for w in re.findall(r'"([^"]+)"', group)] + \
    re.findall(r'\("(\w+)" is\s+not "\w+"\)', markdown("dsl.md"))


@pytest.mark.parametrize("text, answer", YES_NO_PROSE)
def test_yes_no_sentences(text: str, answer: str) -> None:
    from engine.nlu import default_words, yes_no

    assert yes_no(text, default_words("")) == answer


@pytest.mark.parametrize("text", NOT_ANSWERS)
def test_not_yes_no_sentences(text: str) -> None:
    from engine.nlu import default_words, yes_no

    assert yes_no(text, default_words("")) is None


def test_yes_no_sentences_are_read() -> None:
    assert len(YES_NO_PROSE) >= 4 and {"네이버", "예약", "yesterday"} <= set(NOT_ANSWERS)


# --- key tables against the models that read the files ------------------------------------


def key_tables() -> Iterator[tuple[str, str, int, Any, str]]:
    """(doc, header, which table with it, the model, the key prefix) of every key table."""
    from engine.app import spec as a
    from engine.dsl import spec as s
    from engine.testing import spec as t

    key = "key | type | default | meaning"
    yield from [("dsl.md", key, 0, s.ServiceSpec, ""), ("dsl.md", key, 1, s.SlotSpec, ""),
                ("dsl.md", key, 1, s.ExtractSpec, "extract."),
                ("dsl.md", key, 2, s.FlowSpec, ""), ("dsl.md", key, 3, s.StageSpec, ""),
                ("dsl.md", key, 4, s.TransitionSpec, ""),
                ("dsl.md", "intent key | type | default | meaning", 0, s.IntentSpec, ""),
                ("dsl.md", "guard rule key | type | default | meaning", 0, s.GuardRule, ""),
                ("dsl.md", "knowledge key | type | default | meaning", 0, s.KnowledgeSpec, ""),
                ("dsl.md", "retrieve key | type | default | meaning", 0, s.RetrieveStep, ""),
                ("dsl.md", "respond key | type | default | meaning", 0, s.SynthesisSpec, ""),
                ("dsl.md", "response line key | type | default | meaning", 0, s.RespondLine,
                 ""),
                ("dsl.md", "key | kinds | default | meaning", 0, s.ToolAction, ""),
                ("dsl.md", "key | kinds | default | meaning", 0, s.HttpAction, ""),
                ("dsl.md", "key | kinds | default | meaning", 0, s.HttpRequestSpec, "http."),
                ("dsl.md", "workspace key | type | default | meaning", 0, s.WorkspaceAction, ""),
                ("dsl.md", "command key | type | default | meaning", 0, s.CommandAction, ""),
                ("dsl.md", "loop key | type | default | meaning", 0, s.LoopSpec, ""),
                ("dsl.md", "tool key | type | default | meaning", 0, s.ToolSpec, ""),
                ("testing.md", key, 0, t.TestFileSpec, ""),
                ("testing.md", "key | type | passes when", 0, t.TurnSpec, ""),
                ("providers.md", "field | default | notes", 0, s.ModelSpec, ""),
                ("apps.md", key, 0, a.AppSpec, ""), ("apps.md", key, 1, a.ServiceSpec, ""),
                ("apps.md", key, 2, a.HookSpec, "")]


KEY_TABLES = list(key_tables())


def doc_keys(rows: list[dict[str, str]], prefix: str, model: Any) -> dict[str, dict[str, str]]:
    """The rows' keys under ``prefix`` (`extract.bare` -> `bare`), for this model; a dotted
    key stands for its first part, whose row then says nothing about it."""
    column = next(iter(rows[0]))
    keys: dict[str, dict[str, str]] = {}
    for row in rows:
        kinds = row.get("kinds", "both")
        if not prefix and kinds not in ("both", model.__name__.removesuffix("Action").lower()):
            continue
        for name in spans(row[column]):
            if prefix and name.startswith(prefix):
                keys[name.removeprefix(prefix)] = row
            elif not prefix:
                keys[name.split(".")[0]] = {} if "." in name else row
    return keys


@pytest.mark.parametrize("doc, header, nth, model, prefix", KEY_TABLES,
                         ids=[f"{d}:{m.__name__}" for d, _, _, m, _ in KEY_TABLES])
def test_key_table(doc: str, header: str, nth: int, model: Any, prefix: str) -> None:
    documented = doc_keys(table(doc, header, nth), prefix, model)
    fields = {(f.alias or name): f for name, f in model.model_fields.items()}
    extra, lacking = sorted(set(documented) - set(fields)), sorted(set(fields) - set(documented))
    assert not extra and not lacking, (
        f"docs/{doc}: the {model.__name__} table lists {extra} too many, {lacking} too few")
    for name, row in documented.items():
        field = fields[name]
        said = doc_default(row.get("default"))
        if said is REQUIRED:
            assert field.is_required(), f"docs/{doc}: `{name}` is not required"
        elif said is not SKIP:
            real = field.get_default(call_default_factory=True)
            if hasattr(real, "model_validate") and isinstance(said, dict):
                said = type(real).model_validate(said)
            assert not field.is_required() and real == said, \
                f"docs/{doc}: `{name}` defaults to {real!r}, not {said!r}"
        choices = literals(field.annotation)
        shown = [c for c in spans(row.get("type", "")) if re.fullmatch(r"[\w-]+", c)]
        if choices and len(shown) > 1:
            assert set(shown) == choices, f"docs/{doc}: `{name}` takes {sorted(choices)}"


REQUIRED, SKIP = object(), object()


def doc_default(cell: str | None) -> Any:
    """What a default cell says: REQUIRED, a value, or SKIP (prose, or several cases)."""
    if cell is None or cell in ("see below", "—"):
        return SKIP
    if cell in ("required", "(required) the message sent."):
        return REQUIRED
    if cell == "none":
        return None
    found = spans(cell)
    if len(found) == 1 and cell.startswith(f"`{found[0]}`"):
        return yaml.safe_load(found[0])
    plain = yaml.safe_load(cell) if re.fullmatch(r"[\d.]+", cell) else SKIP
    return plain


def literals(annotation: Any) -> set[str]:
    import typing

    if typing.get_origin(annotation) is typing.Literal:
        return {str(a) for a in typing.get_args(annotation)}
    return {x for a in typing.get_args(annotation) for x in literals(a)}


def test_the_turn_keys_table_is_the_turn_model() -> None:
    rows = table("testing.md", "key | type | passes when")
    assert doc_default(rows[0]["passes when"]) is REQUIRED


def test_scripted_fixture_keys() -> None:
    from engine.providers.scripted import ENTRY_KEYS

    rows = table("providers.md", "key | type | meaning")
    assert {spans(r["key"])[0] for r in rows} == set(ENTRY_KEYS)


def test_event_tables() -> None:
    from engine.registry import EVENT_NAMES

    for doc, header in (("dsl.md", "event | payload | when"), ("testing.md", "event | payload")):
        assert tuple(spans(r["event"])[0] for r in table(doc, header)) == EVENT_NAMES, doc


def test_template_names_table() -> None:
    from engine.compiler.templates import CONTEXT_NAMES

    names = {n for r in table("dsl.md", "name | holds | example") for n in spans(r["name"])}
    assert names == CONTEXT_NAMES


def test_lint_catalogue_table() -> None:
    rows = table("lint.md", "code | severity | catches")
    said = [(re.search(r"FL\d+", r["code"])[0], r["severity"], r["catches"])  # type: ignore[index]
            for r in rows]
    assert said == [(c.code, c.severity, c.summary) for c in CATALOGUE]


def test_step_kinds_table() -> None:
    from pydantic import TypeAdapter

    from engine.dsl.spec import Step

    rows = table("dsl.md", "kind | example | what it does")
    kinds = [spans(r["kind"])[0] for r in rows]
    assert kinds == ["say", "set", "trigger", "call", "emit", "agent", "if", "retrieve",
                     "respond", "loop"]
    adapter = TypeAdapter(Step)
    for row, name in zip(rows, kinds, strict=True):
        (step,) = yaml.safe_load(spans(row["example"])[0])
        assert name in step and adapter.validate_python(step) is not None, row["example"]


def test_the_providers_table_names_every_provider() -> None:
    from engine.registry import PROVIDERS

    field = next(r for r in table("providers.md", "field | default | notes")
                 if r["field"] == "`provider`")
    assert spans(field["notes"]) == list(PROVIDERS)


# --- examples inside sentences ------------------------------------------------------------


def sentence(doc: str, start: str) -> str:
    """The paragraph of ``doc`` (one line, no blocks) from ``start`` on."""
    text = prose(doc)
    assert start in text, f"docs/{doc} no longer says {start!r}"
    return text[text.index(start):].split("\n")[0]


def test_an_unknown_key_in_a_test_file_is_reported_alone(scratch: Path) -> None:
    said = sentence("testing.md", "An unknown key is reported first")
    (shown,) = [s for s in spans(said) if FINDING.match(s)]
    bad = scratch / "flows" / "bad.test.yaml"
    bad.write_text(bad.read_text("utf-8") + "      - {user: ok, says: hi}\n", "utf-8")
    ran = flowctl(["test", "flows/bad.test.yaml"], scratch)
    assert ran.code == 2 and [x for x in ran.lines if FINDING.match(x)] == [shown], ran.lines


def test_the_template_filters() -> None:
    from engine.compiler.templates import environment, won

    said = sentence("dsl.md", "Filters besides jinja2's own")
    pairs = re.findall(r"(\d+) → `([^`]+)`", said)
    assert len(pairs) >= 3 and all(won(int(n)) == text for n, text in pairs), pairs
    for expression, text in re.findall(r"`([^`]+\| *money[^`]*)` → `([^`]+)`", said):
        assert environment().from_string("{{ " + expression + " }}").render() == text
    code = re.search(r"others with the code: `(\d+) (\w+)`", said)
    assert code and environment().from_string(f"{{{{ {code[1]} | money('{code[2]}') }}}}"
                                              ).render() == f"{code[1]} {code[2]}"


def test_intent_scores() -> None:
    from engine.nlu import IntentRule, classify

    said = sentence("dsl.md", "**Intents**")
    keywords = re.search(r"with `\[([^\]]+)\]`, \"([^\"]+)\" scores (\d\.\d+)", said)
    assert keywords, said
    rule = IntentRule("x", keywords=tuple(w.strip() for w in keywords[1].split(",")))
    assert classify(keywords[2], [rule])[0].confidence == pytest.approx(float(keywords[3]))
    example = re.search(r'\("([^"]+)" vs "([^"]+)": (\d\.\d+)\)', said)
    assert example, said
    (score,) = classify(example[1], [IntentRule("x", examples=(example[2],))])
    assert round(score.confidence, 2) == float(example[3])
    for word, found, missed in re.findall(r'\("(\w+)" finds "(\w+)", not "(\w+)"\)', said):
        assert classify(found, [IntentRule("x", keywords=(word,))])
        assert not classify(missed, [IntentRule("x", keywords=(word,))])
    for word, text in re.findall(r'\("(\w+)" is not in "(\w+)"\)', said):
        assert not classify(text, [IntentRule("x", keywords=(word,))])


def test_built_in_texts() -> None:
    from engine.registry import BUILTIN_TEXTS

    said = sentence("dsl.md", "**Built-in texts.**")
    listed = said.split("by defining a message with the same name:")[1].split(".")[0]
    assert set(spans(listed)) == set(BUILTIN_TEXTS)
    sees = dict(re.findall(r"`\{\{ (\w+) \}\}`(?: and `\{\{ \w+ \}\}`)? in `(\w+)`", said))
    for name, text in sees.items():
        assert name in BUILTIN_TEXTS[text], (name, text)
    assert {t for t, values in BUILTIN_TEXTS.items() if values} == set(sees.values())


def test_settings_defaults() -> None:
    from engine.config import load_settings

    said = sentence("dsl.md", "Three keys, all whole numbers")
    defaults = dict(re.findall(r"`(\w+)` \((\d+)\)", said))
    settings = load_settings({})
    assert defaults and all(getattr(settings, k) == int(v) for k, v in defaults.items())


def test_an_unquoted_expression_string_is_a_variable(scratch: Path) -> None:
    said = sentence("dsl.md", "In expression places")
    lint_says = re.search(r'lint says "(.+?) \[error (FL\d+)\]"', said)
    assert lint_says, said
    fragment = next(b for b in BLOCKS if b.doc == "dsl.md" and kind(b) == "fragment"
                    and "source: \"'chat'\"" in b.text)
    base = load_text((scratch / "flows" / "booking.yaml").read_text("utf-8"))[0]
    broken = deep_merge(base, yaml.safe_load(fragment.text.replace("\"'chat'\"", "chat")))
    path = scratch / "flows" / "unquoted.yaml"
    path.write_text(yaml.safe_dump(broken, allow_unicode=True), "utf-8")
    with pytest.raises(FlowDefinitionError) as caught:
        compile_file(path)
    shown = lint_says[1].replace("`", "").split("…")[0]
    assert any(f.code == lint_says[2] and finding_line(f).replace("`", "").split(": ", 1)[1]
               .startswith(shown) for f in caught.value.findings), caught.value.findings


def test_the_github_format(monkeypatch: pytest.MonkeyPatch) -> None:
    said = sentence("lint.md", "`--format text|json|github|sarif`")
    (shape,) = [s for s in spans(said) if s.startswith("::")]
    pattern = re.escape(shape).replace(re.escape("..."), "[^,:]+").replace("FL046", r"FL\d+")
    pattern = pattern.replace("message", ".+").replace("::error", "::(?:error|warning)")
    ran = flowctl(["lint", "--format", "github", "fl046_irreversible_without_confirmation.yaml"],
                  CASES_DIR)
    assert ran.out.splitlines() and all(re.fullmatch(pattern, x) for x in ran.out.splitlines())


def test_what_ci_runs_here() -> None:
    said = sentence("ci.md", "`.ci/run` installs")
    script = (ROOT / ".ci" / "run").read_text("utf-8")
    ran = {" ".join(x.split()) for x in re.findall(r"^(?:python3 -m |flowctl )[^\n#]+", script,
                                                    re.M)}
    named = {s for s in spans(said) if s.startswith(("flowctl ", "python3 -m "))}
    for command in named:
        assert any(c == command or c.startswith(command + " ") for c in ran), (
            f"docs/ci.md names `{command}`, which .ci/run does not run: {sorted(ran)}")
    for command in ran - {c for c in ran if "pip install" in c}:
        assert any(command == n or command.startswith(n + " ") for n in named), (
            f".ci/run runs `{command}`, which docs/ci.md does not name")


def test_the_pre_commit_hook_runs_on_flows() -> None:
    said = sentence("ci.md", "The hook runs on")
    assert "`flows/`" in said
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    files = re.compile(hook["files"])
    assert files.search("flows/pay.yaml") and files.search("svc/flows/pay.test.yml")
    assert not files.search("pay.yaml") and not files.search("workflows/ci.yaml")


def test_a_bad_setting_stops_with_one_line(workspace: Path) -> None:
    said = sentence("architecture.md", "A value that does not parse")
    (shown,) = [s for s in spans(said) if s.startswith("error: ")]
    name, value = re.search(r"(\w+)='([^']*)'", shown).groups()  # type: ignore[union-attr]
    ran = flowctl(["chat", "flows/minimal.yaml"], workspace, env={name: value})
    assert (ran.code, ran.err.strip(), ran.out) == (2, shown, "")


def test_the_benchmark_turn_count() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from bench.conversations import CONVERSATIONS
    finally:
        sys.path.remove(str(ROOT))
    (block,) = [b for b in BLOCKS if "bench/turns.py" in b.text]
    rounds, turns = re.search(r"--rounds (\d+) +# (\d+) turns", block.text).groups()  # type: ignore[union-attr]
    assert int(rounds) * sum(map(len, CONVERSATIONS)) == int(turns)


def test_the_scripted_provider_in_python() -> None:
    from engine.providers.scripted import ScriptedProvider

    said = sentence("providers.md", "In Python:")
    provider = ScriptedProvider(["a"], chunk_chars=4)
    for attribute in re.findall(r"`\.(\w+)", said):
        assert hasattr(provider, attribute), attribute


def test_provider_error_kinds() -> None:
    from engine.errors import ProviderError
    from engine.providers.scripted import ERROR_KINDS

    rows = table("providers.md", "kind | from | retried")
    assert {spans(r["kind"])[0] for r in rows} == set(ERROR_KINDS)
    for row in rows:
        error = ProviderError("x", provider="p", kind=spans(row["kind"])[0])  # type: ignore[arg-type]
        assert error.retryable == (row["retried"] == "yes"), row
    (block,) = [b for b in BLOCKS if kind(b) == "replies"]
    comment = " ".join(re.findall(r"#\s+(.*)", block.text.split("- error:")[1].split("\n- ")[0]))
    assert set(re.findall(r"\w+", comment.split(":", 1)[1])) == set(ERROR_KINDS), comment


CALLS = [(doc, s) for doc in DOCS for s in spans(prose(doc))
         if re.fullmatch(r"[A-Za-z_][\w.]*\(.+\)", s, re.S)]


@pytest.mark.parametrize("doc, call", CALLS, ids=[c for _, c in CALLS])
def test_signature_in_a_sentence(doc: str, call: str) -> None:
    """`run_tool_loop(provider, request, model, tools, agent=..., max_rounds=4)`: the
    function takes these parameters, in this order, with these defaults."""
    node = ast.parse(" ".join(call.split()), mode="eval").body
    assert isinstance(node, ast.Call)
    target = resolve(node.func, python_names(ast.parse("")))
    if target is None:  # `ask(slot)`, `function(value, slots)`: names of the flow language
        return
    params = list(inspect.signature(target).parameters.values())
    for param, arg in zip(params, node.args, strict=False):
        if isinstance(arg, ast.Name):
            assert param.name == arg.id, f"docs/{doc}: `{call}`: {param.name}, not {arg.id}"
    for keyword in node.keywords:
        param = next((p for p in params if p.name == keyword.arg), None)
        assert param is not None, f"docs/{doc}: `{call}`: no parameter `{keyword.arg}`"
        if isinstance(keyword.value, ast.Constant) and keyword.value.value is not ...:
            assert param.default == keyword.value.value, f"docs/{doc}: `{call}`: {param}"
    inspect.signature(target).bind_partial(*node.args, **{k.arg: k.value for k in node.keywords
                                                          if k.arg})


KEY_SENTENCES = [("`models` names LLM configurations (", "), used by", "ModelSpec"),
                 ("`understand` keys: ", ").", "UnderstandSpec"),
                 ("`memory` keys: ", ". When", "MemorySpec")]


@pytest.mark.parametrize("start, end, model", KEY_SENTENCES, ids=[m for _, _, m in KEY_SENTENCES])
def test_keys_in_a_sentence(start: str, end: str, model: str) -> None:
    """dsl.md's `memory` keys: `enabled` (true), `summarize_threshold` (6), ... are the
    model's fields with those defaults."""
    from engine.dsl import spec

    fields = getattr(spec, model).model_fields
    said = sentence("dsl.md", start)[len(start):]
    said = re.sub(r"\((?!true|false|\d)[^)]*\)", "", said[:said.index(end) + 1])
    keys = dict(re.findall(r"`(\w+)`(?: \(?(true|false|[\d.]+)\)?)?", said))
    assert set(keys) == set(fields), f"dsl.md lists {sorted(keys)} for {model}"
    for name, value in keys.items():
        if value:
            assert fields[name].default == yaml.safe_load(value), (name, value)


def test_words_keys() -> None:
    from engine.dsl.spec import WordsSpec

    (shown,) = [s for s in spans(sentence("dsl.md", "`words: {")) if s.startswith("words:")]
    assert set(yaml.safe_load(shown.replace("[...]", "[]"))["words"]) == set(
        WordsSpec.model_fields)


def test_provider_sentences() -> None:
    """providers.md on `available_providers`, a missing key, an unknown provider, the tools."""
    from engine.errors import FlowRuntimeError
    from engine.providers.registry import available_providers, build_provider
    from engine.providers.tools import BUILTIN_TOOLS, CalculatorError, evaluate

    said = sentence("providers.md", "`available_providers(env)` lists")
    assert "`openai` when a key or a base URL is set, `anthropic` when a key is set" in said
    assert available_providers({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}) == ["openai"]
    assert available_providers({"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}) == [
        "openai", "anthropic"]
    assert available_providers({"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}) == []
    with pytest.raises(FlowRuntimeError, match="ANTHROPIC_API_KEY"):
        build_provider("anthropic", {})
    with pytest.raises(ValueError, match="known providers: .*openai"):
        build_provider("opneai", {})
    tools = sentence("providers.md", "Tools are named in code")
    assert f"holds `{', '.join(BUILTIN_TOOLS)}`" in tools
    limits = sentence("providers.md", "`calculator` evaluates")
    chars, magnitude = re.search(r"limited to (\d+) characters and every value to (1e\d+)",
                                 limits).groups()  # type: ignore[union-attr]
    exponent = int(magnitude.removeprefix("1e"))
    longest = "1+" * (int(chars) // 2 - 1) + "10"  # exactly the limit
    assert len(longest) == int(chars) and evaluate(longest)
    assert evaluate(f"10**{exponent - 1} * 10") == 10**exponent
    for too_much in (longest + "0", f"10**{exponent} * 10", "2**10000"):
        with pytest.raises(CalculatorError):
            evaluate(too_much)


def test_editor_sentences(tmp_path: Path) -> None:
    """editors.md: `flowctl new` writes the modeline; `flowctl graph` is Mermaid."""
    from engine.dsl.schema import SCHEMA_PATH

    assert "`flowctl new` writes it for you" in sentence("editors.md", "Install the **YAML**")
    ran = flowctl(["new", "my_service", "--dir", str(tmp_path / "flows")], ROOT)
    assert ran.code == 0, ran
    first = (tmp_path / "flows" / "my_service.yaml").read_text("utf-8").splitlines()[0]
    schema = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
    assert schema and (tmp_path / "flows" / schema[1]).resolve() == SCHEMA_PATH.resolve()
    assert "```` ```mermaid ````" in markdown("editors.md")
    graph = flowctl(["graph", "flows/transfer.yaml"], ROOT)
    assert graph.code == 0 and graph.out.startswith("stateDiagram-v2"), graph


def test_lint_goes_parallel_where_performance_md_says() -> None:
    from engine.lint.run import PARALLEL_FROM

    said = sentence("performance.md", "Under the 2 s target.")
    assert f"`lint_paths` starts them from {PARALLEL_FROM} files" in said
