"""A build holds the flow language's models as records (engine/dsl/records.py): a server
loading it never creates their pydantic classes, and reads the same values from them."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from engine.compiler import artefact, compile_file
from engine.compiler.compiled import CompiledService
from engine.dsl import spec as s
from engine.dsl.records import Record, spec_of
from engine.transports.http.playground_api import service_view
from engine.transports.http.supervisor import loops

ROOT = Path(__file__).resolve().parents[1]
FLOWS = [p for p in sorted((ROOT / "flows").glob("*.yaml"))
         if not p.name.endswith((".test.yaml", ".eval.yaml")) and p.name != "bank.yaml"]


def built(flow: Path, tmp_path: Path) -> CompiledService:
    out = artefact.build(flow, tmp_path / f"{flow.stem}.flowc")
    return artefact.read(out)[1]


def models_in(value: Any) -> list[Any]:
    """Every model (or record) inside ``value``, depth first."""
    found: list[Any] = []
    if isinstance(value, BaseModel | Record):
        found.append(value)
        names = value._fields if isinstance(value, Record) else type(value).model_fields
        for name in names:
            found += models_in(getattr(value, name))
    elif isinstance(value, list | tuple):
        for item in value:
            found += models_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            found += models_in(item)
    return found


@pytest.mark.parametrize("flow", FLOWS, ids=[p.stem for p in FLOWS])
def test_a_built_flow_reads_the_values_its_models_hold(flow: Path, tmp_path: Path) -> None:
    compiled, loaded = compile_file(flow), built(flow, tmp_path)
    models, records = models_in(compiled.spec), models_in(loaded.spec)
    assert len(models) == len(records) > 10
    for model, record in zip(models, records, strict=True):
        assert isinstance(record, Record) and type(record).__name__ == type(model).__name__
        for name in type(model).model_fields:
            if not isinstance(getattr(model, name), BaseModel | list | dict):
                assert getattr(record, name) == getattr(model, name), name
        for name in type(model).__class_vars__:  # `irreversible`, ... as the model's
            assert getattr(record, name) == getattr(type(model), name)
    assert spec_of(loaded.spec) == compiled.spec  # turned back, the very models
    assert isinstance(loaded.memory, Record) and spec_of(loaded.memory) == compiled.memory


def test_a_record_is_frozen_compares_hashes_and_copies_as_its_model(tmp_path: Path) -> None:
    loaded = built(ROOT / "flows" / "transfer.yaml", tmp_path)
    model = next(iter(loaded.spec.models.values()))
    assert isinstance(model, Record)
    with pytest.raises(AttributeError):
        model.model = "other"  # type: ignore[misc]
    again = pickle.loads(pickle.dumps(model))
    assert again == model and hash(again) == hash(model) and again is not model
    changed = model.model_copy(update={"model": "other", "timeout_sec": 5.0})
    assert (changed.model, changed.timeout_sec, changed.provider) == \
        ("other", 5.0, model.provider)
    assert changed != model and model.model != "other"
    assert "provider=" in repr(model)


def test_what_the_playground_and_supervisor_show_of_a_build_is_what_they_show_compiled(
        tmp_path: Path) -> None:
    for name in ("transfer", "commerce", "devloop"):
        flow = ROOT / "flows" / f"{name}.yaml"
        compiled, loaded = compile_file(flow), built(flow, tmp_path)
        assert service_view(loaded) == service_view(compiled)
        assert loops(loaded) == loops(compiled)
    assert any(isinstance(step, s.LoopStep)
               for *_, step in s.service_steps(compile_file(ROOT / "flows/devloop.yaml").spec))


def test_loading_a_build_creates_no_model_of_the_flow_language(tmp_path: Path) -> None:
    out = artefact.build(ROOT / "flows" / "commerce.yaml", tmp_path / "commerce.flowc")
    child = f"""
import sys
from pathlib import Path
from engine.compiler import artefact
service = artefact.read(Path({str(out)!r}))[1]
print(service.spec.service, service.spec.flows[service.spec.default_flow].initial)
print(sorted(m for m in sys.modules if m.startswith("engine.dsl.")))
"""
    out_lines = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.splitlines()
    spec = compile_file(ROOT / "flows" / "commerce.yaml").spec
    assert out_lines[0] == f"{spec.service} {spec.flows[spec.default_flow].initial}"
    assert out_lines[1] == "['engine.dsl.records']"
