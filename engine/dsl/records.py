"""A flow's parts as a build holds them: plain frozen records, without pydantic's models.

The flow language's pydantic models (``engine.dsl.spec``) read and check a flow file; once
it compiled, a server only reads their fields. A build pickles each model as a *record* —
an instance of a small class with the model's name, one slot per field and the model's
class constants — so a server started from it never creates the ~60 model classes (their
import is most of what loading the flow language costs). A record reads, compares and
hashes like the model it came from; ``spec_of`` turns it back into that model for the rare
code that needs the model itself (the playground's stage graph runs lint's checks).
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

_KINDS: dict[tuple[str, str], type[Record]] = {}
"""(module, class name) -> its record class, made once per process."""


class Record:
    """A frozen record of one flow-language model's fields."""

    __slots__ = ()
    _model: ClassVar[tuple[str, str]] = ("", "")
    """The module and name of the model the record stands for."""
    _fields: ClassVar[tuple[str, ...]] = ()
    _constants: ClassVar[dict[str, Any]] = {}
    """The model's class constants (``irreversible``, ...), which the record has too."""

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    def __hash__(self) -> int:
        return hash((self._model, *(getattr(self, f) for f in self._fields)))

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return record, (*self._model, self._fields, self._constants,
                        tuple(getattr(self, f) for f in self._fields))

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Record:
        """A copy with ``update``'s fields changed (as the model's ``model_copy``)."""
        values = {f: getattr(self, f) for f in self._fields} | dict(update or {})
        return _made(type(self), tuple(values[f] for f in self._fields))


def record_kind(module: str, name: str, fields: tuple[str, ...],
                constants: dict[str, Any]) -> type[Record]:
    """The record class of model ``module.name``: a slot per field, its class constants."""
    kind = _KINDS.get((module, name))
    if kind is None:
        kind = _KINDS[module, name] = type(name, (Record,), {
            "__slots__": fields, "__module__": __name__, "_model": (module, name),
            "_fields": fields, "_constants": constants, **constants})
    return kind


def record(module: str, name: str, fields: tuple[str, ...], constants: dict[str, Any],
           values: tuple[Any, ...]) -> Record:
    """A pickled record (or model), loaded as a record."""
    return _made(record_kind(module, name, fields, constants), values)


def _made(kind: type[Record], values: tuple[Any, ...]) -> Record:
    made = object.__new__(kind)
    for field, value in zip(kind._fields, values, strict=True):
        object.__setattr__(made, field, value)
    return made


def reduce_model(model: Any) -> tuple[Any, ...]:
    """How a build pickles one of the flow language's models: as its record."""
    kind = type(model)
    fields = tuple(kind.model_fields)
    constants = {name: getattr(kind, name) for name in sorted(kind.__class_vars__)}
    return record, (kind.__module__, kind.__name__, fields, constants,
                    tuple(getattr(model, f) for f in fields))


def spec_of(value: Any) -> Any:
    """A record (in any list, tuple or dict) turned back into the model it stands for."""
    if isinstance(value, Record):
        module, name = value._model
        kind = getattr(importlib.import_module(module), name)
        return kind.model_construct(**{f: spec_of(getattr(value, f)) for f in value._fields})
    if isinstance(value, list | tuple):
        return type(value)(spec_of(v) for v in value)
    if isinstance(value, dict):
        return {k: spec_of(v) for k, v in value.items()}
    return value


__all__ = ["Record", "record", "record_kind", "reduce_model", "spec_of"]
