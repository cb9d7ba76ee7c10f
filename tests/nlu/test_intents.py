"""classify: keyword scores, example similarity, ordering."""

import pytest

from engine.nlu import IntentRule, IntentScore, classify
from engine.nlu.text import bigrams, dice

TRANSFER = IntentRule(
    "transfer", keywords=("보내", "이체", "송금"), examples=("엄마한테 만원 보내줘",)
)
HISTORY = IntentRule("history", examples=("총 얼마 보냈어", "이체 내역 보여줘"))
GREET = IntentRule("greet", keywords=("hi", "hello"), examples=("안녕하세요",))
RULES = (TRANSFER, HISTORY, GREET)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("엄마한테 1만원 보내줘", [IntentScore("transfer", 0.9, "keyword '보내'")]),
        ("송금 이체", [IntentScore("transfer", 0.95, "keywords '이체', '송금'")]),
        ("보내줘 이체 송금", [IntentScore("transfer", 0.99, "keywords '보내', '이체', '송금'")]),
        ("총 얼마 보냈어?", [IntentScore("history", 1.0, "example '총 얼마 보냈어' 1.00")]),
        # 얼마 마보 보냈 냈지 vs 총얼 얼마 마보 보냈 냈어: 2 * 3 / (4 + 5)
        ("얼마 보냈지", [IntentScore("history", 0.6667, "example '총 얼마 보냈어' 0.67")]),
        ("안녕", [IntentScore("greet", 0.4, "example '안녕하세요' 0.40")]),
        ("Hi there", [IntentScore("greet", 0.9, "keyword 'hi'")]),
        ("HELLO!", [IntentScore("greet", 0.9, "keyword 'hello'")]),
        ("this is it", []),  # Latin keywords must start a word
        ("전혀 관계없는 말", []),
        ("", []),
    ],
)
def test_classify(text: str, expected: list[IntentScore]) -> None:
    assert classify(text, RULES) == expected


def test_boenaesseo_does_not_hit_bonae() -> None:
    # 보냈 is its own syllable, so the keyword 보내 is not a substring of 보냈어.
    assert classify("총 얼마 보냈어?", [TRANSFER]) == []


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (
            (IntentRule("a", keywords=("보내",)), IntentRule("b", keywords=("보내",), priority=1)),
            ["b", "a"],
        ),
        ((IntentRule("a", keywords=("보내",)), IntentRule("b", keywords=("보내",))), ["a", "b"]),
        (
            (IntentRule("a", keywords=("보내",)), IntentRule("b", keywords=("보내", "줘"))),
            ["b", "a"],
        ),
        ((IntentRule("a", keywords=("x",)), IntentRule("b", keywords=("", " "))), []),
    ],
)
def test_order(rules: tuple[IntentRule, ...], expected: list[str]) -> None:
    assert [s.name for s in classify("보내줘", rules)] == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("보내줘", "보내줘", 1.0),
        ("보내줘", "보내", 2 / 3),
        ("ab", "cd", 0.0),
        ("a", "a", 1.0),
        ("", "", 0.0),
    ],
)
def test_dice(a: str, b: str, expected: float) -> None:
    assert dice(bigrams(a), bigrams(b)) == pytest.approx(expected)


def test_rules_from_lists_equal_rules_from_tuples() -> None:
    from_lists = IntentRule("x", keywords=["보내"], examples=["보내줘"])  # type: ignore[arg-type]
    from_tuples = IntentRule("x", keywords=("보내",), examples=("보내줘",))
    assert (from_lists == from_tuples, hash(from_lists) == hash(from_tuples)) == (True, True)


@pytest.mark.parametrize(("message", "intent"), [
    ("송금기록 좀 보여줘", "history"), ("보낸내역 알려줘", "history"),
    ("통장잔액 얼마야", "balance"), ("남은돈 얼마 있어", "balance"),
])
def test_a_keyword_of_several_words_is_found_written_without_its_spaces(
        message: str, intent: str) -> None:
    from engine.compiler import compile_file
    from tests.conftest import ROOT

    rules = compile_file(ROOT / "flows" / "transfer.yaml").intents
    assert classify(message, rules)[0].name == intent


LOST = IntentRule("lost", keywords=("lost", "stolen", "잃어버"), examples=("I lost my card",))


@pytest.mark.parametrize("text", [
    "what would happen if my wallet was stolen",
    "what if I lost my card abroad?",
    "in case it gets stolen while travelling, what do I do",
    "카드 잃어버리면 어떻게 되나요",
    "만약에 카드를 잃어버렸다면요?",
    "송금 잘못 보내면 어떻게 해요",
])
def test_a_what_if_about_what_would_happen_settles_no_intent(text: str) -> None:
    """A hypothetical asks how things would go, not for a task: every score stays under
    what settles (the model, or a question back, decides)."""
    assert all(s.confidence < 0.5 for s in classify(text, [LOST, TRANSFER]))


@pytest.mark.parametrize(("text", "intent"), [
    ("I lost my card, what happens now?", "lost"),  # the loss is told; no "if"
    ("엄마한테 만원 보내줘 혹시 모르니까", "transfer"),
    ("my card is lost, block it just in case", "lost"),  # "in case" not opening the message
])
def test_a_request_with_the_words_of_a_what_if_elsewhere_is_still_a_request(
        text: str, intent: str | None) -> None:
    scores = classify(text, [LOST, TRANSFER])
    assert (scores[0].name if scores and scores[0].confidence >= 0.5 else None) == intent


@pytest.mark.parametrize("text", [
    "이체 취소해 주세요", "송금한 거 되돌려 주세요", "어제 이체한 돈 돌려받을 수 있어?",
    "please cancel the transfer", "refund that transfer", "undo my last transfer",
])
def test_a_keyword_of_what_is_asked_undone_asks_for_no_new_one(text: str) -> None:
    """Undoing a transfer is no request for another: the keyword does not count."""
    transfer = IntentRule("transfer", keywords=("보내", "이체", "송금", "transfer"))
    assert classify(text, [transfer]) == []


def test_a_keyword_that_itself_undoes_still_counts() -> None:
    """"주문 취소" is the cancellation's own keyword, whatever follows it."""
    cancel = IntentRule("cancel_order", keywords=("주문 취소",))
    assert [s.name for s in classify("주문 취소하고 환불해 주세요", [cancel])] == ["cancel_order"]


@pytest.mark.parametrize("text", ["we don't want a refund, exchange it",
                                  "not a refund! exchange please", "환불 말고 교환해 줘"])
def test_a_refund_as_a_noun_undoes_nothing(text: str) -> None:
    """"refund" undoes only as a verb on what follows it ("refund that transfer")."""
    exchange = IntentRule("exchange", keywords=("교환", "exchange"))
    assert [s.name for s in classify(text, [exchange])] == ["exchange"]
