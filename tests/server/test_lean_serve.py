"""What a real ``flowctl serve`` of a flow file leaves unimported, after it answered a turn.

Serving one flow needs neither the app's models (an app file's loader), nor the knowledge
bases' index code for a flow without knowledge, nor the background runs' host for a flow
without a background stage, nor the supervisor's routes for a flow without local actions,
nor ctypes (only ``--workers`` needs it): each is imported
where it is used, which keeps the server's start-up and idle memory down
(bench/startup.py). The server's own import log (``PYTHONPROFILEIMPORTTIME``) says what it
loaded; a flow that has knowledge bases or a background stage still gets what they need.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.server.conftest import ROOT, TRANSFER
from tests.server.processes import Serve

LEFT_OUT = ("engine.app.load", "engine.app.spec", "engine.retrieval", "engine.runs", "ctypes",
            "jsonschema", "tenacity", "rich", "engine.transports.http.supervisor")


def served_imports(flow: Path, tmp_path: Path, message: str,
                   context: dict[str, object] | None = None) -> set[str]:
    """Every module a real ``flowctl serve flow`` imported by the end of one answered turn."""
    server = Serve(flow, "--store", f"sqlite:///{tmp_path}/s.db", cwd=tmp_path,
                   env={"PYTHONPROFILEIMPORTTIME": "1"}).wait_ready()
    try:
        answer = httpx.post(f"{server.url}/v1/agent/chat", timeout=20,
                            json={"session_id": "s-1", "message": message,
                                  **({"context": context} if context else {})})
        assert answer.status_code == 200, answer.text
    finally:
        output = server.stop()
    return {line.rsplit("|", 1)[-1].strip() for line in output.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_serving_a_flow_file_leaves_what_it_does_not_use_unimported(tmp_path: Path) -> None:
    imported = served_imports(TRANSFER, tmp_path, "엄마한테 1만원 보내줘")
    assert {"engine.compiler", "engine.runtime.engine", "uvicorn"} <= imported  # a real log
    assert [m for m in imported if m.split(".")[0] in LEFT_OUT or
            any(m == name or m.startswith(name + ".") for name in LEFT_OUT)] == []


@pytest.mark.parametrize("flow, context, needed", [
    ("flows/commerce.yaml", {"is_logged_in": True}, "engine.retrieval.index"),  # knowledge
    ("tests/runs/flows/build.yaml", None, "engine.runs.host"),  # a background stage
    ("flows/devloop.yaml", None, "engine.transports.http.supervisor"),  # local actions
])
def test_a_flow_that_uses_them_still_imports_them(tmp_path: Path, flow: str,
                                                  context: dict[str, object] | None,
                                                  needed: str) -> None:
    assert needed in served_imports(ROOT / flow, tmp_path, "hello", context)


FRONT_END = ("yaml", "engine.compiler.entry", "engine.compiler.build", "engine.compiler.checks",
             "engine.dsl.load", "engine.dsl.schema")


SERVED_AS_DATA = ("jinja2", "engine.dsl.spec", "engine.dsl.tools_spec", "engine.dsl.answers_spec",
                  "prometheus_client")
"""What a build serves without: its templates' plans, its models' records, metrics not yet
scraped."""


def test_a_server_started_from_its_kept_build_imports_no_front_end(tmp_path: Path) -> None:
    """The first start compiles the flow (reading YAML, running the checks) and keeps the
    build; the next loads it: no YAML, no schema, no compiler checks, no pydantic models of
    the flow language — and, the flow's templates all having plans, no jinja2 to answer a
    turn."""
    (tmp_path / "flows").mkdir()
    flow = tmp_path / "flows" / "transfer.yaml"
    flow.write_text(TRANSFER.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "prompts").mkdir()
    for prompt in (ROOT / "prompts").glob("*.j2"):
        (tmp_path / "prompts" / prompt.name).write_text(prompt.read_text(encoding="utf-8"),
                                                        encoding="utf-8")
    first = served_imports(flow, tmp_path, "엄마한테 1만원 보내줘")
    assert set(FRONT_END) <= first  # compiled: a real log
    assert len(list((tmp_path / "flows" / ".flowctl" / "build").glob("*.flowc"))) == 1
    again = served_imports(flow, tmp_path, "엄마한테 1만원 보내줘")
    assert {"engine.compiler.compiled", "engine.runtime.engine"} <= again
    assert [m for m in again if any(m == name or m.startswith(name + ".")
                                    for name in (*FRONT_END, *SERVED_AS_DATA))] == []
