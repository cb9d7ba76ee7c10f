"""A user who corrects themself mid-message means what comes after the correction: the value
taken back is never the value ("2만원, 아니 3만원" is 3만원), and a correction is no second
task of a batch. Phone and account numbers are never amounts."""

from __future__ import annotations

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.engine import Engine
from engine.store import MemoryStore


async def reply(transfer: CompiledService, *messages: str) -> dict[str, object]:
    engine = Engine(transfer, store=MemoryStore())
    for message in messages:
        done = await engine.reply("s", message)
        assert "error" not in done.trace
    return {**done.state_snapshot["slots"], "queued": len(done.state_snapshot["task_queue"])}


@pytest.mark.parametrize(("said", "expected"), [
    (["동생한테 보내줘", "4만원 아 아니다 4천원"], {"target": "동생", "amount": 4000}),
    (["동생한테 보내줘", "7만원이요, 정정 7천원이요"], {"target": "동생", "amount": 7000}),
    (["동생한테 보내줘", "만원인가 아 잠깐만 만 오천원"], {"target": "동생", "amount": 15000}),
    (["송금할래요", "삼촌한테 아니 이모한테"], {"target": "이모"}),
    (["고모한테 6만원, 아니 6천원 보내줘"], {"target": "고모", "amount": 6000}),
    (["send 20000 won to mom, no wait, 30000 won"], {"amount": 30000}),
])
async def test_the_value_after_a_self_correction_counts(
        transfer: CompiledService, said: list[str], expected: dict[str, object]) -> None:
    slots = await reply(transfer, *said)
    assert {k: slots[k] for k in expected} == expected
    assert slots["queued"] == 0, "a correction is no second task"


async def test_two_requests_in_one_message_are_still_two_tasks(
        transfer: CompiledService) -> None:
    slots = await reply(transfer, "이모한테 만원, 삼촌한테 3만원 보내줘")
    assert (slots["target"], slots["amount"], slots["queued"]) == ("이모", 10000, 1)


@pytest.mark.parametrize("number", ["01098765432", "010-2222-3333", "110-456-789012",
                                    "02-345-6789"])
async def test_a_phone_or_account_number_is_no_amount(transfer: CompiledService,
                                                      number: str) -> None:
    slots = await reply(transfer, "동생한테 보내줘", number)
    assert slots["amount"] is None
