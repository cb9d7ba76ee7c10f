"""The words of intents: keywords as patterns (an English one in its regular forms), words
that make a message none of an intent's (``unless``), and negation ("보내지 마", "don't send").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from engine.nlu.stems import verb_forms
from engine.precompiled import re_compile

from .phrases import SET_ASIDE
from .words import normalise

_WORD_START = re_compile(r"[a-z0-9]")

_PARTICLES = frozenset({"", "을", "를", "이", "가", "은", "는", "로", "으로", "도", "만", "좀",
                        "랑", "이랑", "하고", "까지", "이나", "나"})


def words_pattern(words: Sequence[str]) -> re.Pattern[str] | None:
    """A whole word (``fullmatch`` a token) that is one of ``words`` with one of
    ``_PARTICLES`` after it, or none ("사진을" is 사진; "택배비" is not 택배); a Latin one
    in its plural too ("photos", "messages").

    >>> said = words_pattern(["사진", "택배", "photo"])
    >>> [bool(said.fullmatch(t)) for t in ("사진을", "택배", "택배비", "photos", "photon")]
    [True, True, False, True, False]
    """
    if not words:
        return None
    forms = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    endings = "|".join(re.escape(p) for p in sorted(_PARTICLES - {""}, key=len, reverse=True))
    return re.compile(rf"(?:{forms})(?:{endings}|(?<=[a-z])e?s)?")


_NOT_DONE = r"(?!(?:한|했던|된)\s+[가-힣])"
"""A keyword done before, said of a thing ("지난달에 구입한 이어폰", "결제된 주문"): no request
for it (that thing's request is the message's)."""


def keyword_pattern(word: str) -> re.Pattern[str]:
    """A keyword as found in a normalised message: a Hangul one anywhere (with or without the
    spaces it is written with), an English one as a whole word in its regular forms.

    >>> bool(keyword_pattern("이체 내역").search("이체내역보여줘"))
    True
    >>> [bool(keyword_pattern(k).search(t)) for k, t in (("보내", "보낼게"), ("쏴", "쏘렌토"))]
    [True, False]
    >>> bool(keyword_pattern("구입").search("지난달에 구입한 이어폰 교환해 주세요"))
    False
    """
    if not _WORD_START.match(word):  # Hangul keywords are substrings, their spaces optional
        said = [word] if " " in word else [  # a verb's other forms: "보낼래" is 보내
            word, *(f for f in verb_forms((word,)) if len(f) > 1 and f != word)]
        return re.compile("(?:" + "|".join(re.escape(f).replace(r"\ ", " ?")  # "이체내역"
                                           for f in said) + ")" + _NOT_DONE)
    head, _, last = word.rpartition(" ")
    forms = "|".join(re.escape(f) for f in sorted(inflections(last) | participle_forms(last),
                                                   key=len, reverse=True))
    lead = re.escape(head + " ") if head else ""
    return re.compile(rf"(?<![a-z0-9]){lead}(?:{forms})(?![a-z0-9])")


def inflections(word: str) -> set[str]:
    """An English word and its regular forms: "replace" -> replaces, replaced, replacing,
    replacement; "verify" -> verifies, verified, verification. Not other words that merely
    start with it ("add" is not "address").

    >>> sorted(inflections("add"))
    ['add', 'added', 'adding', 'addition', 'adds']
    >>> sorted(inflections("verify"))
    ['verification', 'verified', 'verifies', 'verify', 'verifying']
    >>> sorted(inflections("ship"))
    ['ship', 'shiped', 'shiping', 'shipped', 'shipping', 'ships']
    """
    if word.endswith("e"):
        stem = word[:-1]
        return {word, word + "s", word + "d", stem + "ing", word + "ment", word + "ments",
                stem + "ation"}
    if word.endswith("y") and len(word) > 2:
        stem = word[:-1]
        return {word, word + "ing", stem + "ies", stem + "ied", stem + "ication"}
    forms = {word, word + "s", word + "ed", word + "ing"}
    if _DOUBLES.fullmatch(word):  # "ship" -> shipped, shipping
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    if word.endswith(("s", "x", "z", "ch", "sh")):
        forms.add(word + "es")
    if word.endswith("d"):
        forms.add(word + "ition")
    return forms


_DOUBLES = re_compile(r"[^aeiou\W\d]*[aeiou][bdgklmnprt]")
"""A word of one syllable ending in one vowel and one consonant: it doubles the consonant
before -ed and -ing ("ship", "stop", "log"; not "add", "track", "card")."""


_IRREGULAR = {
    "stolen": ("steal", "steals", "stealing", "stole"),
    "broken": ("break", "breaks", "breaking", "broke"),
    "bent": ("bend", "bends", "bending"),
    "torn": ("tear", "tears", "tearing", "tore"),
    "lost": ("lose", "loses", "losing"),
    "frozen": ("freeze", "freezes", "freezing", "froze"),
    "worn": ("wear", "wears", "wearing", "wore"),
    "sent": ("send", "sends", "sending"),
    "paid": ("pay", "pays", "paying"),
    "forgotten": ("forget", "forgets", "forgetting", "forgot"),
    "fallen": ("fall", "falls", "falling", "fell"),
}
"""Past participles whose verb is not made by -ed: the verb's other forms."""


