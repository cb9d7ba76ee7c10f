"""A service guard's refusal asks for something else: next_action ASK even right after a task
that ended (whose stage says DONE), the ended task's flow and stage kept; and the shop's
sales words written apart ("매 출") are refused to anyone but a seller, never offered as "did
you mean the sales report?"."""

from __future__ import annotations

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

SHOP = compile_file(ROOT / "flows" / "shop.yaml")
CONSUMER = {"logged_in": True, "user_id": "c-7", "user_type": "consumer"}
SELLER = {"logged_in": True, "user_id": "s-7", "user_type": "seller"}
SECRET = "카드번호나 비밀번호는 채팅으로 받을 수 없어요. 결제는 결제 화면에서 해 주세요."
SELLERS_ONLY = "매출 조회는 판매자 계정으로 로그인해야 쓸 수 있어요."


@pytest.mark.parametrize(("first", "context"), [("키보드 추천해 줘", CONSUMER),
                                                ("이번 달 매출 보여줘", SELLER)])
async def test_a_refusal_after_an_ended_task_asks(first: str, context: dict[str, object]
                                                  ) -> None:
    engine = Engine(SHOP, store=MemoryStore(), settings=load_settings({}))
    ended = await engine.reply("s", first, context=context)
    assert ended.next_action == "DONE"
    refused = await engine.reply("s", "결제는 5555-4444-3333-2222 이걸로요", context=context)
    assert (refused.message, refused.next_action) == (SECRET, "ASK")
    assert refused.state_snapshot["stage"] == ended.state_snapshot["stage"]
    assert refused.trace["failure_tags"] == ["POLICY_BLOCKED"]


@pytest.mark.parametrize("message", ["지난주 매 출 알려 줄래요", "매  출 현황 좀"])
async def test_sales_written_apart_are_refused_to_a_consumer(message: str) -> None:
    engine = Engine(SHOP, store=MemoryStore(), settings=load_settings({}))
    done = await engine.reply("s", message, context=CONSUMER)
    assert (done.message, done.next_action) == (SELLERS_ONLY, "ASK")


async def test_sales_written_apart_are_no_refusal_for_a_seller() -> None:
    engine = Engine(SHOP, store=MemoryStore(), settings=load_settings({}))
    done = await engine.reply("s", "지난주 매 출 알려 줄래요", context=SELLER)
    assert SELLERS_ONLY not in done.message
