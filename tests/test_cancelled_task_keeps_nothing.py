"""A kept slot (``keep: true``) outlives the task that collected it — unless the user
cancelled that task: an id given to a verification the user then cancelled verifies
nothing (the card desk answered the balance of that id, with no PIN ever given). Kept
values from an earlier task that ended well stay when a later task is cancelled."""

from __future__ import annotations

import pytest

from tests.test_plain_amounts import conversation


@pytest.mark.parametrize("cancel", ["cancel", "never mind", "forget it"])
async def test_an_id_given_to_a_cancelled_verification_verifies_nothing(cancel: str) -> None:
    *_, (_, state, said) = await conversation("verify me", "u77", cancel, "balance please",
                                              flow="cards.yaml")
    assert "Please verify first" in said and "u77" not in said


async def test_an_earlier_verification_stays_when_a_later_replacement_is_cancelled() -> None:
    *_, (_, _, said) = await conversation("verify me", "u77", "4321", "replace my card",
                                          "cancel", "balance please", flow="cards.yaml")
    assert said == "The balance of u77 is 1,250.00."


async def test_a_verification_ended_well_keeps_its_id() -> None:
    *_, (_, state, said) = await conversation("verify me", "u77", "4321", "balance please",
                                              flow="cards.yaml")
    assert said == "The balance of u77 is 1,250.00."


async def test_a_verification_begun_again_and_cancelled_leaves_the_user_unverified() -> None:
    *_, (_, _, said) = await conversation("verify me", "u77", "4321", "verify me", "cancel",
                                          "balance please", flow="cards.yaml")
    assert "Please verify first" in said
