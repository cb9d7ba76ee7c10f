"""Every example in the engine's docstrings runs and shows what it says (``>>>`` lines are
documentation a reader trusts: one that went stale fails here, not in a reader's hands)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engine

MODULES = sorted(m.name for m in pkgutil.walk_packages(engine.__path__, "engine."))


def test_the_engine_has_examples_to_check() -> None:
    found = sum(bool(test.examples) for name in MODULES
                for test in doctest.DocTestFinder().find(importlib.import_module(name)))
    assert found > 50


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_a_modules_docstrings_hold(name: str) -> None:
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0, f"{name}: {failed} example(s) do not hold (printed above)"
