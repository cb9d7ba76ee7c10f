"""Korean particles chosen by the word's last sound: the ``josa`` template filter."""

from __future__ import annotations

import pytest

from engine.compiler.josa import josa
from engine.compiler.templates import compile_template


@pytest.mark.parametrize(("word", "particle", "said"), [
    ("주문 취소", "을", "주문 취소를"), ("환불", "를", "환불을"), ("결제", "을", "결제를"),
    ("이어폰", "를", "이어폰을"), ("마우스", "은", "마우스는"), ("노트북", "는", "노트북은"),
    ("사과", "이", "사과가"), ("책", "가", "책이"), ("엄마", "과", "엄마와"),
    ("동생", "와", "동생과"),
    ("서울", "으로", "서울로"), ("부산", "로", "부산으로"), ("학교", "으로", "학교로"),
    ("민지", "아", "민지야"), ("준영", "야", "준영아"), ("의사", "이에요", "의사예요"),
    ("ORD-9999", "을", "ORD-9999를"), ("ORD-1001", "이", "ORD-1001이"),  # 구, 일
    ("갤럭시 버즈3", "을", "갤럭시 버즈3을"), ("Galaxy S24", "를", "Galaxy S24를"),  # 삼, 사
    ("ORD-1003(로지텍 MX Master 3S)", "이", "ORD-1003(로지텍 MX Master 3S)이"),
    ("item", "을", "item을"), ("cafe", "을", "cafe를"),
])
def test_the_particle_follows_the_last_sound(word: str, particle: str, said: str) -> None:
    assert josa(word, particle) == said


def test_an_unknown_ending_keeps_both_forms() -> None:
    assert josa("★", "을") == "★을(를)"


def test_a_particle_without_two_forms_is_refused() -> None:
    with pytest.raises(ValueError, match="not a Korean particle"):
        josa("책", "의")


def test_templates_have_the_filter() -> None:
    template = compile_template("{{ kind | josa('을') }} 접수할까요?")
    assert template.render({"kind": "주문 취소"}) == "주문 취소를 접수할까요?"
    assert template.render({"kind": "환불"}) == "환불을 접수할까요?"
