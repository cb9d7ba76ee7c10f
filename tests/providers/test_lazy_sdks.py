"""A model that runs offline (no key) never imports its vendor SDK: the server's footprint
stays small until a key is set."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

PROBE = """
import sys
from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
engine = Engine(compile_file("flows/transfer.yaml"), store=MemoryStore(),
                settings=load_settings({}))
assert engine.understanding is None
print(sorted(m for m in ("openai", "anthropic") if m in sys.modules))
"""


def test_an_offline_model_imports_no_vendor_sdk() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
