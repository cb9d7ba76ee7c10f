"""Messages and expressions render from their plans (engine/compiler/fast.py, readers.py,
rendering.py) without a jinja2 template run: exactly as jinja2 renders them — the same text,
or the same kind of failure — on every construct plans cover, and jinja2 runs the rest."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from jinja2 import UndefinedError

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
    "value": 1.5, "errors": {"amount": "too much", "date": "past"},
    "items": [{"n": 1, "ok": True, "tags": ["a", "b"]}, {"n": 2, "ok": False, "tags": []},
              {"n": 3, "ok": True, "tags": ["c"]}],
    "ask": lambda name: f"What {name}?",
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
    "{{ slots['recipient'] }}{{ missing[0] }}{{ missing[-1] }}{{ turn.message[:4] }}",
    "{% if slots.ok %}yes{% endif %}",
    "{% if slots.memo %}a{% elif batch.total > 2 %}b{{ batch.index }}{% else %}c{% endif %}",
    "{% if slots.memo is none and slots.amount is not none %}both{% endif %}",
    "{% for name in missing %}{{ name }}{% if not loop.last %}, {% endif %}{% endfor %}",
    "{% for k, v in slots.items() %}{{ loop.index }}/{{ loop.length }} {{ k }}={{ v }};"
    "{% endfor %}",
    "{% for x in [] %}{{ x }}{% else %}nothing{% endfor %}",
    "{% for x in [1, 2, 3, 4] if x is even %}{{ x * 10 }}{% endfor %}",
    "{% set total = batch.index + batch.total %}{{ total }} {{ total // 2 }} {{ -total }}",
    "{% if slots.ok %}{% set who = slots.recipient %}{% endif %}{{ who | default('?') }}",
    "{{ errors.values() | join(' ') }}|{{ missing | join(', ') }}|{{ missing | length }}",
    "{{ ask(missing[0]) }} {{ 'x' ~ batch.index ~ slots.recipient }}",
    "{{ [1, 2, 3] | sum }} {{ items | sum(attribute='n') }} {{ items | join('-', "
    "attribute='n') }}",
    "{{ items | selectattr('n', 'gt', 1) | list | length }} "
    "{{ items | rejectattr('n', 'odd') | map(attribute='n') | list }}",
    "{{ items | selectattr('ok') | list }} {{ [0, 1, 2] | select | list }}",
    "{{ {'a': 1, 'b': slots.amount}['b'] }} {{ (1, 2)[1] }} {{ 7 / 2 }} {{ 7 % 3 }} "
    "{{ 2 ** 3 }}",
    "{{ slots.recipient | lower }}{{ slots.recipient | upper }}{{ 'AbC' | lower }}",
    "{{ range(3) | list }} {{ dict(a=1) }}",
    "{% for t in items %}{% for c in t.tags %}{{ c }}{% endfor %}{% endfor %}",
    "{{ value }}{% set value = 2 %}{{ value }}",  # read before a set: the context's
    "{% set value = 9 %}{% for v in [1, 2] %}{{ value }}{% endfor %}{% set value = 4 %}"
    "{{ value }}",
    "{% for t in items %}{{ loop.cycle('a', 'b') }}{% endfor %}",  # jinja2's loop helpers
    "{% macro m(x) %}{{ x }}{% endmacro %}{{ m(1) }}",  # macros: jinja2's code
]

NOT_PLANNED = SOURCES[-2:]

LATER_SET = [  # a loop reading a name set only after it: undefined in jinja2, so no plan
    "{% for v in [1, 2] %}{{ value }}{% endfor %}{% set value = 9 %}",
    "{% if slots.ok %}{% for v in [1] %}{{ value }}{% endfor %}{% endif %}{% set value = 3 %}",
    "{% for t in missing %}{{ t }}{% endfor %}{% set missing = [1] %}",
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


@pytest.mark.parametrize("source", [
    "{{ slots.__class__ }}", "{{ slots.update({'amount': 1}) }}{{ slots.amount }}",
    "{{ slots.pop('amount') }}", "{{ missing.append('x') }}{{ missing }}",
    "{{ ''.__class__.__mro__ }}", "{{ range(10 ** 9) | list | length }}",
    "{{ turn.message.format(1) }}", "{{ '{0.__class__}'.format(slots) }}",
    "{% for x in slots.clear() %}{% endfor %}{{ slots }}", "{{ (slots.items)() | list }}",
])
def test_the_sandbox_still_guards_what_a_template_reaches(source: str) -> None:
    """Attributes, mutating methods, huge ranges and str.format: a plan fails (or gives)
    exactly what the immutable sandbox does, and the context is left as it was."""
    view = {**VIEW, "slots": dict(VIEW["slots"]), "missing": list(VIEW["missing"])}
    template = environment().from_string(source)
    expected = outcome(lambda v: template.render(v).strip(), view)
    assert outcome(compile_template(source).render, view) == expected
    assert view["slots"] == VIEW["slots"] and view["missing"] == VIEW["missing"]
    assert compile_template(source).plan is not None


def test_what_plans_cover_has_a_plan_and_the_rest_jinja2s_code() -> None:
    def fast(source: str) -> bool:
        return compile_template(source).plan is not None
    assert all(fast(s) for s in SOURCES if s not in NOT_PLANNED)
    assert not any(fast(s) for s in NOT_PLANNED)
    assert not fast("{% set ns = namespace(a=1) %}{% set ns.a = 2 %}{{ ns.a }}")
    assert not fast("{% for x in missing %}{% set y = x %}{{ y }}{% endfor %}")
    assert not fast("{{ self }}") and not fast("{% for x in loop %}{{ x }}{% endfor %}")
    assert not any(fast(s) for s in LATER_SET)


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
    "{{ missing | first }} {{ items | map(attribute='n') | list }}",  # jinja2's filters
    "{{ items | selectattr('n', 'callable') | list }}",  # one of its tests
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

    jinja_only = ("ask(", "range(", "map(", "default(", "cycle", "macro")
    ours = [s for s in SOURCES if not any(part in s for part in jinja_only)]
    plans = [compile_template(s) for s in ours] + [compile_template("{{ nothing }}")]
    view = {k: v for k, v in NO_GLOBALS.items() if k != "ask"}
    (tmp_path / "plans.pickle").write_bytes(pickle.dumps((view, plans)))
    child = f"""
