"""Hook handlers declared in a flow file: a plain `flowctl serve FLOW.yaml` delivers them, once
and signed, after the turn; retried with backoff; a dead or slow endpoint costs the turn
nothing; the signing key only ever comes from the environment."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from pathlib import Path
from typing import cast

import httpx
import pytest

from engine.app import engine_factory
from engine.compiler import compile_file
from engine.config import Settings
from engine.errors import FlowRuntimeError
from engine.runtime.engine import Engine
from engine.runtime.values.events import Done, Event
from engine.runtime.webhooks import Webhooks, flow_hooks, hooked_engine
from engine.store import MemoryStore
from tests.app.conftest import Server, free_port
from tests.conftest import ROOT
from tests.fakes.hook_target import HookTarget


def hooked_flow(tmp_path: Path, **options: object) -> Path:
    """flows/transfer.yaml with a hook handler (beside a link to the shipped prompts)."""
    if not (tmp_path / "prompts").exists():
        (tmp_path / "prompts").symlink_to(ROOT / "prompts")
    handler = {"url": "${HOOK_URL}", "types": ["transfer_completed"],
               "secret_env": "HOOK_SECRET", **options}
    text = (ROOT / "flows" / "transfer.yaml").read_text(encoding="utf-8")
    path = tmp_path / "hooked.yaml"
    path.write_text(f"{text}\nhooks:\n  - {json.dumps(handler)}\n", "utf-8")
    return path


def engine_for(path: Path, url: str) -> Engine:
    env = {"HOOK_URL": url, "HOOK_SECRET": "s3cret"}
    engine = engine_factory(path, env)(MemoryStore(), Settings(env=env))
    assert flow_hooks(engine) is not None
    return engine


def webhooks(engine: Engine) -> Webhooks:
    """The webhooks the engine tells of each DONE (the flow's ``hooks:``)."""
    hooks = flow_hooks(engine)
    assert hooks is not None
    return hooks.webhooks


async def transfer(engine: Engine) -> Done:
    for message in ("엄마한테 1만원 보내줘", "확인"):
        done = [e async for e in engine.turn("s", message)][-1]
    assert isinstance(done, Done) and done.state_snapshot["stage"] == "EXECUTED"
    return done


def test_flowctl_serve_of_a_flow_delivers_its_hooks_signed(
        tmp_path: Path, serve: Callable[..., Server]) -> None:
    with HookTarget() as target:
        server = serve(hooked_flow(tmp_path), {"HOOK_URL": target.url, "HOOK_SECRET": "k3y"})
        with httpx.Client(timeout=30) as client:
            for message in ("엄마한테 1만원 보내줘", "확인"):
                reply = client.post(f"{server.agent}/chat",
                                    json={"session_id": "s", "message": message})
                assert reply.status_code == 200
        for _ in range(250):
            if target.received:
                break
            time.sleep(0.02)
        server.proc.terminate()  # graceful: deliveries still running are drained
        server.proc.wait(timeout=15)
    assert len(target.received) == 1
    headers, body = target.received[0]
    assert headers["X-Flowctl-Signature"] == \
        "sha256=" + hmac.new(b"k3y", body, hashlib.sha256).hexdigest()
    sent = json.loads(body)
    assert (sent["type"], sent["service"], sent["session_id"]) == ("transfer_completed",
                                                                   "transfer", "s")
    assert sent["data"]["amount"] == 10000


async def test_failed_deliveries_are_retried_and_logged(tmp_path: Path) -> None:
    with HookTarget(statuses=[500, 429]) as target:
        engine = engine_for(hooked_flow(tmp_path, backoff_sec=0.05), target.url)
        await transfer(engine)
        await webhooks(engine).drain(10)
        log = list(webhooks(engine).log)
        await engine.aclose()
    assert [a.status for a in log] == [500, 429, 200]
    assert len({a.delivery for a in log}) == 1 and len(target.received) == 3


async def test_a_dead_endpoint_costs_the_turn_nothing(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/hooks"  # nothing listens there
    engine = engine_for(hooked_flow(tmp_path, retries=2, backoff_sec=0.05), dead)
    done = await transfer(engine)
    assert webhooks(engine).running  # the DONE came while the delivery was still under way
    assert "error" not in done.trace
    await webhooks(engine).drain(10)
    log = list(webhooks(engine).log)
    await engine.aclose()
    assert [(a.attempt, a.status) for a in log] == [(1, None), (2, None), (3, None)]
    assert all(a.error and "Connect" in a.error for a in log)


async def test_a_slow_endpoint_is_not_waited_for(tmp_path: Path) -> None:
    with HookTarget(hold=2) as target:
        engine = engine_for(hooked_flow(tmp_path, timeout_sec=5, retries=0), target.url)
        await transfer(engine)
        assert webhooks(engine).running
        for _ in range(100):  # the endpoint has the delivery and holds it; the turn is over
            if target.received:
                break
            await asyncio.sleep(0.02)
        assert target.received and webhooks(engine).running
        await engine.aclose()
    assert [a.status for a in webhooks(engine).log] == [200]


def test_the_signing_key_must_be_set_by_the_operator(tmp_path: Path) -> None:
    service = compile_file(hooked_flow(tmp_path))
    with pytest.raises(FlowRuntimeError, match="signs with HOOK_SECRET, which is not set"):
        hooked_engine(service, store=MemoryStore(), settings=Settings(env={"HOOK_URL": "x"}))
    with pytest.raises(FlowRuntimeError, match=r"needs \$\{HOOK_URL\}, which is not set"):
        hooked_engine(service, store=MemoryStore(), settings=Settings(env={"HOOK_SECRET": "k"}))


@pytest.mark.parametrize("secret", ["s3cret-literal", "${HOOK_SECRET}"])
def test_a_flow_file_cannot_hold_the_key_itself(tmp_path: Path, secret: str) -> None:
    from engine.errors import FlowDefinitionError

    path = hooked_flow(tmp_path, secret=secret)
    with pytest.raises(FlowDefinitionError, match="secret"):
        compile_file(path)


class CountingStore(MemoryStore):
    """A memory store that counts the session locks held right now."""

    held = 0

    def __init__(self) -> None:
        super().__init__()
        locks = self.lock

        @contextlib.asynccontextmanager
        async def counted(session_id: str) -> AsyncIterator[None]:
            async with locks(session_id):
                CountingStore.held += 1
                try:
                    yield
                finally:
                    CountingStore.held -= 1

        self.lock = counted  # type: ignore[assignment]


async def test_a_consumer_that_stops_at_done_releases_the_lock_at_once(tmp_path: Path) -> None:
    with HookTarget() as target:
        env = {"HOOK_URL": target.url, "HOOK_SECRET": "s3cret"}
        engine = hooked_engine(compile_file(hooked_flow(tmp_path)), store=CountingStore(),
                               settings=Settings(env=env))
        turn = engine.turn("s", "엄마한테 1만원 보내줘")
        async with contextlib.aclosing(cast(AsyncGenerator[Event, None], turn)) as events:
            async for event in events:
                if isinstance(event, Done):
                    assert CountingStore.held == 1
                    break
        assert CountingStore.held == 0  # not left to the garbage collector's finaliser
        await engine.aclose()
