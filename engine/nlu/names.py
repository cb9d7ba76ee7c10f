"""Korean and English phrasing -> whether a message's words are a clause of their own, and
whether a short answer can be a name at all.

A value said inside a clause of another verb ("엄마한테 물어보고 올게") is not the user's
answer; neither is a word that names nobody ("몰라요", "걔한테"), a name said away ("민수
말고"), the one money comes from ("이모한테서") or a one-word sentence ("괜찮아요").
"""

from __future__ import annotations

import re

_RIEUL = "".join(chr(c) for c in range(0xAC00, 0xD7A4) if (c - 0xAC00) % 28 == 8)  # 갈, 볼, 할…
OTHER_PREDICATE = re.compile(rf"[가-힣](?:고|어|아|다|네|지|래|대|는데|던데|았|었|겠)(?:요)?$"
                             rf"|[{_RIEUL}]게(?:요)?$")
"""A word ending a clause of its own ("물어보고", "했대", "해볼게"; not "듣게"): another topic."""
NOBODY = re.compile(r"(?:몰라|모르겠어|모름|아무|아무나|아무도|비밀|그냥|헐|대충|돈|나중에|글쎄|"
                    r"그 ?사람|걔|쟤|얘|나|저|누구|someone|anyone|idk|whoever|nobody|me|myself)"
                    r"(?:요|한테|에게|께)?(?:나|도)?[.!~ ]*", re.IGNORECASE)
"""Words that name nobody: not knowing, anyone, a pronoun, "돈" — never a recipient."""
_NOT_HIM = re.compile(r"(?:말고|빼고|아니야|아니에요|아니고)[.!~ ]*$")  # "민수 말고": who, then?
_FROM = re.compile(r"[가-힣](?:한테서|에게서|께서)")  # where money comes from, not where it goes
_PREDICATE = re.compile(r"(?:아요|어요|해요|세요|니다|줘|줘요|래요|게요|까요|네요|지요)$")
"""A one-word sentence ("괜찮아요", "해주세요") is no name."""
CONDITION = re.compile(r"(?<=[가-힣])면\s|\bif\b", re.IGNORECASE)
"""A condition ("무료면 담아주세요", "if it's free") is no answer."""


def no_name(answer: str, single: bool) -> bool:
    """Whether a short ``answer`` (``single``: one word) cannot be a name: a condition, a
    one-word sentence, a word that names nobody, a name said away, where money comes from,
    a clause of its own ("삼촌에게서 연락 왔어").

    >>> [no_name(a, " " not in a) for a in ("민수 말고", "이모한테서", "괜찮아요", "박준형")]
    [True, True, True, False]
    """
    return bool(CONDITION.search(answer) or (single and _PREDICATE.search(answer))
                or NOBODY.fullmatch(answer) or _NOT_HIM.search(answer) or _FROM.search(answer)
                or any(OTHER_PREDICATE.search(w) for w in answer.split()[1:]))


__all__ = ["CONDITION", "NOBODY", "OTHER_PREDICATE", "no_name"]
