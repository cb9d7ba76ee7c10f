"""What a real ``flowctl serve`` of a flow file leaves unimported, after it answered a turn.

Serving one flow needs neither the app's models (an app file's loader), nor the knowledge
bases' index code for a flow without knowledge, nor the background runs' host for a flow
without a background stage, nor ctypes (only ``--workers`` needs it): each is imported
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
            "jsonschema", "tenacity", "rich")


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
])
def test_a_flow_that_uses_them_still_imports_them(tmp_path: Path, flow: str,
                                                  context: dict[str, object] | None,
                                                  needed: str) -> None:
    assert needed in served_imports(ROOT / flow, tmp_path, "hello", context)