import pickle, sys
from engine.compiler.filters import GLOBALS
view, (*plans, missing) = pickle.loads(open({str(tmp_path / "plans.pickle")!r}, "rb").read())
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
    assert len(ours) > 15 and out[0] == repr([p.render(VIEW) for p in plans[:-1]])
    assert out[1] == "UndefinedError 'nothing' is undefined True True"


# the same templates on contexts they were not written for: empty, missing and ill-shaped
# values give what jinja2 gives, text or failure
SPARSE: dict[str, Any] = {
    **VIEW, "missing": [], "errors": {}, "items": [], "turn": {"message": ""},
    "slots": {"recipient": "", "amount": None, "memo": "m", "ok": False},
    "batch": {"index": 1, "total": 1},
}
ILL_SHAPED: dict[str, Any] = {
    **VIEW, "missing": "ab", "errors": [], "items": [{"n": "x", "tags": 5}, 7],
    "slots": {}, "batch": {"index": None, "total": "3"},
}


def outcome(render: Any, view: dict[str, Any]) -> tuple[str, Any]:
    try:
        return ("text", render(view))
    except Exception as err:  # the kind of failure: jinja2's errors keep their class
        return ("failed", type(err).__name__)


ORDER = [  # which of two failures comes first: `~` evaluates every operand before any text
    "{{ nothing ~ (1 | sum(attribute='n')) }}", "{{ slots.nothing ~ batch.index // 0 }}",
]


MISUSED = ["{{ items | selectattr | list }}", "{{ items | rejectattr | list }}"]  # jinja2's error


@pytest.mark.parametrize("view", [VIEW, SPARSE, ILL_SHAPED], ids=["full", "sparse", "ill"])
@pytest.mark.parametrize("source", SOURCES + LATER_SET + ORDER + MISUSED)
def test_a_plan_gives_what_jinja2_gives_on_any_context(source: str,
                                                       view: dict[str, Any]) -> None:
    template = environment().from_string(source)
    expected = outcome(lambda v: template.render(v).strip(), view)
    assert outcome(compile_template(source).render, view) == expected
    loaded = pickle.loads(pickle.dumps(compile_template(source)))
    assert outcome(loaded.render, view) == expected


EXPRESSIONS = [
    "slots.amount is none or result.ok", "slots.amount > 10000 and not result.ok",
    "missing[0] if missing else none", "batch.index + 1 == batch.total",
    "slots.recipient in ['엄마', '아빠']", "items | selectattr('ok') | list | length",
    "errors.get('amount', 'fine')", "slots.amount is number and slots.amount is even",
    "(slots.memo ~ '') | length > 0", "items | sum(attribute='n') >= 5",
    "turn.message[:2]", "{'a': batch.total}.a", "slots.nothing is defined",
]


@pytest.mark.parametrize("view", [VIEW, SPARSE, ILL_SHAPED], ids=["full", "sparse", "ill"])
@pytest.mark.parametrize("source", EXPRESSIONS)
def test_an_expression_plan_gives_what_jinja2_gives(source: str, view: dict[str, Any]) -> None:
    compiled = compile_expression(source)
    assert compiled.plan is not None
    expected = outcome(environment().compile_expression(source, undefined_to_none=False),
                       view)
    assert outcome(compiled.render, view) == expected


@pytest.mark.parametrize(("compile_", "source"), [
    (compile_template, "{{ slots.amount + 'won' }}"),
    (compile_template, "{{ slots.recipient / 2 }}"),
    (compile_template, "{{ (missing | first)[9] }}"),
    (compile_template, "{% for x in slots.amount %}{{ x }}{% endfor %}"),
    (compile_template, "{{ items | sum(attribute='tags') }}"),
    (compile_expression, "slots.amount > 'x'"),  # a condition: only readers.py's frames
    (compile_expression, "batch.index // 0"),
    (compile_expression, "slots.recipient + 1 == 2"),
])
def test_a_plan_that_fails_is_told_as_a_template_failure(compile_: Any, source: str) -> None:
    """A turn's error kind names the template, whether jinja2 or a plan raised."""
    from engine.runtime.calls.failures import failure_kind

    compiled = compile_(source)
    assert compiled.plan is not None
    with pytest.raises(Exception) as failed:
        compiled.render(VIEW)
    assert failure_kind(failed.value) == "template"
