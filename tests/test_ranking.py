"""Intent ranking (`patterns.ranking`) and the understanding call's alternatives
(`patterns.clarify.alternatives`), as tables over routing's functions."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.compiler import compile_service
from engine.compiler.compiled import CompiledService
from engine.dsl import load_service_text
from engine.runtime.understanding import routing
from engine.runtime.understanding.llm import parse_understanding
from engine.runtime.understanding.understand import Intent

FLOW = """\
service: ranks
default_flow: chat
patterns:
  ranking: RANKING
  clarify: {alternatives: 0.75}
intents:
  safety: {keywords: [가품], priority: 3, threshold: 0.6}
  buy: {keywords: [결제, 구매], priority: 2}
  cart: {keywords: [장바구니], priority: 2}
  review: {keywords: [리뷰], priority: 1}
  status: {keywords: [배송], priority: 1}
routes: {safety: safety, buy: order, cart: order, review: review, status: status}
flows:
  chat: {initial: A, stages: {A: {say: hi}}}
  safety: {initial: A, stages: {A: {say: hi}}}
  order: {initial: A, stages: {A: {say: hi}}}
  review: {initial: A, stages: {A: {say: hi}}}
  status: {initial: A, stages: {A: {say: hi}}}
messages: {hi: hi}
"""


def service(ranking: str) -> CompiledService:
    spec, source = load_service_text(FLOW.replace("RANKING", ranking), "ranks.yaml")
    return compile_service(spec, source)


BY_SCORE, BY_PRIORITY = service("confidence"), service("priority")


@pytest.mark.parametrize(("message", "by_score", "by_priority"), [
    ("결제 구매했는데 가품이에요", ["buy", "safety"], ["safety", "buy"]),
    ("가품 결제", ["safety", "buy"], ["safety", "buy"]),  # a tie: priority either way
    ("리뷰 배송 결제", ["buy", "review", "status"], ["buy", "review", "status"]),
])
def test_priority_ranking_orders_rather_than_breaks_ties(
        message: str, by_score: list[str], by_priority: list[str]) -> None:
    assert [i.name for i in routing.ranked(message, BY_SCORE)] == by_score
    assert [i.name for i in routing.ranked(message, BY_PRIORITY)] == by_priority


def test_several_requests_run_in_priority_order() -> None:
    said = "리뷰 쓰고 결제할게"
    today = dt.date(2026, 11, 29)
    assert [i.name for i, _ in routing.several(said, BY_SCORE, today)] == ["review", "buy"]
    parts = routing.several(said, BY_PRIORITY, today)
    assert [(i.name, text) for i, text in parts] == [("buy", "결제할게"), ("review", "리뷰 쓰")]


def understood(intent: str | None, confidence: float,
               *alternatives: tuple[str, float]) -> list[str | None]:
    llm = parse_understanding({"intent": intent, "confidence": confidence, "operations": [],
                               "alternatives": [{"intent": n, "confidence": c}
                                                for n, c in alternatives]}, [])
    return [i.name for i in routing.llm_ranked(BY_PRIORITY, llm)]


@pytest.mark.parametrize(("named", "alternatives", "expected"), [
    (("buy", 0.95), [("safety", 0.9)], ["safety", "buy"]),  # priority outranks the named one
    (("buy", 0.95), [("safety", 0.55)], ["buy"]),  # under safety's own threshold (0.6)
    (("buy", 0.4), [("review", 0.9)], []),  # the named intent is unsure: no stand-in
    (("nope", 0.9), [("review", 0.9)], []),  # not an intent of the service
    (("review", 0.8), [("status", 0.9), ("status", 0.7), ("gone", 0.9)], ["review", "status"]),
])
def test_the_understanding_call_s_alternatives(
        named: tuple[str, float], alternatives: list[tuple[str, float]],
        expected: list[str]) -> None:
    assert understood(named[0], named[1], *alternatives) == expected


@pytest.mark.parametrize(("candidates", "options"), [
    ([("buy", 0.88), ("cart", 0.85)], []),  # one flow: no question
    ([("buy", 0.88), ("review", 0.8)], []),  # one alternative elsewhere: no question
    ([("buy", 0.88), ("review", 0.8), ("status", 0.76)], ["buy", "review", "status"]),
    ([("buy", 0.88), ("review", 0.8), ("status", 0.74)], []),  # under 0.75
    ([("buy", 0.88), ("cart", 0.86), ("review", 0.8)], []),  # cart shares buy's flow
])
def test_two_confident_alternatives_elsewhere_ask_which_one(
        candidates: list[tuple[str, float]], options: list[str]) -> None:
    intents = [Intent(name, confidence) for name, confidence in candidates]
    assert routing.ambiguous(intents, BY_PRIORITY) == options


def test_a_near_miss_never_outranks_a_sure_match_by_priority() -> None:
    """With ranking by priority, an intent under its `act` bound (a likeness, not a word)
    follows every sure one, whatever its priority."""
    banded = FLOW.replace("RANKING", "priority").replace(
        "  clarify: {alternatives: 0.75}",
        "  clarify: {alternatives: 0.75}\n  confidence: {act: 0.85, confirm: 0.7, "
        "confirm_ask: hi, clarify_ask: hi}")
    spec, source = load_service_text(banded, "ranks.yaml")
    ranks = compile_service(spec, source)
    sure, near = Intent("review", 0.9, "keyword"), Intent("safety", 0.5, "example")
    assert routing.by_rank([sure, near], ranks) == [sure, near]
    assert routing.by_rank([near, sure], ranks) == [sure, near]
    assert routing.under_act(near, ranks) and not routing.under_act(sure, ranks)
