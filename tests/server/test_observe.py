"""What the server tells its operator: ``GET /metrics`` (Prometheus) and OpenTelemetry spans.

Real servers on loopback; the traces go to the OpenTelemetry SDK's own in-memory exporter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from engine.compiler.compiled import CompiledService
from engine.config import Settings, load_settings
from engine.observe.hub import Observers
from engine.observe.metrics import TurnMetrics
from engine.observe.tracing import TurnTracer, tracer_from_env
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done
from engine.store import SqliteStore
from engine.transports.http import create_app
from tests.server.conftest import BATCH, MakeServer, ServerThread, chat, sse


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by name and sorted labels."""
    found = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            found[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return found


async def test_metrics_count_turns_by_outcome_and_leak_no_content(make_server: MakeServer) -> None:
    server = make_server()
    async with server.client() as client:
        await chat(client, "m1", "엄마한테 5만원 보내줘")
        await sse(client, "POST", "/v1/agent/chat/stream",
                  json={"session_id": "m1", "message": "확인"})
        await chat(client, "m2", BATCH)
        response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    got = samples(response.text)
    turn = "flowctl_turns_total"
    assert got[(turn, (("flow", "transfer"), ("next_action", "CONFIRM"),
                       ("service", "transfer"), ("stage", "READY")))] == 2
    assert got[(turn, (("flow", "transfer"), ("next_action", "DONE"),
                       ("service", "transfer"), ("stage", "EXECUTED")))] == 1
    assert got[("flowctl_turn_seconds_count", (("service", "transfer"),))] == 3
    assert got[("flowctl_turns_running", (("service", "transfer"),))] == 0
    # Content could only leak through names, label values or comments; sample values are
    # timings and counts, whose digits may spell anything (0.0056050000...).
    words = [line for line in response.text.splitlines() if line.startswith("#")]
    words += [f"{name} {' '.join(labels for _, labels in key)}"
              for (name, key) in got]
    for secret in ("엄마", "50000", "m1", "m2", "용걸"):
        assert not [word for word in words if secret in word]


async def test_failure_tags_and_errors_are_counted(make_server: MakeServer) -> None:
    server = make_server()
    async with server.client() as client:
        await chat(client, "e1", "")  # the empty message: answered, not an error
        response = await client.get("/metrics")
    got = samples(response.text)
    assert got[("flowctl_turn_seconds_count", (("service", "transfer"),))] == 1
    assert not [key for key in got if key[0] == "flowctl_turn_errors_total"]


async def test_metrics_can_be_switched_off(make_server: MakeServer) -> None:
    server = make_server(settings=load_settings({"FLOWCTL_METRICS": "0", "FLOWCTL_DEV_MODE": "1"}))
    async with server.client() as client:
        assert (await client.get("/metrics")).status_code == 404
        assert (await chat(client, "x", "엄마한테 5만원 보내줘"))["next_action"] == "CONFIRM"


async def test_metrics_need_a_key_when_the_server_has_keys(make_server: MakeServer) -> None:
    key = "k" * 32
    server = make_server(settings=Settings(api_keys=(key,)))
    async with server.client() as client:
        assert (await client.get("/metrics")).status_code == 401
        answered = await client.get("/metrics", headers={"Authorization": f"Bearer {key}"})
        assert answered.status_code == 200


def test_traces_are_off_unless_the_environment_asks() -> None:
    assert tracer_from_env({}, "transfer") is None
    assert tracer_from_env({"OTEL_TRACES_EXPORTER": "none"}, "transfer") is None
    asked = tracer_from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, "transfer")
    assert isinstance(asked, TurnTracer)
    asked.close()


async def test_each_turn_is_a_span_with_its_steps(transfer: CompiledService,
                                                  tmp_path: Path) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exported = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exported))
    settings = Settings()
    engine = Engine(transfer, store=SqliteStore(tmp_path / "s.db"), settings=settings)
    observers = Observers(tracer=TurnTracer(provider, "transfer"))
    thread = ServerThread(create_app(engine, settings=settings, observers=observers)).start()
    try:
        async with httpx.AsyncClient(base_url=thread.url, timeout=20) as client:
            await chat(client, "t1", "엄마한테 5만원 보내줘")
            assert (await client.get("/metrics")).status_code == 404  # not asked for
    finally:
        thread.stop()
    spans = exported.get_finished_spans()
    turn = next(s for s in spans if s.name == "turn transfer")
    attributes = dict(turn.attributes or {})
    assert attributes["flowctl.next_action"] == "CONFIRM"
    assert attributes["flowctl.stage"] == "READY"
    children = [s for s in spans if s.parent is not None
                and s.parent.span_id == turn.context.span_id]
    assert [s.name for s in children][:2] == ["intent", "understand"]
    assert all(turn.start_time <= c.start_time <= c.end_time <= turn.end_time
               for c in children)
    assert "엄마" not in repr([dict(s.attributes or {}) for s in spans])


def test_an_observer_that_fails_never_reaches_the_turn(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(TurnMetrics):
        def observe(self, done: Done) -> None:
            raise ValueError("boom")

    Observers(Broken("transfer")).finished(done_with({"turn_id": "t1"}), 0)
    assert "observing turn t1 failed: ValueError: boom" in caplog.text


def done_with(trace: dict[str, Any]) -> Done:
    return Done(message="x", next_action="ASK", ui_hint={"buttons": []},  # type: ignore[typeddict-item]
                state_snapshot={"stage": "COLLECT"},  # type: ignore[typeddict-item]
                trace={"total_elapsed_ms": 2.0, "agents": [], **trace})  # type: ignore[typeddict-item]


def test_errors_tags_and_model_calls_are_counted() -> None:
    metrics = TurnMetrics("shop")
    metrics.observe(done_with({"turn_id": "t", "error": "turn_failed",
                               "failure_tags": ["POLICY_BLOCKED"], "agents": [
        {"agent": "understand", "elapsed_ms": 1.0, "success": True, "retries": 1,
         "error": None, "provider": "openai", "model": "gpt-4o-mini",
         "tokens_in": 120, "tokens_out": 7},
        {"agent": "refund", "elapsed_ms": 1.0, "success": False, "retries": 0,
         "error": "timeout"}]}))
    got = samples(metrics.exposition().decode())
    assert got[("flowctl_turn_errors_total", (("code", "turn_failed"), ("service", "shop")))] == 1
    assert got[("flowctl_failure_tags_total", (("service", "shop"),
                                               ("tag", "POLICY_BLOCKED")))] == 1
    assert got[("flowctl_llm_calls_total", (("model", "gpt-4o-mini"), ("outcome", "ok"),
                                            ("service", "shop")))] == 1
    assert got[("flowctl_llm_tokens_total", (("direction", "in"), ("model", "gpt-4o-mini"),
                                             ("service", "shop")))] == 120
    assert got[("flowctl_step_failures_total", (("agent", "refund"), ("service", "shop")))] == 1