def participle_forms(word: str) -> set[str]:
    """An English past participle and the forms of its verb ("cracked" -> crack, cracks,
    cracking; "stolen" -> steal, stole); any other word alone. Both stems a regular one may
    have are tried, so a few forms are no words ("snaped"): no one says them.

    >>> {"snap", "snaps", "snapping"} <= participle_forms("snapped")
    True
    >>> {"damage", "damages", "damaging"} <= participle_forms("damaged")
    True
    >>> sorted(participle_forms("stolen")), participle_forms("large")
    (['steal', 'stealing', 'steals', 'stole', 'stolen'], {'large'})
    """
    if word in _IRREGULAR:
        return {word, *_IRREGULAR[word]}
    if len(word) < 5 or not word.endswith("ed") or not (word.isascii() and word.isalpha()):
        return {word}
    stems = {word[:-2], word[:-1]}  # cracked: crack, damaged: damage
    if word.endswith("ied"):
        stems.add(word[:-3] + "y")  # verified: verify
    if word[-3] == word[-4]:  # snapped: snap, snapping
        stems |= {word[:-3], word[:-2]}
    return {word}.union(*(inflections(stem) for stem in stems))


_NEGATED_AFTER = re_compile(r"\S*?(?:\s\S+?)?(?:지\s?(?:마|말|않)|지마)"
                            r"|\S*?\s?안\s?(?:하|해|할|합|받)"
                            # "매출 보지 마", "매출은 안 봐도 돼요", "추천은 됐어요"
                            r"|\S*?\s안\s?\S+도\s?(?:돼|되|될)|\S*?\s(?:됐어|됐습니다|됐구요)"
                            rf"|\S*?\s?{SET_ASIDE}(?!\S)"
                            r"|\S*?\s(?:원하|바라)지\s?않|\S*?\s필요\s?없")
_NEGATED_BEFORE = re_compile(r"(?:^|\s)(?:안|못|dont|do not|not|never|didnt|doesnt|wont"
                             r"|instead of|rather than"
                             r"|(?:dont|do not|didnt|wont|not)\s(?:want|need)(?:\sto)?)"
                             r"(?:\s(?:a|an|the|my))?\s?$")


_UNDO = r"(?:취소|철회|되돌|돌려\s?받|무르|물러)"
_UNDONE_AFTER = re_compile(rf"\S*(?:\s(?:거|것|건|걸|돈|금액|내역)\S?)?(?:\s(?:좀|쫌))?\s?{_UNDO}")
_UNDOING = re_compile(rf"{_UNDO}|cancel|undo|refund|revers|revok|recall|stop", re.IGNORECASE)
_UNDONE_BEFORE = re_compile(r"(?:^|\s)(?:(?:cancel|undo|reverse|revoke|recall|stop)"
                            r"(?:\s(?:a|an|the|my|that|this|our))?"
                            r"|(?:refund|back from)\s(?:the|my|that|this|our))"  # not "a refund"
                            r"(?:\s(?:last|previous|recent|latest|earlier|wrong))?\s?$")


