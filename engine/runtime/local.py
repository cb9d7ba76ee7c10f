"""(a workspace or command action, its rendered arguments, the operator's settings) ->
the action's result, or ActionFailed saying why it was refused.

The workspace root, the command allow-list and the environment passed through all come
from ``Settings`` (the operator's command line or environment), never from the flow file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.compiler.compiled import CompiledAction
from engine.config import Settings
from engine.runtime.actions import ActionFailed
from engine.workspace import (
    CommandPolicy,
    CommandRefused,
    Workspace,
    WorkspaceError,
    run_command,
)

LOCAL_KINDS = frozenset({"read", "apply", "command"})


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
            return {"files": await asyncio.to_thread(workspace.read, action.files)}
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
    result = await run_command(args.get("argv") or [], policy, cwd=root, env=settings.env,
                               timeout=action.timeout_sec - 10.0, tail=action.limits[1])
    return result.as_data()


__all__ = ["LOCAL_KINDS", "run_local"]
