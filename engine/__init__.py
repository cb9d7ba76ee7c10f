"""flowctl: one YAML file per conversational service, compiled and run by one interpreter.

Data flows down the packages: ``dsl`` (YAML -> located spec) -> ``compiler`` (spec ->
machines, templates, conditions) -> ``runtime`` (a turn -> events, committed atomically),
with ``nlu`` (offline understanding), ``providers`` (LLMs) and ``store`` (sessions) beneath,
and ``transports`` (HTTP/SSE, terminal) and ``lint`` on top. ``cli.py`` is the thin edge.
"""
