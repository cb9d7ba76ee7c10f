"""Slot validators: ``module:function`` imported once at compile time, called per value.

A validator is called as ``function(value, slots)``, plus ``today=`` (a ``datetime.date``
from the engine's clock) when its signature has a ``today`` parameter or ``**kwargs``; the
signature is inspected here, once. What it returns is read by
``engine.runtime.understanding.slots``:
``True``/``None`` accept, ``False`` or a string reject, ``Replace(value)`` (or the plain
dict ``{"value": ...}``) accepts a normalised value in place of the one given.
"""

from __future__ import annotations

import datetime as dt
import importlib
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any

from engine.source import Path

if TYPE_CHECKING:
    from engine.compiler.resolve import Resolver  # the compiler's; a server loads none


class BadVerdict(TypeError):
    """A validator returned what no verdict is: the validator's bug, which fails the turn."""


@dataclass(frozen=True, slots=True)
class Replace:
    """A validator's verdict: accept, storing ``value`` instead (``"7pm"`` -> ``"19:00"``)."""

    value: Any


@dataclass(frozen=True, slots=True)
class SlotValidator:
    """The imported function and whether it takes ``today``."""

    func: Callable[..., Any]
    takes_today: bool = False
    target: str = ""
    """``module:function``, imported beside ``base`` (the flow's directory)."""
    base: str = ""

    def __reduce__(self) -> tuple[Callable[[str, str, bool], SlotValidator],
                                  tuple[str, str, bool]]:
        """Pickled as where it came from: loading imports it again."""
        return _imported_again, (self.target, self.base, self.takes_today)

    def __call__(self, value: Any, slots: Mapping[str, Any], today: dt.date) -> Any:
        if self.takes_today:
            return self.func(value, dict(slots), today=today)
        return self.func(value, dict(slots))


def import_validator(target: str | None, base: FilePath, path: Path,
                     r: Resolver) -> SlotValidator | None:
    """Import ``module:function``, looking beside the flow file first."""
    if target is None:
        return None
    module_name, func_name = target.split(":")
    try:
        module = _import(module_name, base)
    except Exception as err:  # any import-time failure is the author's to fix
        r.error(path, f"cannot import validator module `{module_name}`: {err}", "FL034")
        return None
    func = getattr(module, func_name, None)
    if not callable(func):
        r.error(path, f"`{module_name}` has no function `{func_name}`", "FL034")
        return None
    takes_today = _takes_today(func)
    if takes_today is None:
        r.error(path, f"validator `{target}` cannot be called as `{func_name}(value, slots)`"
                      " (optionally with `today=`)", "FL034")
        return None
    return SlotValidator(func, takes_today, target, str(base))


def _import(module_name: str, base: FilePath) -> Any:
    _forget_other(module_name, base)
    sys.path.insert(0, str(base))
    try:
        return importlib.import_module(module_name)
    finally:
        sys.path.remove(str(base))


def _imported_again(target: str, base: str, takes_today: bool) -> SlotValidator:
    module_name, func_name = target.split(":")
    func = getattr(_import(module_name, FilePath(base)), func_name)
    return SlotValidator(func, takes_today, target, base)


def _forget_other(module_name: str, base: FilePath) -> None:
    """Two flows in different directories may each have a ``rules.py``: a module of that
    name imported from elsewhere is dropped from the cache, so this flow gets its own."""
    cached = sys.modules.get(module_name)
    beside = base / (module_name.replace(".", "/") + ".py")
    if cached is None or not beside.is_file():
        return
    if FilePath(getattr(cached, "__file__", "") or "").resolve() != beside.resolve():
        del sys.modules[module_name]
        importlib.invalidate_caches()


def _takes_today(func: Callable[..., Any]) -> bool | None:
    """True/False: callable with (value, slots) and with/without ``today=``; None: neither."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # a builtin without a signature: call it the old way
        return False
    try:
        signature.bind(None, None, today=None)
        return True
    except TypeError:
        pass
    try:
        signature.bind(None, None)
        return False
    except TypeError:
        return None


__all__ = ["BadVerdict", "Replace", "SlotValidator", "import_validator"]
