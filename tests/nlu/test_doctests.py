"""The examples in the nlu docstrings run and hold."""

import doctest
import importlib

import pytest

MODULES = [
    "__init__",
    "currency",
    "dates",
    "enums",
    "intents",
    "money",
    "names",
    "certainty",
    "numbers",
    "spans",
    "segments",
    "words",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module("engine.nlu" if name == "__init__" else f"engine.nlu.{name}")
    result = doctest.testmod(module)
    assert (result.failed, result.attempted > 0) == (0, True)
