"""flowctl command line: ``main(argv) -> int``; each command parses, calls the engine, renders.

Exit codes: 0 ok, 1 findings or failing tests, 2 unusable input (invalid flow, bad usage).
"""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from engine.errors import FlowDefinitionError, FlowRuntimeError

if TYPE_CHECKING:
    from rich.console import Console


class _LazyConsole:
    """A rich Console made on first use: `flowctl serve` never prints through one, and
    leaving rich unimported keeps ~1.5 MiB off the server (docs/performance.md)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def real(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)


console = _LazyConsole(highlight=False, soft_wrap=True)
errors = _LazyConsole(stderr=True, highlight=False, soft_wrap=True)


class Exit(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="flowctl")
def app() -> None:
    """Run, test and lint LLM conversational services written as one YAML file."""


@app.command()
@click.argument("flow", type=click.Path(dir_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--store", "store_url", default=None, metavar="URL",
              help="Session store: sqlite:///PATH (relative to here), postgresql://HOST/DB or "
                   "memory:// (FLOWCTL_STORE; default sqlite:///.flowctl/sessions.db).")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 256),
              help="Worker processes sharing the port (sqlite:// or postgresql:// store).")
@click.option("--allow-anonymous", is_flag=True,
              help="Without API keys, answer any client and listen on any address "
                   "(FLOWCTL_ALLOW_ANONYMOUS=true). Without it and without keys: loopback only.")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="ORIGIN",
              help="Another origin whose pages may call the API, e.g. https://app.example.com "
                   "(repeatable; adds to FLOWCTL_CORS_ORIGINS).")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="HOST",
              help="A Host header value to answer besides localhost/127.0.0.1/[::1], e.g. "
                   "api.example.com or *.example.com (repeatable; adds to "
                   "FLOWCTL_ALLOWED_HOSTS).")
@click.option("--log-level", type=click.Choice(["critical", "error", "warning", "info", "debug"]),
              default=None, help="Server and flowctl log level (FLOWCTL_LOG_LEVEL; default info).")
@click.option("--access-log", is_flag=True,
              help="Log one line per HTTP request (FLOWCTL_ACCESS_LOG=true).")
@click.option("--reload", is_flag=True,
              help="Restart when the flow file or its prompts change; a broken edit keeps "
                   "the last good version serving (development; one worker).")
@click.option("--workspace-root", type=click.Path(file_okay=False, exists=True), default=None,
              help="The one directory workspace and command actions may touch "
                   "(FLOWCTL_WORKSPACE_ROOT); without it they fail.")
@click.option("--allow-command", "allow_commands", multiple=True, metavar="CMD",
              help="An argv prefix command actions may run, e.g. 'python -m pytest' "
                   "(repeatable; adds to FLOWCTL_ALLOW_COMMANDS).")
def serve(flow: str, host: str, port: int, store_url: str | None, workers: int,
          allow_anonymous: bool, cors_origins: tuple[str, ...],
          allowed_hosts: tuple[str, ...], log_level: str | None, access_log: bool,
          reload: bool, workspace_root: str | None, allow_commands: tuple[str, ...]) -> None:
    """Serve FLOW over HTTP/SSE with the playground at /.

    API keys come from FLOWCTL_API_KEYS or FLOWCTL_API_KEYS_FILE; with none, only this
    machine (loopback) may connect. See docs/server.md.
    """
    from engine.config import local_options
    from engine.config import store_url as chosen_store
    from engine.transports.http import DEFAULT_STORE, run_server
    from engine.transports.http.workers import run_workers

    if reload:
        if workers != 1:
            errors.print("error: --reload runs one worker; drop --workers")
            raise Exit(2)
        raise Exit(_serve_reloading(flow, click.get_current_context()))
    run = run_server if workers == 1 else functools.partial(run_workers, workers=workers)
    env = {**os.environ, **({"FLOWCTL_LOG_LEVEL": log_level} if log_level else {}),
           **({"FLOWCTL_ACCESS_LOG": "true"} if access_log else {}),
           **local_options(os.environ, workspace_root, allow_commands)}
    try:
        run(flow, host=host, port=port, store_url=chosen_store(store_url, DEFAULT_STORE),
            env=env, allow_anonymous=allow_anonymous, cors_origins=cors_origins,
            allowed_hosts=allowed_hosts)
    except FlowDefinitionError as err:
        refuse(err)


def _serve_reloading(flow: str, ctx: click.Context) -> int:
    """`flowctl serve --reload`: the same command without --reload, restarted on changes."""
    from rich.markup import escape

    from engine.app import engine_factory
    from engine.transports.http.reload import Reloader, child_command

    env = dict(os.environ)
    reloader = Reloader(flow, child_command(ctx),
                        # compiles now: FlowDefinitionError when the edit broke it
                        check=lambda path: engine_factory(path, env),
                        report=_print_findings, say=lambda line: console.print(
                            f"[dim]reload: {escape(line)}[/dim]", highlight=False))
    return reloader.run()


@app.command()
@click.argument("flow", type=click.Path(dir_okay=False))
@click.option("--store", default=None, metavar="URL",
              help="Session store: memory://, sqlite:///PATH or postgresql://HOST/DB "
                   "(FLOWCTL_STORE; default memory://).")
@click.option("--session", "session_id", default="terminal", show_default=True)
@click.option("--verbose", "-v", is_flag=True, help="Show agent progress events.")
@click.option("--history", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Keep typed lines in this file across runs (arrow keys recall them).")
def chat(flow: str, store: str | None, session_id: str, verbose: bool,
         history: Path | None) -> None:
    """Talk to FLOW in the terminal (one line per message; Ctrl-D ends, Ctrl-C quits)."""
    from engine.app import engine_factory
    from engine.config import load_settings, store_url
    from engine.store import open_store
    from engine.transports.terminal import LineReader, Piped, Prompt, talk

    settings = load_settings()  # a bad setting is one line before anything else is done
    try:
        engine = engine_factory(flow, settings.env)(open_store(store_url(store, "memory://")),
                                                    settings)
    except FlowDefinitionError as err:
        refuse(err)
    console.print(f"[bold]{engine.about.name}[/bold] — {engine.about.description}")
    for name, reason in engine.models.offline.items():
        console.print(f"[dim]model {name} runs offline: {reason}[/dim]")
    if history is not None:
        try:
            history.open("a", encoding="utf-8").close()  # fail now, not after the first line
        except OSError as err:
            errors.print(f"error: cannot write {history}: {err.strerror or err}")
            raise Exit(2) from None
    at_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    reader: LineReader = Prompt(history) if at_terminal else Piped(sys.stdin, console.real())
    talk(engine, session_id, reader, console.real(), verbose=verbose)


@app.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--coverage", "show_coverage", is_flag=True,
              help="Report the stages, transitions and slot branches the tests exercised.")
@click.option("-k", "patterns", multiple=True, metavar="PATTERN",
              help="Run only conversations whose name contains PATTERN (any case; repeat "
                   "for several).")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the results as JUnit XML to FILE (for CI test reports).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document (results; coverage too with --coverage) "
                   "instead of text.")
@click.option("--fail-under", type=click.FloatRange(0, 100), metavar="PERCENT",
              help="Exit 1 when the total coverage is under PERCENT (implies --coverage).")
def test(paths: Sequence[str], show_coverage: bool, patterns: tuple[str, ...],
         junit_file: str | None, as_json: bool, fail_under: float | None) -> None:
    """Run the conversation tests (*.test.yaml) of flows and directories."""
    from engine.testing.report import junit_xml
    from engine.testing.suite import run_tests
    from engine.transports import terminal

    shown = None if as_json else functools.partial(terminal.show_results, console.real())
    try:
        run = run_tests(paths, patterns=patterns, with_coverage=show_coverage,
                        fail_under=fail_under, on_file=shown)
    except FlowDefinitionError as err:
        refuse(err)
    if run.unusable is not None:
        errors.print(run.unusable)
        raise Exit(2)
    if junit_file:
        _write(junit_file, junit_xml(run.results))
    if as_json:
        click.echo(run.json())
    else:
        terminal.show_summary(console.real(), run.results, run.coverage_lines(),
                              deselected=run.deselected)
    if run.under:
        errors.print(f"coverage {run.total:.1f}% is under --fail-under {fail_under:g}")
    if run.failed:
        raise Exit(1)


@app.command("eval")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--live", is_flag=True, help="Use the flow's configured model (keys from the "
              "environment) instead of the offline probe.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text.")
@click.option("--junit", "junit_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the cases as JUnit XML to FILE.")
@click.option("--fail-under", type=click.FloatRange(0, 100), default=0.0, metavar="PERCENT",
              help="Exit 1 when fewer than PERCENT of a file's cases are read right.")
@click.option("--max-wrong", type=click.IntRange(0), default=0, show_default=True,
              help="Wrong settlements allowed per file before exiting 1.")
@click.option("-k", "patterns", multiple=True, metavar="PATTERN",
              help="Only cases whose tag or message contains PATTERN.")
@click.option("-v", "--verbose", is_flag=True, help="List every case not read right.")
def eval_(paths: Sequence[str], live: bool, as_json: bool, junit_file: str | None,
          fail_under: float, max_wrong: int, patterns: tuple[str, ...], verbose: bool) -> None:
    """Score how flows read labelled messages (*.eval.yaml): intents, slots, decisions,
    wrong settlements by the rules."""
    from engine.testing import eval_report

    gates = eval_report.Gates(fail_under=fail_under, max_wrong=max_wrong)
    try:
        reports = asyncio.run(eval_report.evaluate_paths(paths, live=live, env=os.environ,
                                                         patterns=patterns))
    except FlowDefinitionError as err:
        refuse(err)
    if not reports:
        errors.print(f"no *.eval.yaml files found in {', '.join(paths)}")
        raise Exit(2)
    if junit_file:
        _write(junit_file, eval_report.junit_xml(reports))
    if as_json:
        click.echo(eval_report.json_report(reports, gates))
    else:
        for report in reports:
            for line in eval_report.text(report, gates, verbose=verbose):
                click.echo(line)
    if any(eval_report.failures(r, gates) for r in reports):
        raise Exit(1)


@app.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "sarif"]),
              default="text", show_default=True, help="How findings are printed.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
def lint(paths: Sequence[str], fmt: str, strict: bool) -> None:
    """Check flow files and their conversation tests; report every finding.

    Exit 0 clean, 1 findings (errors; warnings too with --strict), 2 unusable input.
    """
    from rich.markup import escape

    from engine.lint import formats, lint_paths

    report = lint_paths(paths)
    if not report.files:
        errors.print(f"no flow files found in {', '.join(paths)}")
        raise Exit(2)
    if fmt == "text":
        for line, style in formats.text(report):
            console.print(escape(line), style=style, highlight=False, emoji=False)
    else:
        click.echo(formats.render(report, fmt))
    if report.unusable:
        raise Exit(2)
    if report.failed(strict=strict):
        raise Exit(1)


@app.command()
@click.argument("flow", type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["mermaid", "dot"]), default="mermaid",
              show_default=True, help="Mermaid stateDiagram-v2 (renders on GitHub) or dot.")
@click.option("--flow", "flow_name", default=None, help="Only this flow (default: every flow).")
def graph(flow: str, fmt: str, flow_name: str | None) -> None:
    """Draw the stage machine of FLOW's flows, guards on edges, terminal stages marked
    (for an app file: its services and the keywords that route to each)."""
    from engine.app import is_app_file, load_app
    from engine.authoring import diagram

    if is_app_file(flow):
        from engine.app import graph as app_graph

        try:
            loaded = load_app(flow, os.environ)
        except FlowDefinitionError as err:
            refuse(err)
        click.echo((app_graph.dot if fmt == "dot" else app_graph.mermaid)(loaded), nl=False)
        return
    service = _compile(flow).spec
    if flow_name is not None and flow_name not in service.flows:
        errors.print(f"no flow `{flow_name}` in {flow}; flows: {', '.join(service.flows)}")
        raise Exit(2)
    names = [flow_name] if flow_name else list(service.flows)
    click.echo((diagram.dot if fmt == "dot" else diagram.mermaid)(service, names), nl=False)


@app.command()
@click.argument("flow", type=click.Path(exists=True, dir_okay=False))
def index(flow: str) -> None:
    """Rebuild the search index of FLOW's knowledge bases from their markdown files."""
    from engine.compiler.knowledge import rebuild_indexes

    try:
        built = rebuild_indexes(_compile(flow))
    except OSError as err:
        errors.print(f"error: cannot write the index: {err.strerror or err}")
        raise Exit(2) from None
    for done in built:
        console.print(f"indexed knowledge `{done.name}`: {done.files} file(s), {done.chunks} "
                      f"chunk(s) -> {done.path}")
    if not built:
        console.print(f"{flow} declares no `knowledge`: nothing to index")


