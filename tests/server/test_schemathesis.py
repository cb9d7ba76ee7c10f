"""Schemathesis over the server's own OpenAPI spec: generated requests (valid and invalid)
to every operation of a real loopback server, with a key; not one answer is a 5xx, every
status and body is one the spec documents, and every protected operation refuses a request
without the key (``ignored_auth``).

Bounded: a fixed number of examples per operation, derandomized, with a deadline, so the
run is short and the same every time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    ignored_auth,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from engine.compiler import compile_file
from engine.config import Settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from engine.transports.http import create_app
from tests.server.conftest import TRANSFER, ServerThread
from tests.server.test_auth import KEY_A, bearer

SETTINGS = Settings(dev_mode=True, api_keys=(KEY_A,), rate_limit=None)


def app() -> Any:
    engine = Engine(compile_file(TRANSFER), store=MemoryStore(), settings=SETTINGS)
    return create_app(engine, settings=SETTINGS)


schema = schemathesis.openapi.from_dict(app().openapi())
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, ignored_auth]


@pytest.fixture(scope="module")
def live() -> Iterator[str]:
    server = ServerThread(app()).start()
    yield server.url
    server.stop()


@schema.parametrize()
@settings(max_examples=30, deadline=2000, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_generated_request_gets_a_server_error(case: Any, live: str) -> None:
    response = case.call(base_url=live, headers=bearer(KEY_A), timeout=10)
    assert response.status_code < 500, (case.method, case.path, response.text)
    case.validate_response(response, checks=CHECKS)
    assert "Traceback" not in response.text
