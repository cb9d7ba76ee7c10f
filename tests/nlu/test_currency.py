"""The currency a money amount was written in (so a KRW slot can refuse "$50")."""

from __future__ import annotations

import pytest

from engine.nlu.currency import currency_of
from engine.nlu.money import find_money


@pytest.mark.parametrize(("text", "unit"), [
    ("3만원", "KRW"), ("1만 원", "KRW"), ("₩5,000", "KRW"), ("5000 won", "KRW"),
    ("$50", "USD"), ("US$5", "USD"), ("50달러", "USD"), ("5 bucks", "USD"), ("10 dollars", "USD"),
    ("€20", "EUR"), ("20 euros", "EUR"), ("£3", "GBP"), ("10k", None),
])
def test_the_unit_of_an_amount(text: str, unit: str | None) -> None:
    found = find_money(text)
    assert len(found) == 1 and found[0].unit == unit
    assert currency_of(found[0].text) == unit