@app.command()
@click.argument("flow", type=click.Path(exists=True, dir_okay=False))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the build (default: FLOW with the suffix .flowc).")
def build(flow: str, output: Path | None) -> None:
    """Compile FLOW ahead of time into one file that `flowctl serve` starts from.

    `serve` does this by itself and keeps the result under .flowctl/build/; an explicit
    build is for shipping the compiled flow (an image, another machine with the same
    flowctl). It also keeps the engine's compiled patterns beside its bytecode. See
    docs/server.md."""
    from engine.app import is_app_file
    from engine.compiler import artefact

    if is_app_file(flow):
        errors.print(f"error: {flow} is an app file: build each of its services' flow files "
                     "with `flowctl build FLOW` (an app compiles them when it starts)")
        raise Exit(2)
    try:
        written = artefact.build(Path(flow), output)
    except FlowDefinitionError as err:
        refuse(err)
    except OSError as err:
        errors.print(f"error: cannot write the build: {err.strerror or err}")
        raise Exit(2) from None
    console.print(f"built {flow} -> {written} ({written.stat().st_size:,} bytes)")
    _keep_compiled()


def _keep_compiled() -> None:
    """Keep the compiled form of the engine's own patterns and dataclass methods beside its
    bytecode, as a first `serve` does, even where bytecode is not written (an image built
    with PYTHONDONTWRITEBYTECODE): every start from the build then skips compiling them."""
    import engine.transports.http  # noqa: F401 — the server's modules compile their patterns
    from engine import precompiled

    if precompiled.keep() is None or precompiled.keep_methods() is None:
        errors.print("warning: the engine's compiled patterns and methods could not be kept "
                     "beside its bytecode (a directory this user cannot write): each start "
                     "compiles them")


