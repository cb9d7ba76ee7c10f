"""(a workspace or command action, its rendered arguments, the operator's settings) ->
the action's result, or ActionFailed saying why it was refused.

The workspace root, the command allow-list and the environment passed through all come
from ``Settings`` (the operator's command line or environment), never from the flow file.
"""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from engine.compiler.compiled import CompiledAction, CompiledService
from engine.config import Settings
from engine.runtime.calls.actions import ActionFailed
from engine.workspace import (
    CommandPolicy,
    CommandRefused,
    Workspace,
    WorkspaceError,
    run_command,
)

LOCAL_KINDS = frozenset({"read", "apply", "command"})


def supervised(service: CompiledService) -> bool:
    """Whether ``service`` supervises local work: it has a workspace or command action."""
    return any(action.kind in LOCAL_KINDS for action in service.actions.values())


async def run_local(action: CompiledAction, args: Mapping[str, Any],
                    settings: Settings) -> dict[str, Any]:
    """Run a workspace or command action inside the operator's workspace root."""
    if settings.workspace_root is None:
        raise ActionFailed("no workspace root is configured: the operator starts flowctl "
                           "with `--workspace-root DIR` (or sets FLOWCTL_WORKSPACE_ROOT)")
    try:
        if action.kind == "command":
            return await _command(action, args, settings)
        workspace = Workspace(settings.workspace_root, max_files=action.limits[0],
                              max_bytes=action.limits[1])
        if action.kind == "read":
            chosen = _chosen(args.get("paths"), action.files)
            return {"files": await asyncio.to_thread(workspace.read, chosen or action.files)}
        return await asyncio.to_thread(workspace.apply, args.get("changes"),
                                       allowed=action.files)
    except (WorkspaceError, CommandRefused) as err:
        raise ActionFailed(str(err)) from None
    except OSError as err:
        raise ActionFailed(f"workspace {settings.workspace_root}: {err.strerror}") from None


async def _command(action: CompiledAction, args: Mapping[str, Any],
                   settings: Settings) -> dict[str, Any]:
    policy = CommandPolicy.of(settings.allowed_commands, settings.command_env,
                              executables=settings.command_programs)
    root = Path(settings.workspace_root or ".").resolve(strict=True)
    argv = args.get("chosen") or args.get("argv") or []  # the request's, else the flow's
    result = await run_command(argv, policy, cwd=root, env=settings.env,
                               timeout=action.timeout_sec - 10.0, tail=action.limits[1])
    return result.as_data()


def _chosen(paths: Any, allowed: Sequence[str]) -> list[str]:
    """The paths a read's ``paths`` gave, each one a plain relative path that one of the
    action's ``files`` globs matches; [] for none (read ``files``). WorkspaceError for one
    outside them: a request chooses among the files the flow allows, never others.

    >>> _chosen(["calc/ops.py"], ["calc/*.py"]), _chosen(None, ["calc/*.py"])
    (['calc/ops.py'], [])
    >>> _chosen(["../x"], ["*"])
    Traceback (most recent call last):
    engine.workspace.files.WorkspaceError: `../x` is not among the files this action reads (*)
    """
    if paths in (None, "", []):
        return []
    if isinstance(paths, str) or not isinstance(paths, list) or \
            not all(isinstance(p, str) for p in paths):
        raise WorkspaceError(f"`paths` gave {paths!r}, not a list of paths")
    for path in paths:
        plain = not any(ch in path for ch in "*?[") and not path.startswith("/") and \
            ".." not in PurePosixPath(path).parts
        if not plain or not any(fnmatch.fnmatchcase(path, glob) for glob in allowed):
            raise WorkspaceError(f"`{path}` is not among the files this action reads "
                                 f"({', '.join(allowed)})")
    return list(paths)


__all__ = ["LOCAL_KINDS", "run_local", "supervised"]
