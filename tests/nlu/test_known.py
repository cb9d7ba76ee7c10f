"""find_known: a catalogue's names in a message, and the flow slot that reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.config import load_settings
from engine.nlu.known import find_known
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.conftest import ROOT

SHELF = ["소니 WH-1000XM5 헤드폰", "소니 WF-1000XM5", "브리타 마렐라 정수기",
         "Kindle Paperwhite 16GB"]


@pytest.mark.parametrize(("message", "name"), [
    ("소니 WF-1000XM5 하나 주세요", "소니 WF-1000XM5"),
    ("마렐라 정수기를 장바구니에", "브리타 마렐라 정수기"),  # two of three words, a particle
    ("kindle paperwhite 담아줘", "Kindle Paperwhite 16GB"),  # casefolded
    ("WH-1000XM5 헤드폰 있어요?", "소니 WH-1000XM5 헤드폰"),
])
def test_a_name_or_most_of_it_is_found(message: str, name: str) -> None:
    (found,) = find_known(message, SHELF)
    assert found.value == name and message[found.start:found.end] in message


@pytest.mark.parametrize("message", [
    "소니 제품 보여줘",  # one word of two names: which one?
    "정수기 추천해줘",  # one word of three: too little of the name
    "에어팟 담아줘",  # not on the shelf
    "",
])
def test_too_little_of_a_name_or_two_names_as_well_give_nothing(message: str) -> None:
    assert find_known(message, SHELF) == []


async def test_the_product_slot_reads_the_catalogues_titles(tmp_path: Path) -> None:
    """commerce.yaml's product slot knows the catalogue: a product named as it is titled goes
    straight to the cart's confirmation, a product it does not carry is asked for."""
    engine = Engine(compile_file(ROOT / "flows" / "commerce.yaml"), store=MemoryStore(),
                    settings=load_settings({}))
    context = {"is_logged_in": True}
    done = await engine.reply("a", "앤커 737 파워뱅크 2개 장바구니에 넣어줘", context=context)
    assert done.state_snapshot["stage"] == "READY"
    assert done.state_snapshot["slots"]["product"] == "앤커 737 파워뱅크"
    done = await engine.reply("b", "다이슨 청소기 하나 장바구니에 넣어줘", context=context)
    assert done.state_snapshot["stage"] == "FILLING"
    assert done.state_snapshot["slots"]["product"] is None
    await engine.aclose()
