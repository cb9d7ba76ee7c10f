"""flows/commerce.yaml's seller functions and its data, through the engine: every seller
function is refused to anyone but a seller (the same door as the sales report, before any
lookup), a seller gets it from the shop's figures, a recommendation asks the question of the
category asked for (commerce/categories/), and every product of the catalogue has the
sellers' offers a price comparison reads (commerce/offers/)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.calls.actions import ActionStub
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

FLOW = ROOT / "flows" / "commerce.yaml"
DATA = FLOW.parent / "commerce"
SERVICE = compile_file(FLOW)

SELLER = {"is_logged_in": True, "user_id": "s-17", "user_type": "seller"}
CONSUMER = {"is_logged_in": True, "user_id": "c-3", "user_type": "consumer"}
GUEST = {"is_logged_in": False}
NO_ID = {"is_logged_in": True, "user_type": "seller"}  # a seller's type without an account id
PRODUCTS = {"products": [
    {"product_id": "P-105", "name": "삼성 갤럭시 버즈3", "price": 159000, "unit_cost": 98000,
     "fee_rate": 0.1, "views": 4200, "orders": 126, "units": 130, "stock": 45,
     "elasticity": -1.5},
    {"product_id": "P-108", "name": "로지텍 MX Master 3S", "price": 139000, "unit_cost": 95000,
     "fee_rate": 0.1, "views": 2600, "orders": 31, "units": 32, "stock": 80,
     "elasticity": -1.2}]}
STUBS = {"seller_sales": ActionStub(result={"orders": 12, "revenue": 3480000}),
         "seller_products": ActionStub(result=PRODUCTS)}

# (intent, what a seller types, the flow it starts, the stage its first turn ends in,
#  the refusal anyone else gets)
SELLER_FUNCTIONS = [
    ("seller_analytics", "이번 달 매출 알려줘", "seller", "SHOWN",
     "판매 리포트는 판매자 계정으로 로그인해야 볼 수 있어요."),
    ("simulate_pricing", "P-105 가격 시뮬레이션 14만 5천원", "pricing", "SIMULATED",
     "가격 시뮬레이션은 판매자 계정으로 로그인해야 쓸 수 있어요."),
    ("analyze_efficiency", "상품별 전환율 좀 보여줘", "efficiency", "SHOWN",
     "상품 효율 분석은 판매자 계정으로 로그인해야 볼 수 있어요."),
    ("create_listing", "신규 상품 등록하려고요", "listing", "FILLING",
     "상품 등록은 판매자 계정으로 로그인해야 할 수 있어요."),
]
IDS = [case[0] for case in SELLER_FUNCTIONS]


@pytest.fixture
async def engine() -> AsyncIterator[Engine]:
    running = Engine(SERVICE, store=MemoryStore(), settings=load_settings({}), stubs=STUBS)
    yield running
    await running.aclose()


def agents(done: Any) -> list[str]:
    return [a["agent"] for a in done.trace.get("agents", [])]


def test_every_seller_function_is_behind_the_sales_report_s_door() -> None:
    """One condition, the sales report's, guards every seller flow: a rule of who may ask
    is not restated differently per function."""
    door = SERVICE.flows["seller"].guard
    assert door is not None
    for intent, *_ in SELLER_FUNCTIONS:
        flow = SERVICE.flows[SERVICE.routes[intent]]
        assert flow.guard is not None and flow.guard.source == door.source, intent
        assert flow.refused is not None


@pytest.mark.parametrize(("intent", "message", "flow", "stage", "refusal"), SELLER_FUNCTIONS,
                         ids=IDS)
@pytest.mark.parametrize("context", [CONSUMER, GUEST, NO_ID], ids=["consumer", "guest", "no-id"])
async def test_a_seller_function_is_refused_to_anyone_else_before_any_lookup(
        engine: Engine, context: Mapping[str, Any], intent: str, message: str, flow: str,
        stage: str, refusal: str) -> None:
    done = await engine.reply("other", message, context=context)
    assert done.message == refusal
    assert done.state_snapshot["flow"] is None
    assert "seller_sales" not in agents(done) and "seller_products" not in agents(done)
    assert done.hooks == []


@pytest.mark.parametrize(("intent", "message", "flow", "stage", "refusal"), SELLER_FUNCTIONS,
                         ids=IDS)
async def test_a_seller_gets_the_function(engine: Engine, intent: str, message: str, flow: str,
                                          stage: str, refusal: str) -> None:
    done = await engine.reply("seller", message, context=SELLER)
    assert (done.state_snapshot["flow"], done.state_snapshot["stage"]) == (flow, stage)
    assert "판매자 계정으로" not in done.message
    assert "failure_tags" not in done.trace


async def test_a_simulation_reads_the_shop_s_figures_and_changes_no_price(engine: Engine) -> None:
    done = await engine.reply("sim", "P-108 가격 시뮬레이션 12만원", context=SELLER)
    assert "13만 9,000원에서 12만원으로 바꿨을 때" in done.message
    assert "1. 한 달 판매량: 32개 → 약 37개" in done.message  # -1.2 x -13.7 % = +16.4 %
    assert "판매가는 바뀌지 않았어요" in done.message
    assert done.hooks == [] and agents(done).count("seller_products") == 1


def guide(category: str) -> dict[str, str]:
    """The fields of a category's guide (`- 추천 질문: ...`) and its title."""
    text = (DATA / "categories" / f"{category}.md").read_text(encoding="utf-8")
    fields = dict(re.findall(r"^- ([^:]+): (.+)$", text, re.MULTILINE))
    return {"title": text.splitlines()[0].removeprefix("# "), **fields}


