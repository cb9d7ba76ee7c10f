"""``GET /v1/agent/service`` (what the playground shows of the service) and the offline API
docs, over HTTP against a real server."""

from __future__ import annotations

import doctest

import httpx
import pytest

from engine.config import Settings
from engine.transports.http import playground_api
from engine.transports.http.playground_api import ASSETS
from tests.server.conftest import MakeServer, Running
from tests.server.test_auth import KEY_A, bearer

SERVICE = "/v1/agent/service"


async def test_the_service_says_what_it_does_and_what_to_try(client: httpx.AsyncClient) -> None:
    view = (await client.get(SERVICE)).json()
    assert (view["service"], view["locale"], view["default_flow"]) == ("transfer", "ko", "chat")
    assert view["description"].startswith("이체 서비스")
    # round-robin over the intents: each one's first example first
    assert view["examples"][:3] == ["엄마한테 1만원 보내줘", "통장 잔액 알려줘", "총 얼마 보냈어?"]
    assert [i["name"] for i in view["intents"]] == ["transfer", "balance", "history"]
    assert view["irreversible"] == ["send_money"]  # a rewound replay stops before these


async def test_the_service_says_whether_it_has_background_runs(
        client: httpx.AsyncClient) -> None:
    """transfer.yaml has no background stage: the page then never asks for runs."""
    assert (await client.get(SERVICE)).json()["runs"] is False
    from engine.compiler import compile_file
    from tests.server.conftest import ROOT

    devloop = compile_file(ROOT / "flows" / "devloop.yaml")
    assert playground_api.service_view(devloop).runs is True


async def test_each_flow_comes_as_a_laid_out_graph(client: httpx.AsyncClient) -> None:
    flows = {f["name"]: f for f in (await client.get(SERVICE)).json()["flows"]}
    assert list(flows) == ["chat", "balance", "history", "transfer"]
    transfer = flows["transfer"]
    place = {s["name"]: (s["column"], s["row"]) for s in transfer["stages"]}
    assert place == {"INIT": (0, 0), "FILLING": (1, 0), "CHECKING": (1, 1), "READY": (2, 0),
                     "CONFIRMED": (3, 0), "EXECUTED": (4, 0), "FAILED": (4, 1),
                     "CANCELLED": (4, 2), "NOT_ENOUGH": (4, 3), "UNSUPPORTED": (4, 4)}
    assert (transfer["columns"], transfer["rows"]) == (5, 5)
    marks = {s["name"]: (s["terminal"], s["confirm"]) for s in transfer["stages"]}
    assert marks["READY"] == (False, True) and marks["EXECUTED"] == (True, False)
    edges = {(e["source"], e["dest"]): e["labels"] for e in transfer["edges"]}
    assert edges[("READY", "CONFIRMED")] == ["confirm"]
    assert edges[("INIT", "CHECKING")] == ["update [not missing]"]
    assert ("EXECUTED", "CANCELLED") not in edges  # `source: '*'` leaves no terminal stage
    assert flows["chat"]["edges"] == [] and flows["chat"]["initial"] == "CHAT"


async def test_with_keys_the_service_needs_one(make_server: MakeServer) -> None:
    server: Running = make_server(settings=Settings(api_keys=(KEY_A,)))
    async with server.client() as client:
        assert (await client.get(SERVICE)).status_code == 401
        assert (await client.get(SERVICE, headers=bearer(KEY_A))).status_code == 200


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
async def test_the_docs_pages_load_nothing_from_a_cdn(client: httpx.AsyncClient,
                                                      path: str) -> None:
    page = await client.get(path)
    assert page.status_code == 200
    assert "cdn." not in page.text and "/docs/assets/" in page.text
    assert "img-src 'self' data:" in page.headers["content-security-policy"]
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js"):
        served = await client.get(f"/docs/assets/{asset}")
        assert served.status_code == 200
        assert served.content == (ASSETS / asset).read_bytes()


def test_docstring_examples() -> None:
    result = doctest.testmod(playground_api)
    assert (result.failed, result.attempted > 0) == (0, True)
