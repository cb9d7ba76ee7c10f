"""Messages of text and simple `{{ }}` outputs render without a jinja2 template run
(engine/compiler/fast.py, their plans): exactly as jinja2 renders them."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from jinja2 import UndefinedError
from jinja2.exceptions import SecurityError

from engine.compiler.templates import (
    base_context,
    compile_expression,
    compile_template,
    environment,
)

VIEW: dict[str, Any] = {
    **base_context(),
    "slots": {"recipient": "엄마", "amount": 35000, "memo": None, "ok": True},
    "turn": {"message": "{{ 7 * 7 }} 보내줘", "intent": "transfer", "confidence": 0.9},
    "batch": {"index": 2, "total": 3}, "progress": " (2/3)", "missing": ["date"],
    "agents": {"tester": {"summary": "1 passed."}, "dev": None}, "result": {"ok": False},
    "value": 1.5, "errors": {},
}

SOURCES = [
    "송금을 도와드릴게요.",
    "  앞뒤 공백  \n",
    "{{ slots.recipient }}님께 {{ slots.amount | won }} 보낼까요?{{ progress }}",
    "{{ slots.amount | money('USD') }} / {{ slots.amount | money }}",
    "{{ turn.message }}",  # user text is data: its braces are not evaluated
    "{{ slots.memo }} {{ slots.ok }} {{ value }} {{ batch.index }}/{{ batch.total }}",
    "{{ agents.tester.summary if agents.tester else '' }}",
    "{{ agents.dev.summary if agents.dev else '(none)' }}",
    "{{ 'yes' if slots.amount > 10000 and not result.ok else 'no' }}",
    "{{ slots.recipient | upper }}{{ missing }}",
    "{{ slots['recipient'] }}",  # not on the fast path: jinja2 renders it
    "{% if slots.ok %}yes{% endif %}",
]


def jinja(source: str, view: dict[str, Any]) -> str:
    return environment().from_string(source).render(view).strip()


@pytest.mark.parametrize("source", SOURCES)
def test_it_renders_what_jinja2_renders(source: str) -> None:
    assert compile_template(source).render(VIEW) == jinja(source, VIEW)


@pytest.mark.parametrize("source", [
    "{{ slots.nothing }}", "{{ nothing }}", "{{ nothing | won }}",
    "{{ 'a' if nothing else 'b' }}", "{{ slots.recipient.nothing }}",
])
def test_a_missing_name_fails_as_in_jinja2(source: str) -> None:
    with pytest.raises(UndefinedError):
        jinja(source, VIEW)
    with pytest.raises(UndefinedError):
        compile_template(source).render(VIEW)


def test_the_sandbox_still_guards_attribute_reads() -> None:
    source = "{{ slots.__class__ }}"
    with pytest.raises((SecurityError, UndefinedError)):
        jinja(source, VIEW)
    with pytest.raises((SecurityError, UndefinedError)):
        compile_template(source).render(VIEW)


def test_text_and_simple_outputs_take_the_fast_path_and_the_rest_jinja2() -> None:
    def fast(source: str) -> bool:
        return compile_template(source).plan is not None
    assert all(fast(s) for s in SOURCES[:-2])
    assert not fast("{{ slots['recipient'] }}") and not fast("{% if slots.ok %}y{% endif %}")
    assert not fast("{{ ask('amount') }}") and not fast("{{ missing | join(', ') }}")


@pytest.mark.parametrize("source", SOURCES)
def test_a_pickled_template_renders_as_the_one_compiled(source: str) -> None:
    """A build stores each template as its plan (or jinja2's code): loaded, it renders the
    same on every context, fast path or not."""
    compiled = compile_template(source)
    loaded = pickle.loads(pickle.dumps(compiled))
    assert loaded is not compiled and loaded.render is not compiled.render
    assert (loaded.plan, loaded.names, loaded.slot_refs) == \
        (compiled.plan, compiled.names, compiled.slot_refs)
    assert loaded.render(VIEW) == compiled.render(VIEW) == jinja(source, VIEW)


@pytest.mark.parametrize("source", [
    "slots.amount > 10000 and not result.ok", "slots.recipient | upper",
    "batch.total if batch.total > 1 else 0",
    "missing | join(', ')", "[1, 2, 3] | sum",  # jinja2's code
])
def test_a_pickled_expression_evaluates_as_the_one_compiled(source: str) -> None:
    compiled = compile_expression(source)
    loaded = pickle.loads(pickle.dumps(compiled))
    assert loaded.render is not compiled.render and loaded.expression
    assert loaded.render(VIEW) == compiled.render(VIEW)


# what a plan reads that only jinja2 can decide, in a context built before jinja2 was
# imported (without its globals): it goes to jinja2, and gives what jinja2 gives
NO_GLOBALS = {k: v for k, v in VIEW.items() if k not in base_context()}


@pytest.mark.parametrize("source", [
    "{{ range }}", "{{ dict }}",  # jinja2's globals, which such a context lacks
    "{{ slots.items }}", "{{ slots.get }}",  # a dict's own attribute before its item
    "{{ turn.message | lower }} {{ missing | length }}",  # jinja2's own filters
    "{{ slots.recipient.upper }}", "{{ progress.strip }}",  # attributes of a non-dict
])
def test_what_only_jinja2_decides_is_decided_by_jinja2(source: str) -> None:
    compiled = compile_template(source)
    assert compiled.plan is not None
    assert compiled.render(NO_GLOBALS) == jinja(source, VIEW)


def test_a_server_of_plans_only_never_imports_jinja2(tmp_path: Any) -> None:
    """Loaded from a build, templates that all have plans render in a process that never
    imports jinja2; the first that needs it (a missing name) imports it then and fails as
    jinja2 fails."""
    import subprocess
    import sys
    from pathlib import Path

    ours = [s for s in SOURCES[:-2] if "upper" not in s]  # the engine's filters only
    plans = [compile_template(s) for s in ours] + [compile_template("{{ nothing }}")]
    (tmp_path / "plans.pickle").write_bytes(pickle.dumps(plans))
    child = f"""
import pickle, sys
from engine.compiler.rendering import GLOBALS
view = {NO_GLOBALS!r}
*plans, missing = pickle.loads(open({str(tmp_path / "plans.pickle")!r}, "rb").read())
print([p.render(view) for p in plans])
assert "jinja2" not in sys.modules and not GLOBALS, sorted(sys.modules)
try:
    missing.render(view)
except Exception as err:
    print(type(err).__name__, err, "jinja2" in sys.modules, bool(GLOBALS))
"""
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", child], cwd=root, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out[0] == repr([p.render(VIEW) for p in plans[:-1]])
    assert out[1] == "UndefinedError 'nothing' is undefined True True"
