"""Benchmark: `flowctl lint` over 100 flow files (variants of the shipped ones) in a temp dir.

    python bench/lint.py [--files 100] [--repeat 3]

Each variant renames the service and changes every message text, so no two files share
a template (nothing can be served from a cache). Prints the best wall time of in-process
linting with the default worker processes, with one process, and of the CLI end to end.
Target (docs/performance.md): under 2 s for 100 files on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)  # not bench/: its http.py would shadow the standard library's http

from engine.lint import lint_paths  # noqa: E402

SOURCES = ("transfer.yaml", "minimal.yaml")


def variant(text: str, i: int) -> str:
    text = re.sub(r"^service: (\w+)", rf"service: \g<1>_{i}", text, count=1, flags=re.M)
    # every message line ends with a distinct marker, so each template is new
    out, in_messages = [], False
    for line in text.splitlines():
        if line.startswith("messages:"):
            in_messages = True
        elif in_messages and re.match(r"^  \w+: \S", line) and not line.rstrip().endswith(">-"):
            quoted = line.rstrip().endswith('"')  # the marker goes inside the quotes
            line = f"{line.rstrip()[:-1]} (v{i})\"" if quoted else f"{line} (v{i})"
        out.append(line)
    return "\n".join(out) + "\n"


def generate(directory: Path, files: int) -> Path:
    flows = directory / "flows"
    flows.mkdir()
    (directory / "prompts").mkdir()
    used = {name for source in SOURCES for name in re.findall(
        r"prompt: (\w+)", (ROOT / "flows" / source).read_text(encoding="utf-8"))}
    for name in used:  # only these: a prompt no flow uses is a lint finding
        if (ROOT / "prompts" / f"{name}.j2").exists():
            shutil.copy(ROOT / "prompts" / f"{name}.j2", directory / "prompts")
    for i in range(files):
        name = SOURCES[i % len(SOURCES)]
        text = (ROOT / "flows" / name).read_text(encoding="utf-8")
        (flows / f"{Path(name).stem}_{i:03}.yaml").write_text(variant(text, i), encoding="utf-8")
    return flows


def best(runs: int, action) -> float:  # noqa: ANN001 - a callable
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        flows = generate(Path(tmp), args.files)
        report = lint_paths([flows])
        assert len(report.files) == args.files, report.files
        assert not report.findings, [f.render() for f in report.findings[:5]]
        parallel = best(args.repeat, lambda: lint_paths([flows]))
        serial = best(args.repeat, lambda: lint_paths([flows], jobs=1))
        cli = best(args.repeat, lambda: subprocess.run(
            [sys.executable, str(ROOT / "cli.py"), "lint", str(flows)], check=True,
            stdout=subprocess.DEVNULL))
    print(f"lint {args.files} flow files on {os.cpu_count()} cores (best of {args.repeat}):")
    print(f"  in process, worker processes: {parallel:6.2f} s "
          f"({parallel / args.files * 1000:.1f} ms/file)")
    print(f"  in process, one process:      {serial:6.2f} s "
          f"({serial / args.files * 1000:.1f} ms/file)")
    print(f"  `flowctl lint` end to end:    {cli:6.2f} s")


if __name__ == "__main__":
    main()
