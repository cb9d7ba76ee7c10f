"""``*.test.yaml`` files -> validated ``TestFileSpec`` models, their source map and flow file.

The closed pydantic models of a conversation test file (the format is documented in
docs/testing.md), finding the test files among paths, and loading one with every schema
error located (FL090).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path as FilePath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.config import LOCAL_VARIABLES
from engine.dsl.load import load_file
from engine.errors import Finding, FlowDefinitionError
from engine.source import SourceMap

TEST_SUFFIX = ".test.yaml"
EVAL_SUFFIX = ".eval.yaml"
"""Labelled messages for ``flowctl eval`` (engine/testing/evaluate.py); not a test file."""


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TurnSpec(_Spec):
    user: str = Field(description="What the user says.")
    stage: str | None = None
    flow: str | None = None
    next_action: str | None = None
    slots: dict[str, Any] | None = Field(None, description="Expected values of these slots.")
    slots_of: dict[str, dict[str, Any]] | None = Field(
        None, description="Flow -> expected values of its slots, for the flow on top "
                          "(`state_snapshot.slots`) or one waiting under it "
                          "(`state_snapshot.stack`), e.g. a caller's while a called flow runs.")
    unmasked: dict[str, Any] | None = Field(
        None, description="Slot -> its real value, for a `sensitive` slot that "
                          "`state_snapshot` shows masked (the stored session is read).")
    say: str | list[str] | None = Field(None, description="Substring(s) of the reply.")
    not_say: str | list[str] | None = Field(None, description="Substring(s) it must not have.")
    buttons: list[str] | None = None
    missing: list[str] | None = None
    errors: dict[str, str] | None = Field(
        None, description="Slot -> substring of its error; {} for none.")
    events: list[str | dict[str, Any]] | None = Field(
        None, description="Event names (or {NAME: payload subset}) in order.")
    hooks: list[str] | None = Field(None, description="Hook types sent in DONE.")
    queue: int | None = Field(None, description="Tasks waiting in the batch queue.")
    completed: int | None = Field(None, description="Completed tasks in the session so far.")
    failure_tags: list[str] | None = Field(
        None, description="DONE's `_trace.failure_tags`, in order; [] for none.")
    requires_confirmation: bool | None = Field(
        None, description="DONE's `requires_confirmation`.")
    next_suggested_actions: list[str] | None = Field(
        None, description="DONE's `next_suggested_actions`, in order; [] for none.")


class StubSpec(_Spec):
    result: Any = Field(None, description="What the action returns (read as `result`).")
    error: str | None = Field(None, description="Make the action fail with this error instead.")


class ConversationSpec(_Spec):
    name: str
    slots: dict[str, Any] = Field(
        default_factory=dict,
        description="Slot values the session starts with (as if a flow had kept them).")
    stubs: dict[str, StubSpec] = Field(
        default_factory=dict,
        description="Action or declared tool -> its canned result or error in this "
                    "conversation; nothing is called (a tool's requests still pass the gateway).")
    context: dict[str, Any] | None = Field(
        None, description="The request context every turn of this conversation carries "
                          "(checked against the flow's `context` schema).")
    turns: list[TurnSpec]


class TestFileSpec(_Spec):
    flow: str | None = Field(None, description="Flow file beside this one; default: same name.")
    today: dt.date = Field(dt.date(2026, 1, 5), description="Relative dates resolve against it.")
    env: dict[str, str] = Field(default_factory=dict, description="Settings, as env variables.")
    workspace: str | None = Field(
        None, description="A directory (relative to this file) copied into a fresh temporary "
                          "directory for each conversation: the workspace root of its "
                          "workspace and command actions, where the runner allows "
                          "`python -m pytest` (and nothing else).")
    conversations: list[ConversationSpec]


def find_test_files(paths: Sequence[str | FilePath]) -> list[FilePath]:
    """``*.test.yaml`` files in the given files/dirs; a flow file stands for its tests."""
    return find_files(paths, TEST_SUFFIX)


def find_files(paths: Sequence[str | FilePath], suffix: str) -> list[FilePath]:
    """Files ending in ``suffix`` in the given files/dirs; a flow file stands for its
    sibling of that suffix (``transfer.yaml`` for ``transfer.test.yaml``)."""
    found: list[FilePath] = []
    for raw in paths:
        path = FilePath(raw)
        if path.is_dir():
            found.extend(sorted(path.rglob(f"*{suffix}")))
        elif path.name.endswith(suffix):
            found.append(path)
        else:
            sibling = path.with_name(path.name.removesuffix(".yaml").removesuffix(".yml")
                                     + suffix)
            if sibling.exists():
                found.append(sibling)
    return found


def load_tests(path: FilePath) -> tuple[TestFileSpec, SourceMap, FilePath]:
    """The test file's model, its source map and the flow file it tests."""
    data, source = load_file(path)
    try:
        spec = TestFileSpec.model_validate(data)
    except ValidationError as err:
        raise FlowDefinitionError(_finding(source, e) for e in err.errors()) from None
    flow = path.parent / (spec.flow or path.name.removesuffix(TEST_SUFFIX) + ".yaml")
    problems = [source.finding(("env", name), f"`{name}` is the operator's to set, not a test "
                               "file's", code="FL090", key=True,
                               hint="name a workspace fixture with `workspace:`; the runner "
                               "copies it and allows `python -m pytest` there")
                for name in spec.env if name in LOCAL_VARIABLES]
    if spec.workspace is not None and not (path.parent / spec.workspace).is_dir():
        problems.append(source.finding(("workspace",), f"workspace `{spec.workspace}` is not a "
                                       "directory", code="FL090",
                                       hint="give a directory relative to this test file"))
    if problems:
        raise FlowDefinitionError(problems)
    return spec, source, flow


def _finding(source: SourceMap, error: Any) -> Finding:
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        return source.finding(loc, f"unknown key `{loc[-1]}`", code="FL090", key=True,
                              hint=source.cut_at_comma(loc)
                              or "see docs/testing.md for the keys a turn takes")
    raw = source.yaml11_bools.get(loc)
    hint = f"YAML reads an unquoted `{raw}` as a boolean; write '{raw}' in quotes" if raw else None
    return source.finding(loc, f"{'.'.join(map(str, loc))}: {error['msg']}", code="FL090",
                          hint=hint)
