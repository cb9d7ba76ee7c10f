"""A schema-valid app -> the findings a schema cannot express, located in the app file.

FL080 a name that is not a service; FL081 a keyword two services claim; FL082 a service no
message can reach; FL083 a remote URL whose variable is not set here; FL084 a local flow
file that is missing or does not compile; FL085 an app without a local service; FL095 a
service the LLM router cannot tell the purpose of; FL096 a hook type no service emits.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path as FilePath

from engine.app.loaded import LoadedApp
from engine.compiler import compile_file
from engine.compiler.checks.hooks import emitted
from engine.dsl.hooks import url_variable
from engine.errors import Finding, FlowDefinitionError

__all__ = ["check_app", "service_keywords"]


def check_app(loaded: LoadedApp, env: Mapping[str, str]) -> Iterator[Finding]:
    """Every finding of a schema-valid app; compiles its local flows into ``loaded.flows``."""
    yield from _flows(loaded)
    yield from _default(loaded)
    yield from _claimed_twice(loaded)
    yield from _unreachable(loaded)
    yield from _unset(loaded, env)
    yield from _undescribed(loaded)
    yield from _never_emitted(loaded)


def _flows(loaded: LoadedApp) -> Iterator[Finding]:
    spec, source = loaded.spec, loaded.source
    for name, service in spec.services.items():
        if service.flow is None:
            continue
        path = loaded.path.parent / service.flow
        where = ("services", name, "flow")
        if not path.is_file():
            yield source.finding(where, f"flow file `{service.flow}` of service `{name}` not "
                                 f"found (looked in {path.parent})", code="FL084")
            continue
        try:
            loaded.flows[name] = compile_file(path)
        except FlowDefinitionError as err:
            count = sum(f.severity == "error" for f in err.findings)
            yield source.finding(where, f"flow file `{service.flow}` of service `{name}` has "
                                 f"{count} error(s)", code="FL084",
                                 hint=f"run `flowctl lint {_shown(path)}`")
    if not any(s.flow for s in spec.services.values()):
        yield source.finding(("services",), "the app has no local service (`flow:`); it needs "
                             "one to answer when every remote service is down", code="FL085",
                             key=True)


def _shown(path: FilePath) -> str:
    try:
        return str(path.relative_to(FilePath.cwd()))
    except ValueError:
        return str(path)


def _default(loaded: LoadedApp) -> Iterator[Finding]:
    spec = loaded.spec
    if spec.default not in spec.services:
        yield loaded.source.finding(("default",), f"default service `{spec.default}` is not "
                                    f"one of the services ({', '.join(spec.services)})",
                                    code="FL080")


def service_keywords(loaded: LoadedApp, name: str) -> list[str]:
    """The words that route to service ``name``: its own keywords, then (for a local
    service with ``intents: true``) the keywords of its flow's routed intents."""
    service = loaded.spec.services[name]
    words = list(service.keywords)
    compiled = loaded.flows.get(name)
    if service.intents and compiled is not None:
        spec = compiled.spec
        words += [w for intent, s in spec.intents.items() if intent in spec.routes
                  for w in s.keywords]
    return list(dict.fromkeys(words))


def _claimed_twice(loaded: LoadedApp) -> Iterator[Finding]:
    owner: dict[str, str] = {}
    for name, service in loaded.spec.services.items():
        for word in service_keywords(loaded, name):
            first = owner.setdefault(word, name)
            if first == name:
                continue
            own = word in service.keywords
            where = ("services", name, "keywords", service.keywords.index(word)) if own \
                else ("services", name, "flow")
            yield loaded.source.finding(
                where, f"keyword `{word}` is claimed by services `{first}` and `{name}`; "
                f"`{first}` (listed first) always gets it", code="FL081", severity="warning",
                hint="remove it from one of them")


def _unreachable(loaded: LoadedApp) -> Iterator[Finding]:
    spec = loaded.spec
    for name in spec.services:
        if name != spec.default and not service_keywords(loaded, name):
            yield loaded.source.finding(
                ("services", name), f"service `{name}` is not the default and claims no "
                "keyword: no message can reach it", code="FL082", severity="warning", key=True,
                hint="give it `keywords:`")


def _unset(loaded: LoadedApp, env: Mapping[str, str]) -> Iterator[Finding]:
    for name, service in loaded.spec.services.items():
        kind = "remote" if service.remote else "a2a"
        template = service.remote or service.a2a
        variable = url_variable(template) if template else None
        if variable and not env.get(variable[0]) and variable[1] is None:
            yield loaded.source.finding(
                ("services", name, kind), f"`{variable[0]}` is not set, so service "
                f"`{name}` has no URL", code="FL083", severity="warning",
                hint=f"set it where the app runs, or give a default: "
                f"${{{variable[0]}:-http://...}}")


def _undescribed(loaded: LoadedApp) -> Iterator[Finding]:
    """With a router model, a service must say what it is for: a description or intents."""
    if loaded.spec.router is None:
        return
    for name, service in loaded.spec.services.items():
        compiled = loaded.flows.get(name)
        intents = compiled is not None and any(i in compiled.routes
                                               for i in compiled.intent_names)
        if not service.description and not intents:
            yield loaded.source.finding(
                ("services", name), f"service `{name}` has no `description` and no routed "
                "intents, so the router model cannot tell what it is for", code="FL095",
                severity="warning", key=True, hint="give it a `description:`")


def _never_emitted(loaded: LoadedApp) -> Iterator[Finding]:
    """A hook type no local service emits (a remote one might: then nothing is said)."""
    spec = loaded.spec
    if any(s.flow is None for s in spec.services.values()) or \
            len(loaded.flows) < sum(s.flow is not None for s in spec.services.values()):
        return
    sent = set().union(*(emitted(c.spec) for c in loaded.flows.values()))
    for i, hook in enumerate(spec.hooks):
        for j, name in enumerate(hook.types):
            if name not in sent:
                yield loaded.source.finding(
                    ("hooks", i, "types", j), f"no service of the app emits hook type "
                    f"`{name}`, so this handler never receives it", code="FL096",
                    severity="warning",
                    hint=f"its services emit: {', '.join(sorted(sent)) or 'nothing'}")
