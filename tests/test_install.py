"""A built wheel installed into a fresh venv (no checkout around it) carries what flowctl
needs at run time: the schemas, the playground and engine data."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def run(*argv: str | Path, cwd: Path, env: dict[str, str] | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, **OFFLINE, **(env or {})},
                          check=check)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a venv holding only the wheel built from this checkout (deps from the system)."""
    tmp = tmp_path_factory.mktemp("install")
    source = tmp / "src"  # a copy, so the build leaves no build/ or egg-info in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "*.egg-info", "__pycache__", ".*_cache"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
        "-w", tmp / "dist", source, cwd=tmp)
    wheel, = (tmp / "dist").glob("flowctl-*.whl")
    venv.create(tmp / "venv", system_site_packages=True, with_pip=False)
    bin_dir = tmp / "venv" / "bin"
    # the outer venv's site-packages (flowctl's dependencies) under the fresh venv's own
    site = next((tmp / "venv" / "lib").glob("python3*/site-packages"))
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (site / "outer.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")
    run(sys.executable, "-m", "pip", "--python", bin_dir / "python", "install", "--no-deps",
        "--no-index", wheel, cwd=tmp)
    return bin_dir


def test_the_wheel_carries_schemas_playground_and_data(installed: Path, tmp_path: Path) -> None:
    probe = run(installed / "python", "-c",
                "import engine, pathlib; p = pathlib.Path(engine.__file__).parent; "
                "print(p); print(sorted(x.name for x in (p / 'schemas').iterdir()))",
                cwd=tmp_path).stdout.splitlines()
    assert "site-packages" in probe[0] and str(ROOT) not in probe[0]
    assert probe[1] == "['app.schema.json', 'eval.schema.json', 'flow.schema.json', " \
        "'test.schema.json']"
    package = Path(probe[0])
    assert (package / "transports" / "playground").is_dir()
    assert any((package / "transports" / "playground").iterdir())
    assert (package / "data" / "understand.j2").is_file()
    assert (package / "schemas" / "flow.schema.json").read_bytes() == \
        (ROOT / "schemas" / "flow.schema.json").read_bytes()


def test_flowctl_schema_prints_and_checks_in_an_install(installed: Path, tmp_path: Path) -> None:
    printed = run(installed / "flowctl", "schema", cwd=tmp_path).stdout
    assert json.loads(printed)["$id"] == "https://flowctl.dev/schemas/flow.schema.json"
    assert printed == (ROOT / "schemas" / "flow.schema.json").read_text(encoding="utf-8")
    assert run(installed / "flowctl", "schema", "-o", "-", cwd=tmp_path).stdout == printed
    assert run(installed / "flowctl", "schema", "--check", cwd=tmp_path).returncode == 0
    run(installed / "flowctl", "schema", "-o", tmp_path / "out", cwd=tmp_path)
    assert (tmp_path / "out" / "app.schema.json").is_file()


def test_flowctl_new_and_lint_in_an_install(installed: Path, tmp_path: Path) -> None:
    made = run(installed / "flowctl", "new", "greeter", "--dir", "svc", cwd=tmp_path,
               check=False)
    assert made.returncode == 0, made.stderr
    # the modelines point into a copy of the schemas written beside the flow (relative: it
    # works for a teammate who checks the project out), not into this machine's venv
    for name, schema in (("greeter.yaml", "flow"), ("greeter.test.yaml", "test")):
        first = (tmp_path / "svc" / name).read_text(encoding="utf-8").splitlines()[0]
        target = first.split("$schema=", 1)[1].strip()
        assert target == f"schemas/{schema}.schema.json", first
        assert (tmp_path / "svc" / target).read_text(encoding="utf-8") == \
            (ROOT / "schemas" / f"{schema}.schema.json").read_text(encoding="utf-8")
    lint = run(installed / "flowctl", "lint", "--strict", "svc", cwd=tmp_path, check=False)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    broken = tmp_path / "svc" / "greeter.yaml"
    broken.write_text(broken.read_text(encoding="utf-8") + "\nbogus_key: 1\n", encoding="utf-8")
    lint = run(installed / "flowctl", "lint", "svc", cwd=tmp_path, check=False)
    assert lint.returncode != 0 and "bogus_key" in lint.stdout + lint.stderr