CATEGORIES = sorted(SERVICE.spec.slots["category"].values or {})


def test_every_category_has_a_guide_with_a_question_and_listing_fields() -> None:
    assert CATEGORIES, "the category slot has values"
    for category in CATEGORIES:
        fields = guide(category)
        assert fields["분류"] == category
        assert fields["추천 질문"].endswith("?") and fields["등록 항목"]
    questions = [guide(c)["추천 질문"] for c in CATEGORIES]
    assert len(set(questions)) == len(questions), "one category's question copied to another"


@pytest.mark.parametrize("category", CATEGORIES)
async def test_a_recommendation_asks_its_own_category_s_question(
        engine: Engine, category: str) -> None:
    title = guide(category)["title"]
    done = await engine.reply(f"reco-{category}", f"{title} 추천해 주세요", context=CONSUMER)
    assert done.state_snapshot["slots"]["category"] == category
    assert f"{title} 추천을 도와드리겠습니다." in done.message
    assert f"\n3. {guide(category)['추천 질문']}\n" in done.message
    for other in CATEGORIES:
        if other != category:
            assert guide(other)["추천 질문"] not in done.message


OFFER = re.compile(r"^- 판매처: (?P<seller>[^|]+?) \| 옵션: (?P<option>[^|]+?) \| "
                   r"가격: (?P<price>[\d,]+)원 \| 배송비: (?P<fee>[\d,]+)원$")


@pytest.mark.parametrize("product", sorted(p.stem for p in (DATA / "catalog").glob("P-*.md")))
def test_every_catalogue_product_has_offers_in_the_form_the_comparison_reads(
        product: str) -> None:
    catalogue = (DATA / "catalog" / f"{product}.md").read_text(encoding="utf-8").splitlines()
    offers = (DATA / "offers" / f"{product}.md").read_text(encoding="utf-8").splitlines()
    assert offers[0] == catalogue[0], "the offers file is titled as the catalogue titles it"
    lines = [line for line in offers if line.startswith("- 판매처: ")]
    assert len(lines) >= 2, "a comparison needs two sellers or more"
    for line in lines:
        assert OFFER.match(line), line


async def test_the_shop_answers_in_the_orchestrator_s_contract(engine: Engine) -> None:
    """commerce.yaml sets `response: orchestrator`: the reply again, the agents and actions
    that ran, the requests the gateway let through, and the reading's confidence."""
    payload = (await engine.reply("c", "P-105 가격 시뮬레이션 14만 5천원",
                                  context=SELLER)).payload()
    assert payload["final_response"] == payload["message"]
    assert [a["agent_name"] for a in payload["selected_agents"]] == ["seller_products"]
    assert [r["action"] for r in payload["action_requests"]] == ["seller_products"]
    assert 0.0 < payload["confidence_score"] <= 1.0
    assert payload["requires_confirmation"] is False


async def test_a_turn_that_goes_on_with_a_flow_is_as_sure_as_the_rules(engine: Engine) -> None:
    """No intent is read mid-flow: the rules settled the answer, so the confidence is 1.0."""
    first = (await engine.reply("l", "신규 상품 등록하려고요", context=SELLER)).payload()
    assert first["confidence_score"] < 1.0  # the intent reading's own
    answer = (await engine.reply("l", "앤커 보조배터리 나노", context=SELLER)).payload()
    assert "intent" not in [a["agent"] for a in answer["_trace"]["agents"]]
    assert answer["confidence_score"] == 1.0