def undoing(text: str) -> bool:
    """Whether ``text`` speaks of undoing something: "취소", "되돌려", "환불", "cancel",
    "refund", "undo" (what a time said with it is about: "can I cancel it later?").

    >>> undoing("나중에 취소할 수 있어?"), undoing("나중에 보내줘")
    (True, False)
    """
    return _UNDOING.search(text) is not None or "환불" in text


def undone(normalised: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end`` names what the message asks to undo: "이체 취소",
    "송금한 거 되돌려줘", "cancel my transfer", "refund the payment" (a request about the
    one done, not for another).

    >>> undone("민수한테 이체 취소", 5, 7), undone("cancel my transfer to dad", 10, 18)
    (True, True)
    >>> undone("민수한테 이체해줘", 5, 7), undone("transfer it, then cancel lunch", 0, 8)
    (False, False)
    >>> undone("주문 취소하고 환불해주세요", 0, 5)  # a keyword that undoes is what it says
    False
    """
    if _UNDOING.search(normalised, start, end):
        return False
    return bool(_UNDONE_AFTER.match(normalised, end) or
                _UNDONE_BEFORE.search(normalised, 0, start))


def put_off(normalised: str, end: int) -> bool:
    """Whether the word ending at ``end`` is only what comes after the request: "보내기 전에
    잔액 알려줘", "이체 전에 한도 좀" (before sending: the balance is asked now).

    >>> put_off("보내기 전에 잔액 알려줘", 2), put_off("보내줘 전에 말한 대로", 2)
    (True, False)
    """
    return _BEFORE.match(normalised, end) is not None


_BEFORE = re_compile(r"(?:하|되|시키|드리)?기\s?(?:바로\s)?전에|\s?전에(?!\S)")


def negated(normalised: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end`` is negated: "보내지 마", "안 보내", "don't send",
    or set aside for another ("반품 말고 교환", "환불 대신 교환", "instead of a refund").

    >>> negated("엄마한테 돈 보내지 마", 7, 9), negated("엄마한테 보내줘", 5, 7)
    (True, False)
    >>> negated("환불이 아니라 교환해 주세요", 0, 2), negated("환불 대신해줘", 0, 2)
    (True, False)
    """
    return bool(_NEGATED_AFTER.match(normalised, end) or
                _NEGATED_BEFORE.search(normalised, 0, start))


def undoes(normalised: str, keywords: Iterable[str]) -> bool:
    """Whether one of ``keywords`` opens a word of the message that it asks to undo ("카드
    신청한 거 취소해 주세요" of 신청).

    >>> undoes("카드 신청한 거 취소해 주세요", ["신청"]), undoes("카드 신청할래", ["신청"])
    (True, False)
    """
    return any(undone(normalised, at, at + len(word)) for word in keywords if word
               for at in _word_starts(normalised, word))


def _word_starts(text: str, word: str) -> Iterator[int]:
    at = text.find(word)
    while at != -1:
        if at == 0 or text[at - 1] == " ":
            yield at
        at = text.find(word, at + 1)


_WORD = re_compile(r"(?<!\S)\S")


def negates(text: str) -> bool:
    """Whether any word of ``text`` is negated ("보내지 마", "안 보내", "don't send").

    >>> negates("할머니한테 돈 보내지 마"), negates("할머니한테 돈 보내줘")
    (True, False)
    """
    return negates_normalised(normalise(text))


def negates_normalised(normalised: str) -> bool:
    """``negates`` of a message already normalised."""
    return any(negated(normalised, m.start(), m.start()) for m in _WORD.finditer(normalised))


__all__ = ["inflections", "keyword_pattern", "negated", "negates", "negates_normalised", "put_off",
           "undoes", "undoing", "undone", "words_pattern"]