@app.command()
@click.argument("name")
@click.option("--shape", type=click.Choice(["chat", "intent", "slots"]), default="chat",
              show_default=True, help="chat: one agent; intent: routed intents; slots: slot "
              "filling with confirmation and an action.")
@click.option("--dir", "directory", default="flows", show_default=True,
              type=click.Path(file_okay=False), help="Where the flow and its tests go.")
def new(name: str, shape: str, directory: str) -> None:
    """Scaffold NAME.yaml, its conversation tests and its prompt; never overwrites."""
    from engine.authoring.scaffold import ScaffoldError, scaffold

    try:
        written = scaffold(name, shape, Path(directory))
    except ScaffoldError as err:
        errors.print(f"error: {err}")
        raise Exit(2) from None
    for path in written:
        console.print(f"created {path}")
    console.print(f"next: flowctl lint --strict {directory} && flowctl test {directory}")


@app.command()
@click.option("--check", is_flag=True,
              help="Fail if a schema in schemas/ (flow, app, test, eval) is out of date.")
@click.option("-o", "--output", type=click.Path(), default=None,
              help="Directory to write the schemas into, or - for stdout (the flow schema "
                   "only). Default: the checkout's schemas/; stdout in an install.")
def schema(check: bool, output: str | None) -> None:
    """Write (or --check) the JSON Schemas generated from the spec models."""
    from engine.app import load as app_schema
    from engine.dsl import schema as flow_schema
    from engine.schema_files import checkout
    from engine.testing.schema import schemas as file_schemas

    if not check and (output == "-" or (output is None and checkout() is None)):
        click.echo(flow_schema.render_schema(), nl=False)
        return
    for module in (flow_schema, app_schema, *file_schemas()):
        path, text = module.SCHEMA_PATH, module.render_schema()
        if output is not None:
            path = Path(output) / path.name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                errors.print(f"{path} is out of date; run `flowctl schema`")
                raise Exit(1)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        console.print(f"wrote {path}")


