"""A parsed flow file -> the shared state every lint check reads and reports into."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path as FilePath

from engine.codes import severity
from engine.compiler.checks.model import FlowModel, flow_models
from engine.compiler.checks.reads import NOTHING, Reads, reads
from engine.compiler.prompt_files import prompt_candidates
from engine.dsl import spec as s
from engine.errors import Finding
from engine.source import Path, SourceMap


@dataclass
class Context:
    spec: s.ServiceSpec
    source: SourceMap
    base_dir: FilePath
    complete: bool = True
    """False after lint repaired the file; checks that need every name then stay silent."""
    findings: list[Finding] = field(default_factory=list)

    def add(self, path: Path, code: str, message: str, *, hint: str | None = None,
            key: bool = False) -> None:
        self.findings.append(self.source.finding(path, message, code=code, hint=hint, key=key,
                                                 severity=severity(code)))

    @cached_property
    def flows(self) -> dict[str, FlowModel]:
        return flow_models(self.spec)

    def message_reads(self, name: str | None, flow: s.FlowSpec | None = None,
                      _seen: frozenset[str] = frozenset()) -> Reads:
        """What rendering message ``name`` reads, through ``ask()`` into the slots' asks."""
        text = self.spec.messages.get(name or "")
        if text is None or name in _seen:
            return NOTHING
        found = reads(text)
        for asked in self.asked_messages(found, flow):
            found = found | self.message_reads(asked, flow, _seen | {name or ""})
        return found

    def asked_messages(self, found: Reads, flow: s.FlowSpec | None) -> list[str]:
        """The ``ask`` messages an ``ask(...)`` call can render (all required ones for
        a computed argument such as ``ask(missing[0])``)."""
        names: list[str] = []
        for slot in found.asks:
            targets = [slot] if slot is not None else [
                n for n in (flow.slots if flow else []) if self._required(n)]
            names += [ask for n in targets if (ask := self._ask_of(n)) is not None]
        return names

    def _required(self, slot: str) -> bool:
        spec = self.spec.slots.get(slot)
        return spec is not None and spec.required is not False

    def _ask_of(self, slot: str) -> str | None:
        spec = self.spec.slots.get(slot)
        return spec.ask if spec else None

    def prompt_file(self, name: str) -> FilePath | None:
        return next((p for p in prompt_candidates(self.base_dir, name) if p.is_file()), None)

    def steps(self) -> list[tuple[str, str, Path, s.Step]]:
        """(flow, stage, path, step) for every step of the service."""
        return list(s.service_steps(self.spec))
