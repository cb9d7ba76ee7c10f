"""flowctl: one YAML file per conversational service, compiled and run by one interpreter.

Data flows down the packages: ``dsl`` (YAML -> located spec) -> ``compiler`` (spec ->
machines, templates, conditions, and every finding) -> ``runtime`` (a turn -> events,
committed atomically), with ``nlu`` (offline understanding), ``providers`` (LLMs),
``store`` (sessions) and ``registry``/``codes`` (the language's fixed names and finding
codes) beneath, and ``transports`` (HTTP/SSE, terminal), ``lint``, ``testing`` and
``authoring`` on top. ``cli.py`` is the thin edge. docs/architecture.md walks through it.
"""

from engine.precompiled import keep_dataclass_methods

keep_dataclass_methods()  # before any of the engine's dataclasses is made
