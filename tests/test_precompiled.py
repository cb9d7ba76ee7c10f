"""The engine's patterns from their kept compiled form: the same patterns as ``re.compile``
gives, kept by a first process and used by the next, and anything amiss with the kept file
(damaged, tampered with, unwritable, bytecode switched off) costs only the compile."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import re
import subprocess
import sys
from array import array
from pathlib import Path
from typing import Any

import pytest

from engine import precompiled
from engine.precompiled import re_compile

ROOT = Path(__file__).resolve().parents[1]

# patterns of the kinds the rule matchers use, none of them the engine's own
PATTERNS = [
    (r"(?<![가-힣])(?P<who>[가-힣]{2,4})(?:한테|에게)", 0),
    (r"\b(?:send|wire)\s+(?P<amount>[0-9][0-9,]*)\s*(?:won|krw)?\b", re.IGNORECASE),
    (r"[가-힣a-z]+(?:님|씨)?", re.IGNORECASE),
    (r"(?-i:May)|\b(?:jun(?:e)?)\b", re.IGNORECASE),
    (r"^\s*(?:네|예|응)\s*[.!~]*\s*$", 0),
    (r"(?P<n>[0-9]+) # a number\n \s* (?P<unit>개|명)", re.VERBOSE),
    (r"(\w+)\s+\1", re.ASCII),
    (r"^a.b$", re.MULTILINE | re.DOTALL),
]
TEXTS = ["엄마한테 3만원", "Send 10,000 won now", "김철수님 괜찮아", "May june", " 네! ",
         "3 개", "hello hello", "a\nb\naxb", "", "ㅋㅋ 한테"]


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_a_pattern_built_from_its_code_is_the_pattern_re_compiles(pattern: str,
                                                                   flags: int) -> None:
    code = precompiled._code_of(pattern, int(flags))
    assert code is not None
    built = precompiled._built(pattern, code)
    assert built == re.compile(pattern, flags)
    assert (built.flags, built.groups, built.groupindex) == (
        re.compile(pattern, flags).flags, re.compile(pattern, flags).groups,
        re.compile(pattern, flags).groupindex)
    for text in TEXTS:
        assert [m.groupdict() or m.group() for m in built.finditer(text)] == \
            [m.groupdict() or m.group() for m in re.finditer(pattern, text, flags)]


def test_re_compile_gives_what_re_compile_gives() -> None:
    for pattern, flags in PATTERNS:
        assert re_compile(pattern, flags) == re.compile(pattern, flags)
    with pytest.raises(re.error):
        re_compile("(?P<a>unclosed")


# a fresh interpreter: imports the understanding modules, reads a message with them, and
# says how it came by its patterns
_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from engine.nlu import money, names
from engine.runtime.understanding import understand  # noqa: F401
from engine import precompiled
print(json.dumps({"stats": precompiled.stats(), "path": str(precompiled.PATH),
                  "money": repr(money.find_money("엄마한테 3만 5천원, 아빠한테 10,000원 보내줘")),
                  "bytecode": not sys.dont_write_bytecode}))
"""


