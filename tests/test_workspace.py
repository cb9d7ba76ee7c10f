"""Workspace actions stay inside the operator's root: `..`, absolute paths and symlinks
out of it are refused before anything is written; sizes and counts are bounded."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from engine.workspace import MAX_FILE_BYTES, Workspace, WorkspaceError, diffs, files
from engine.workspace.diffs import CUT, MAX_DIFF_CHARS, MAX_DIFFS_CHARS


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "a.py").write_text("a = 1\n")
    (ws / "pkg" / "b.py").write_text("b = 2\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    return ws


@pytest.mark.parametrize(("path", "why"), [
    ("../outside.txt", "has `..`"),
    ("pkg/../../outside.txt", "has `..`"),
    ("/etc/passwd", "is absolute"),
    ("~/x", "is absolute"),
    ("", "not a relative file path"),
])
def test_a_change_outside_the_root_is_refused(root: Path, path: str, why: str) -> None:
    with pytest.raises(WorkspaceError, match=why):
        Workspace(root).apply([{"path": path, "content": "x"}])
    assert (root.parent / "outside.txt").read_text() == "secret\n"


def test_a_symlink_out_of_the_root_is_refused_for_writing_and_reading(root: Path) -> None:
    (root / "link.txt").symlink_to(root.parent / "outside.txt")
    (root / "out").symlink_to(root.parent)
    ws = Workspace(root)
    for path in ("link.txt", "out/outside.txt", "out/new.txt"):
        with pytest.raises(WorkspaceError, match="leads out of the workspace root"):
            ws.apply([{"path": path, "content": "pwned"}])
    with pytest.raises(WorkspaceError, match="leads out of the workspace root"):
        ws.read(["*.txt"])
    assert (root.parent / "outside.txt").read_text() == "secret\n"
    assert not (root.parent / "new.txt").exists()


def test_a_symlink_inside_the_root_is_fine(root: Path) -> None:
    (root / "alias.py").symlink_to(root / "pkg" / "a.py")
    assert Workspace(root).read(["alias.py"]) == [{"path": "pkg/a.py", "content": "a = 1\n"}]


def test_one_bad_change_writes_nothing(root: Path) -> None:
    with pytest.raises(WorkspaceError, match="change 2"):
        Workspace(root).apply([{"path": "pkg/a.py", "content": "changed"},
                               {"path": "../outside.txt", "content": "x"}])
    assert (root / "pkg" / "a.py").read_text() == "a = 1\n"


def test_oversized_writes_and_too_many_files_are_refused(root: Path) -> None:
    big = "x" * (MAX_FILE_BYTES + 1)
    with pytest.raises(WorkspaceError, match=f"at most {MAX_FILE_BYTES} are written"):
        Workspace(root).apply([{"path": "big.txt", "content": big}])
    with pytest.raises(WorkspaceError, match="11 bytes; at most 10 are written"):
        Workspace(root, max_bytes=10).apply([{"path": "p.txt", "content": "x" * 11}])
    many = [{"path": f"f{i}.txt", "content": ""} for i in range(3)]
    with pytest.raises(WorkspaceError, match="at most 2 files"):
        Workspace(root, max_files=2).apply(many)
    with pytest.raises(WorkspaceError, match="at most 1 are read"):
        Workspace(root, max_files=1).read(["pkg/*.py"])
    assert not (root / "big.txt").exists() and not (root / "f0.txt").exists()


def test_apply_writes_inside_the_root_and_respects_the_allowed_globs(root: Path) -> None:
    ws = Workspace(root)
    assert ws.apply([{"path": "pkg/new/c.py", "content": "c = 3\n"}],
                    allowed=["pkg/**/*.py", "pkg/*.py"]) == {
        "applied": ["pkg/new/c.py"], "count": 1,
        "changes": [{"path": "pkg/new/c.py",
                     "diff": "--- /dev/null\n+++ b/pkg/new/c.py\n@@ -0,0 +1 @@\n+c = 3\n"}]}
    assert (root / "pkg" / "new" / "c.py").read_text() == "c = 3\n"
    with pytest.raises(WorkspaceError, match="matches none of the files"):
        ws.apply([{"path": "setup.py", "content": ""}], allowed=["pkg/*.py"])


@pytest.mark.parametrize("changes", [None, "x", [1], [{"path": "a"}], [{"path": 1, "content": ""}]])
def test_malformed_changes_are_refused(root: Path, changes: object) -> None:
    with pytest.raises(WorkspaceError, match="change|list"):
        Workspace(root).apply(changes)


def test_read_returns_the_matching_files_sorted(root: Path) -> None:
    assert Workspace(root).read(["pkg/*.py", "pkg/a.py"]) == [
        {"path": "pkg/a.py", "content": "a = 1\n"}, {"path": "pkg/b.py", "content": "b = 2\n"}]
    for glob in ("../*", "/etc/*"):
        with pytest.raises(WorkspaceError, match="glob"):
            Workspace(root).read([glob])


def test_apply_reports_each_write_as_a_unified_diff(root: Path) -> None:
    result = Workspace(root).apply([
        {"path": "pkg/a.py", "content": "a = 1\nb = 3\n"},
        {"path": "pkg/b.py", "content": "b = 2\n"},  # unchanged: an empty diff
        {"path": "pkg/c.py", "content": "c = 3"},  # new, and no newline at its end
    ])
    assert result["applied"] == ["pkg/a.py", "pkg/b.py", "pkg/c.py"] and result["count"] == 3
    assert result["changes"] == [
        {"path": "pkg/a.py",
         "diff": "--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1 +1,2 @@\n a = 1\n+b = 3\n"},
        {"path": "pkg/b.py", "diff": ""},
        {"path": "pkg/c.py", "diff": "--- /dev/null\n+++ b/pkg/c.py\n@@ -0,0 +1 @@\n+c = 3\n"
                                     "\\ No newline at end of file\n"}]


def test_diffs_are_bounded_per_file_and_per_change_set(root: Path) -> None:
    lines = "".join(f"line {i}\n" for i in range(3000))  # ~27 KiB a file
    changes = [{"path": f"big{i}.txt", "content": lines} for i in range(6)]
    result = Workspace(root).apply(changes)
    shown = [c["diff"] for c in result["changes"]]
    assert all(len(d) <= MAX_DIFF_CHARS + len(CUT) for d in shown)
    assert shown[0].startswith("--- /dev/null\n+++ b/big0.txt\n@@ -0,0 +1,3000 @@\n+line 0\n")
    assert shown[0].endswith(CUT)
    assert sum(len(d) for d in shown) <= MAX_DIFFS_CHARS + 6 * len(CUT)
    assert shown[-1] == CUT == "... (diff cut: at most 8192 characters of a file's diff and " \
        "32768 of a change set's are shown)\n"
    assert (root / "big5.txt").read_text() == lines  # the files are written whole all the same


def test_a_directory_in_the_way_is_refused_saying_so(root: Path) -> None:
    with pytest.raises(WorkspaceError, match="cannot write `pkg`: Is a directory"):
        Workspace(root).apply([{"path": "pkg", "content": "x"}])


def test_a_file_too_large_to_compare_is_said_so(root: Path) -> None:
    (root / "pkg" / "a.py").write_text("x" * 20)
    result = Workspace(root, max_bytes=10).apply([{"path": "pkg/a.py", "content": "y\n"}])
    assert "-(more than 10 bytes before this change: not compared)\n+y\n" in \
        result["changes"][0]["diff"]


@pytest.mark.parametrize("module", [files, diffs])
def test_the_docstring_examples_hold(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0
