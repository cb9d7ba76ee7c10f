"""Local side effects a flow may ask for, confined to what the operator configured.

``files.Workspace`` reads and writes files under one root directory; ``command`` runs an
allow-listed argv (never a shell) in it. The root, the allow-list and the environment a
command sees come from the operator (``flowctl serve --workspace-root/--allow-command``,
``FLOWCTL_WORKSPACE_ROOT``, ``FLOWCTL_ALLOW_COMMANDS``, ``FLOWCTL_COMMAND_ENV``), never from
a flow file: a flow can only narrow them.
"""

from engine.workspace.command import (
    CommandPolicy,
    CommandRefused,
    CommandResult,
    run_command,
)
from engine.workspace.files import (
    MAX_FILE_BYTES,
    MAX_FILES,
    Workspace,
    WorkspaceError,
)

__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "CommandPolicy", "CommandRefused", "CommandResult",
           "Workspace", "WorkspaceError", "run_command"]
