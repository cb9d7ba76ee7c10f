"""The ``--reload`` watcher's verdict on the last edit -> a file the served page can read.

``flowctl serve --reload`` runs the server as a child of a watcher process (reload.py); when
an edit breaks the flow the watcher keeps the last good server answering, so that server
cannot know by itself that its files no longer compile. The watcher writes what it found
here (``write``), and the server's ``GET /v1/agent/reload`` reads it (``read``) for the
playground's banner. The file lives in the temporary directory, one per user and flow file,
and counts only for the server whose parent wrote it: a stale file from a watcher that died,
or a server started without ``--reload``, reads as "not watching".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field

from engine.errors import FlowDefinitionError

__all__ = ["ReloadFinding", "ReloadState", "read", "remove", "status_path", "write"]

MAX_FINDINGS = 20  # a banner, not a lint report: `flowctl lint` prints them all


class ReloadFinding(BaseModel):
    file: str
    line: int
    column: int
    message: str


class ReloadState(BaseModel):
    watching: bool = Field(description="The server runs under `flowctl serve --reload`.")
    ok: bool = Field(description="The last edit compiled (false: the server runs the last "
                                 "good version; `findings` say why the edit did not load).")
    findings: list[ReloadFinding] = Field(default_factory=list)


def status_path(flow: str | Path) -> Path:
    """Where the watcher of ``flow`` writes its verdict (one file per user and flow)."""
    name = hashlib.sha256(str(Path(flow).resolve()).encode()).hexdigest()[:16]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"flowctl-reload-{uid}-{name}.json"


def write(flow: str | Path, error: FlowDefinitionError | None) -> None:
    """Record the verdict on ``flow``'s files (``error`` None: they compile)."""
    findings = [] if error is None else [
        {"file": f.location.file, "line": f.location.line, "column": f.location.column,
         "message": f.message + (f" ({f.hint})" if f.hint else "")}
        for f in error.findings[:MAX_FINDINGS]]
    path = status_path(flow)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"watcher": os.getpid(), "ok": error is None,
                                     "findings": findings}), encoding="utf-8")
    temporary.replace(path)  # never half a file for the server to read


def remove(flow: str | Path) -> None:
    with contextlib.suppress(OSError):
        status_path(flow).unlink()


def read(flow: str | Path, *, parent: int | None = None) -> ReloadState:
    """The verdict the watcher of this server (its ``parent`` process) wrote on ``flow``."""
    try:
        data = json.loads(status_path(flow).read_text(encoding="utf-8"))
        if data.get("watcher") != (parent or os.getppid()):
            return ReloadState(watching=False, ok=True)
        return ReloadState(watching=True, ok=bool(data.get("ok")),
                           findings=[ReloadFinding.model_validate(f)
                                     for f in data.get("findings") or []])
    except (OSError, ValueError, AttributeError, TypeError):  # none, or not one we wrote
        return ReloadState(watching=False, ok=True)