def _write(path: str, text: str) -> None:
    """Write a report file, or stop with exit 2 saying why it could not be written."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        errors.print(f"error: cannot write {path}: {err.strerror or err}")
        raise Exit(2) from None


def _compile(flow: str):  # noqa: ANN202 - the compiled service
    from engine.compiler import compile_file

    try:
        return compile_file(flow)
    except FlowDefinitionError as err:
        refuse(err)


def refuse(err: FlowDefinitionError) -> NoReturn:
    """An invalid flow: its findings exactly as `flowctl lint` prints them, then exit 2."""
    _print_findings(err)
    raise Exit(2)


def _print_findings(err: FlowDefinitionError) -> None:
    from rich.markup import escape

    from engine.lint.formats import findings_text

    for line, style in findings_text(err.findings):
        errors.print(escape(line), style=style, highlight=False, emoji=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Run flowctl with ``argv``; return the exit code instead of exiting."""
    try:
        app.main(args=list(argv) if argv is not None else None, prog_name="flowctl",
                 standalone_mode=False)
    except Exit as done:
        return done.code
    except click.exceptions.Abort as abort:  # Ctrl-C (click turns it into Abort): 128 + SIGINT
        return 130 if isinstance(abort.__cause__, KeyboardInterrupt) else 1
    except click.ClickException as err:
        err.show()
        return 2
    except FlowRuntimeError as err:
        errors.print(f"error: {err}")
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


def run() -> None:
    """Console-script entry point (reads `.env` of the working directory first)."""
    from engine.config import load_env_file

    load_env_file()
    sys.exit(main())


if __name__ == "__main__":
    run()
