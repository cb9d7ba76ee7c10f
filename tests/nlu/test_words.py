"""yes_no and its word lists: a decision is the whole message (tests/nlu/test_decision_corpus.py
runs the corpus of replies at a confirmation; these are the rules one by one)."""

import pytest

from engine.nlu import YesNoWords, default_words, normalise, yes_no

KO = default_words("ko")
EN = default_words("en")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("확인", "confirm"),
        ("확인해줘", "confirm"),
        ("확인했어요", "confirm"),
        ("네", "confirm"),
        ("네요", "confirm"),
        ("네!", "confirm"),
        ("네 보내주세요", None),  # 보내 is a flow's verb, not a built-in word (see test_flow_verbs)
        ("예, 진행해주세요", "confirm"),
        ("응", "confirm"),
        ("ㅇㅇ", "confirm"),
        ("좋아요", "confirm"),
        ("그래", "confirm"),
        ("맞아요", "confirm"),
        ("진행해줘", "confirm"),
        ("취소", "cancel"),
        ("취소해주세요", "cancel"),
        ("확인 말고 취소", "cancel"),
        ("그만", "cancel"),
        ("안 할래", "cancel"),
        ("안할래요", "cancel"),
        ("하지 마", "cancel"),
        ("하지마세요", "cancel"),
        ("중단", "cancel"),
        ("아니", "deny"),
        ("아니요", "deny"),
        ("아뇨", "deny"),
        ("싫어", "deny"),
        ("노", "deny"),
        ("아니 3만원으로 해줘", None),  # a correction: the amount is read, not a bare no
        ("아니 취소해", "cancel"),
        ("네이버", None),
        ("예약해줘", None),
        ("응급실", None),
        ("노래 틀어줘", None),
        ("보내줘", None),
        ("엄마한테 만원", None),
        ("", None),
        ("   ", None),
    ],
)
def test_korean(text: str, expected: str | None) -> None:
    assert yes_no(text, KO) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yes", "confirm"),
        ("Yes!", "confirm"),
        ("yeah sure", "confirm"),
        ("yep", "confirm"),
        ("OK", "confirm"),
        ("okay", "confirm"),
        ("ok google", None),
        ("confirm", "confirm"),
        ("sure", "confirm"),
        ("go ahead", "confirm"),
        ("no problem, go ahead", "confirm"),  # "no problem" outranks "no": longest first word
        ("cancel", "cancel"),
        ("please stop", "cancel"),
        ("abort", "cancel"),
        ("never mind", "cancel"),
        ("nevermind", "cancel"),
        ("forget it", "cancel"),
        ("yes, cancel it", "cancel"),
        ("no", "deny"),
        ("No.", "deny"),
        ("nope", "deny"),
        ("nah", "deny"),
        ("yesterday", None),
        ("notice", None),
        ("go", "confirm"),
    ],
)
def test_english(text: str, expected: str | None) -> None:
    assert yes_no(text, EN) == expected


@pytest.mark.parametrize(
    ("locale", "text", "expected"),
    [
        ("ko", "yes", "confirm"),  # people type "ok" to a Korean service, "네" to an English one
        ("en", "네", "confirm"),
        ("ko-KR", "네", "confirm"),
        ("EN_us", "yes", "confirm"),
        ("fr", "네", "confirm"),
        ("fr", "cancel", "cancel"),
    ],
)
def test_locales(locale: str, text: str, expected: str | None) -> None:
    assert yes_no(text, default_words(locale)) == expected


@pytest.mark.parametrize(
    ("extra", "text", "expected"),
    [
        (YesNoWords(confirm=("콜",)), "콜", "confirm"),
        (YesNoWords(confirm=("Let's go!",)), "lets go", "confirm"),
        (YesNoWords(cancel=("됐어",)), "됐어요", "cancel"),
        (YesNoWords(deny=("별로",)), "별로야", "deny"),
        (YesNoWords(), "확인", "confirm"),
    ],
)
def test_merge_author_words(extra: YesNoWords, text: str, expected: str) -> None:
    assert yes_no(text, KO.merge(extra)) == expected


def test_words_are_normalised_and_deduplicated() -> None:
    words = YesNoWords(confirm=(" OK ", "ok", "Go  Ahead!"), cancel=("",))
    assert words == YesNoWords(confirm=("ok", "go ahead"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  예, 진행해주세요!! ", "예 진행해주세요"),
        ("Don't STOP", "dont stop"),
        ("a_b\tc", "a b c"),
    ],
)
def test_normalise(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize("text", [
    "진행하지 마세요", "승인하지 마", "확인 안 할래요", "don't proceed", "do not confirm",
])
def test_a_negated_word_of_going_on_cancels(text: str) -> None:
    assert yes_no(text, KO.merge(EN)) == "cancel"


@pytest.mark.parametrize("text", [
    "다음에 할게요", "나중에 할게", "없던 걸로 해주세요", "필요없어요", "됐다", "nvm",
    "scratch that",
])
def test_putting_it_off_or_calling_it_off_cancels(text: str) -> None:
    assert yes_no(text, KO.merge(EN)) == "cancel"


@pytest.mark.parametrize("text", ["진행 상황 알려줘", "다음에는 어떻게 해요?", "확인하지 마요?"])
def test_not_a_cancel_when_the_words_only_start_one(text: str) -> None:
    assert yes_no(text, KO.merge(EN)) != "cancel"


@pytest.mark.parametrize(("text", "expected"), [
    ("Yes, thank you so much", "confirm"), ("sure thing, thanks a lot!", "confirm"),
    ("ok, much appreciated", "confirm"), ("please do, cheers", "confirm"),
    ("yep, that'd be great", "confirm"), ("no, thank you so much", "deny"),
    ("please don't", "cancel"), ("please do it later", None),
    ("that would be great if it's free", None),
])
def test_thanks_and_please_do_carry_the_answer_they_come_with(text: str,
                                                              expected: str | None) -> None:
    assert yes_no(text, EN) == expected