def probe(prefix: Path, **env: str) -> dict[str, Any]:
    """Run _PROBE with its bytecode (and kept patterns) under ``prefix``."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ.update(PYTHONPYCACHEPREFIX=str(prefix), **env)
    done = subprocess.run([sys.executable, "-c", _PROBE, str(ROOT)], env=environ,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_a_first_process_keeps_the_patterns_and_the_next_compiles_none(tmp_path: Path) -> None:
    first = probe(tmp_path)
    kept = Path(str(first["path"]))
    assert str(kept).startswith(str(tmp_path)) and kept.is_file()
    assert first["stats"]["compiled"] > 100
    second = probe(tmp_path)
    assert second["stats"] == {"kept": first["stats"]["compiled"], "compiled": 0}
    assert second["money"] == first["money"]
    assert oct(kept.stat().st_mode & 0o777) == oct(0o644)


def test_no_bytecode_written_keeps_no_patterns(tmp_path: Path) -> None:
    result = probe(tmp_path, PYTHONDONTWRITEBYTECODE="1")
    assert not Path(str(result["path"])).exists()
    assert probe(tmp_path, PYTHONDONTWRITEBYTECODE="1")["stats"]["kept"] == 0


def test_a_damaged_kept_file_costs_only_the_compile(tmp_path: Path) -> None:
    kept = Path(str(probe(tmp_path)["path"]))
    good = probe(tmp_path)
    kept.write_bytes(b"\x00not marshal at all")
    damaged = probe(tmp_path)
    assert damaged["stats"]["kept"] == 0
    assert damaged["money"] == good["money"]
    assert probe(tmp_path)["stats"]["compiled"] == 0  # the damaged file was written anew


def test_kept_code_the_matcher_refuses_is_compiled_anew(tmp_path: Path) -> None:
    kept = Path(str(probe(tmp_path)["path"]))
    entries = marshal.loads(kept.read_bytes())
    tampered = {key: (flags, array("I", [99999]).tobytes() + code[4:], groups, names, index)
                for key, (flags, code, groups, names, index) in entries.items()}
    kept.write_bytes(marshal.dumps(tampered))
    result = probe(tmp_path)
    assert result["stats"] == {"kept": 0, "compiled": len(entries)}
    assert result["money"] == probe(tmp_path)["money"]


def test_a_directory_that_cannot_be_written_keeps_nothing_and_says_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the bytecode directory would be")
    result = probe(blocker / "pycache")
    assert result["stats"]["compiled"] > 100


def test_flowctl_build_keeps_them_even_without_bytecode(tmp_path: Path) -> None:
    environ = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "pycache"),
               "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, str(ROOT / "cli.py"), "build",
                           str(ROOT / "flows" / "transfer.yaml"), "-o", str(tmp_path / "t.flowc")],
                          env=environ, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    result = probe(tmp_path / "pycache", PYTHONDONTWRITEBYTECODE="1")
    assert result["stats"]["compiled"] == 0


# a class of every kind `dataclasses` writes methods for
_CLASSES = '''
import dataclasses
from dataclasses import dataclass, field, KW_ONLY
from typing import Any

@dataclass(frozen=True, slots=True)
class Frozen:
    name: str
    amount: int = 0
    tags: tuple[str, ...] = ()

@dataclass(order=True)
class Ordered:
    rank: int
    items: list[Any] = field(default_factory=list)
    seen: bool = field(default=False, compare=False, repr=False)

@dataclass(kw_only=True, eq=False)
class KwOnly:
    a: int
    b: "str" = "x"

@dataclass
class Later:
    x: int
    _: KW_ONLY
    y: int = 2
    z: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.z.setdefault("x", self.x)

def describe() -> list[Any]:
    f = Frozen("a", 3)
    try:
        f.amount = 4
        frozen = False
    except dataclasses.FrozenInstanceError:
        frozen = True
    k = KwOnly(a=1)
    return [repr(f), hash(f) == hash(Frozen("a", 3)), frozen, Frozen.__slots__,
            repr(Ordered(2, [1])), Ordered(1) < Ordered(2), Ordered(1, seen=True) == Ordered(1),
            repr(k), k == KwOnly(a=1), repr(Later(1)), Later(1, y=3).z, Frozen.__match_args__,
            Later.__match_args__, str(Frozen.__init__.__annotations__),
            str(KwOnly.__init__.__annotations__), [f.name for f in dataclasses.fields(Later)]]
'''


def _described(module: str) -> list[Any]:
    """The classes above made in a module called ``module``: what they do."""
    import types
    made = types.ModuleType(module)
    sys.modules[module] = made
    try:
        exec(compile(_CLASSES, f"<{module}>", "exec", dont_inherit=True), made.__dict__)
        described: list[Any] = made.describe()
    finally:
        del sys.modules[module]
    return described


def test_an_engine_dataclass_is_the_class_dataclasses_makes() -> None:
    before = dict(precompiled.method_stats())
    ours = _described("engine.probe_dataclasses")  # its methods' code kept (or compiled)
    assert precompiled.method_stats() != before
    elsewhere = _described("probe_dataclasses")  # not the engine's: compiled, not kept
    hook = dataclasses.exec  # type: ignore[attr-defined]
    del dataclasses.exec  # type: ignore[attr-defined]
    try:
        theirs = _described("engine.probe_dataclasses")  # what `dataclasses` does alone
    finally:
        dataclasses.exec = hook  # type: ignore[attr-defined]
    assert ours == theirs == elsewhere
    assert ours[1:4] == [True, True, ("name", "amount", "tags")]
    assert "'amount': <class 'int'>" in ours[13]  # annotations as types, not as strings


_PROBE_METHODS = """
import json, sys
sys.path.insert(0, sys.argv[1])
import engine.runtime.engine, engine.transports.http  # noqa: F401
from engine import precompiled
from engine.runtime.understanding.understand import SlotOp
print(json.dumps({"stats": precompiled.method_stats(), "path": str(precompiled.METHODS_PATH),
                  "op": repr(SlotOp("set", "amount", 3)), "held": len(precompiled._kept_methods),
                  "eq": SlotOp("set", "a") == SlotOp("set", "a")}))
"""


def methods_probe(prefix: Path, **env: str) -> dict[str, Any]:
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ.update(PYTHONPYCACHEPREFIX=str(prefix), **env)
    done = subprocess.run([sys.executable, "-c", _PROBE_METHODS, str(ROOT)], env=environ,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_a_first_process_keeps_the_dataclass_methods_and_the_next_compiles_none(
        tmp_path: Path) -> None:
    first = methods_probe(tmp_path)
    assert first["stats"]["compiled"] > 100 and Path(first["path"]).is_file()
    second = methods_probe(tmp_path)
    assert second["stats"] == {"kept": first["stats"]["compiled"], "compiled": 0}
    assert second["held"] == 0  # each kept entry let go once its classes were made
    assert (second["op"], second["eq"]) == (first["op"], first["eq"]) == (
        "SlotOp(op='set', slot='amount', value=3)", True)
    kept = Path(first["path"])
    kept.write_bytes(b"\x00damaged")
    assert methods_probe(tmp_path)["stats"]["kept"] == 0  # compiled anew, and written again
    assert methods_probe(tmp_path)["stats"]["compiled"] == 0
    no_bytecode = tmp_path / "none"
    methods_probe(no_bytecode, PYTHONDONTWRITEBYTECODE="1")
    assert not any(no_bytecode.rglob("*.methods-*"))
