"""The built-in words of decisions, as data: what a yes, a no and a cancel are in Korean and
in English (``words.default_words`` builds the grammar from them; docs/dsl.md's table lists
them, and a test holds the two the same), the words that take an interrupted flow up again,
the politeness and fillers a decision may carry (``NEUTRAL``), the verbs for doing the
thing in any flow (``GENERIC_ACT``), the smaller word sets the grammar reads with them, and
the grammar's automaton (``DECISIONS``, ``CANCEL_FIRST``)."""

from __future__ import annotations

KO: dict[str, tuple[str, ...]] = dict(
    confirm=("확인", "네", "예", "응", "웅", "넵", "넹", "옙", "좋아", "좋습니다", "좋네", "그래",
             "그럼요", "그러자", "그럽시다", "그렇게 해", "그렇게 하자", "맞아", "맞습니다",
             "맞네", "진행", "승인", "동의", "ㅇㅇ", "ㅇㅋ", "ㄱㄱ", "고고", "콜", "오케이",
             "오키", "오케", "당연하지", "당연하죠", "당연히", "물론", "물론이죠", "물론이지",
             "알겠어", "알겠어요", "알겠습니다", "알았어", "알았어요", "그렇습니다", "확인했어",
             "확인했어요", "확인했습니다", "엉", "고고싱", "네엡", "넵넵", "부탁해", "부탁해요",
             "부탁합니다", "부탁드려요", "부탁드립니다", "부탁드릴게요", "부탁드리겠습니다",
             "부탁드리겠어요", "부탁하겠습니다", "계속", "예스",
             "그렇게 할게요", "그대로 할게요", "그걸로 할게요", "이걸로 할게요", "틀림없어",
             "틀림없어요", "틀림없습니다", "정확해", "정확해요", "정확합니다", "확인하였습니다",
             "컨펌", "ㄱㄱㅆ", "고고씽",
             # as the regions say it: 하모, 맞심더 (Gyeongsang), 그려, 그랴 (Chungcheong,
             # Jeolla), 잉, 그라제 (Jeolla), 오냐 (to a younger one), 암요, 아무렴
             "하모", "하모요", "하모예", "맞심더", "맞습니더", "그려", "그려유", "그랴",
             "그래유", "잉", "그라제", "그라지", "오냐", "암요", "아무렴", "예예"),
    cancel=("취소", "그만", "중단", "중지", "멈춰", "스톱", "됐어", "됐어요", "됐습니다", "관둘래",
            "관둬", "그만둘래", "그만 둘게요", "됐다", "필요 없어", "필요없어", "필요 없어요",
            "필요없어요", "없던 걸로", "없던 걸로 해", "없던 걸로 해줘", "없던 걸로 해주세요",
            "없던 일로", "없던 일로 해", "없던 일로 해줘", "없던 일로 해주세요",
            "다음에 할게", "다음에 할게요", "나중에 할게", "나중에 할게요", "다음에 올게요",
            "나중에 올게요", "다음에 다시 올게요", "나중에 다시 올게요", "다음에 오겠습니다",
            "나중에 다시 오겠습니다",
            "다음에 다시 할게요", "나중에 다시 할게요", "나중에 다시 할게", "다음에 다시 할게",
            "안 하는 걸로", "안 하는 걸로 할게요", "안 하는 걸로 할게", "안 하는 걸로 해 주세요",
            "다 취소", "전부 취소", "모두 취소", "캔슬", "취소입니다", "그만두겠습니다",
            "그만두겠어요", "관두겠습니다", "관두겠어요",
            # as the regions say it: 됐심더, 치아라 (Gyeongsang), 됐슈 (Chungcheong), 됐당께
            # (Jeolla); 고만 is 그만
            "됐심더", "됐다마", "됐구마", "마 됐다", "마 됐어", "마 고마 해라", "치아라",
            "치아뿌라", "치아라마", "됐슈", "됐시유", "됐당께", "됐응께", "고만", "고만둬",
            "고만 둬", "고만둘래", "고만 두랑께", "고만해", "고만 해"),
    deny=("아니", "아니요", "아니오", "아뇨", "아니야", "아냐", "아니에요", "아닙니다", "싫어",
          "싫어요", "노", "노노", "ㄴㄴ", "절대 아니야", "절대 아니에요", "절대 안 돼", "절대 안돼",
          "절대 안 돼요",
          "절대 안돼요", "절대 안 됩니다", "절대로 안 돼", "절대로 아니야", "절대 싫어",
          "절대 싫어요", "당연히 아니지", "당연히 아니죠", "전혀 아니야", "전혀 아니에요",
          "아니 절대",
          # as the regions say it: 아이다 (Gyeongsang), 아녀, 아니여 (Chungcheong, Jeolla),
          # 아니우다 (Jeju)
          "아이다", "아입니더", "아니라예", "아녀", "아니여", "아니유", "아니랑께", "아니당께",
          "아니우다"),
)  # fmt: skip
EN: dict[str, tuple[str, ...]] = dict(
    confirm=("yes", "yeah", "yea", "ya", "yep", "yup", "ok", "okay", "okey", "k", "kk", "sure",
             "sure thing", "confirm", "confirmed", "i confirm", "go ahead", "no problem",
             "correct", "thats correct", "right", "thats right", "absolutely", "definitely",
             "of course", "certainly", "alright", "all right", "fine", "thats fine",
             "thats all right", "thats alright",
             "sounds good", "sounds great", "looks good", "looks right", "perfect", "great",
             "agreed", "i agree", "approve", "approved", "i approve", "yes sir", "yess",
             "yesss", "affirmative", "all good", "okie", "okie dokie", "y",
             "okey dokey", "yes yes", "please do", "why not", "sure why not", "thats it",
             "exactly", "precisely", "spot on", "bang on", "thats the one", "you got it",
             "works for me", "that works", "do the needful", "make it happen", "get it done",
             "lets do this", "sounds lovely", "sounds right", "sounds just right",
             "sounds perfect", "is correct", "is all correct", "is right", "all correct",
             "go on", "go on then", "brilliant", "lovely", "no worries", "sige", "opo",
             "oo po", "thats all correct", "its all correct", "its correct", "thats all good"),
    cancel=("cancel", "cancel it", "cancel that", "stop", "abort", "never mind", "nevermind",
            "forget it", "forget about it", "call it off", "scrap it", "scrap that",
            "i dont want it", "i dont want it anymore", "dont want it anymore",
            "changed my mind", "i changed my mind", "not interested", "nvm", "scratch that",
            "forget that", "dont bother", "forget i said anything", "forget i asked",
            "forget i said that", "forget what i said", "ignore that", "ignore me",
            "disregard that"),
    deny=("no", "nope", "nah", "no thanks", "no thank you", "not really", "negative",
          "absolutely not", "definitely not", "of course not", "certainly not", "no way",
          "hell no", "not at all", "no absolutely not", "no definitely not"),
)  # fmt: skip
RESUME: dict[str, tuple[str, ...]] = {
    "ko": ("계속", "계속 진행", "이어서", "마저", "돌아가", "다시 하자"),
    "en": ("continue", "go on", "resume", "carry on", "back to it", "keep going"),
}
"""Words that take an interrupted flow up again (besides the confirm words)."""

NEUTRAL = {
    "ko": ("음", "음음", "흠", "어", "아", "오", "자", "그럼", "그러면", "감사합니다",
           "감사해요", "감사", "고마워", "고마워요", "고맙습니다", "땡큐", "부탁해", "부탁해요",
           "부탁합니다", "부탁드려요", "부탁드립니다", "부탁드릴게요", "부탁드리겠습니다",
           "부탁드리겠어요", "부탁하겠습니다", "빨리", "빨리요", "바로",
           "바로요", "지금", "지금요", "지금 바로", "얼른", "어서", "이제", "그대로", "이대로",
           "그렇게", "그걸로", "이걸로", "그거로", "이거로", "제발", "요", "진짜", "정말", "꼭",
           "급해요", "급해", "급합니다", "급하니까", "급하거든요",
           "네네", "그냥", "걍", "생각해보니", "생각해 보니", "다시 생각해보니",
           "생각해보니까", "생각해봤는데", "생각해 봤는데", "다시 생각해봤는데",
           "다시 생각해 봤는데", "곰곰이 생각해봤는데", "생각해봤는데요", "다시 생각해봤는데요",
           "나머지는", "나머지도", "이번 건", "이번 건은", "이번엔", "이번 것은", "이번 꺼는",
           "이것은", "일단", "여기서", "별거 아냐", "별거 아니야", "별거 아니에요", "확실해",
           "확실해요", "확실합니다", "늘 고마워", "늘 고마워요", "항상 고마워", "항상 고마워요",
           "늘 감사합니다", "항상 감사합니다",
           "아무것도 아냐", "아무것도 아니야", "아무것도 아니에요",
           "이번에는", "이것도",
           "그것도", "그거도", "이거도", "저것도", "잘", "그리", "죄송하지만", "죄송한데",
           "죄송한데요", "죄송합니다만", "죄송해요", "죄송합니다", "미안해요", "미안합니다",
           "미안하지만", "미안한데", "미안한데요", "실례지만", "송구하지만", "송구합니다만",
           "송구스럽지만", "외람되지만", "번거로우시겠지만요",
           "번거롭겠지만", "번거로우시겠지만", "ㅈㅅ", "헐", "그렇구나", "그렇군", "그렇군요",
           "아하", "오호", "아참", "참", "이건", "이거", "이거는", "이번 거", "이번 거는", "나도",
           "저도", "역시",
           # as the regions say it: 야 (a Gyeongsang opener), 고마 (just), 그라믄 (then);
           # 맞다 (right: said with a yes, not alone: "아 맞다" is remembering)
           "야", "고마", "그라믄", "그라모", "그람", "글믄", "맞다",
           # a sigh said before the answer ("아휴 됐어요 안 할래요")
           "아휴", "에휴", "하아", "아이고", "아이구"),
    "en": ("please", "pls", "plz", "thanks", "thank you", "thank u", "thx", "ty", "um", "umm",
           "uh", "hmm", "eh", "ehh", "well", "so", "now", "right now", "just", "then",
           "it", "that", "this",
           "them", "him", "her", "the money", "the transfer", "the payment", "the order", "mate",
           "buddy",
           "sir", "maam", "lol", "haha", "ah", "oh", "asap", "already", "again", "and",
           "everything", "all", "all of it", "the whole thing", "whole thing", "cool",
           "right away", "thanks so much", "thank you so much", "thanks a lot", "cheers",
           "thanks for your help", "thank you for your help", "much appreciated",
           "that would be great", "thatd be great", "ugh", "argh", "meh", "welp", "oops",
           "whoops", "aw", "aww", "actually", "sorry", "sorry but", "so sorry", "apologies",
           "excuse me", "dear", "too", "from me", "as well", "for your help", "thank you kindly",
           "po", "o", "am", "i see", "got it", "gotcha", "through", "kindly", "anyway",
           "anyways", "for real", "for real now", "yaar", "bro", "dude", "also", "that one",
           "im back", "i am back", "im back now", "ok im back", "understood", "noted",
           "makes sense", "that makes sense", "im sure", "i am sure", "im sure now",
           "i am sure now", "im certain", "i am certain", "im certain now", "i checked",
           "ive checked", "i double checked", "checked", "double checked", "all checked",
           "i read it", "i see now",
           "this one", "please to", "with"),
}
"""Politeness and fillers: words a decision may carry without changing what it is."""

GENERIC_ACT = {
    "ko": ("처리", "실행", "해", "혀"),  # 혀: 해 as Chungcheong says it
    "en": ("do it", "do that", "proceed", "execute", "go", "lets do it", "lets go",
           "make it so", "go for it", "carry on", "send", "process", "order", "place", "buy",
           "book", "pay", "charge", "submit", "complete"),
}
"""Verbs for doing the thing, in any flow ("처리해 주세요", "do it")."""

CANCEL_NOUNS = frozenset({"취소", "그만", "중단", "중지", "스톱", "cancel", "stop", "abort"})
"""Cancel words that are nouns: a negation after one negates it ("취소 안 할래")."""

DO_IT = frozenset({"해", "해줘", "해줘요", "해주세요", "해주셈", "해주라", "해요", "할게",
                   "할게요", "할래", "할래요", "하자", "합니다", "할께", "할께요", "please", "pls",
                   "plz"})
"""Doing what a noun before it names, said in Korean ("cancel 해줘", "stop 할게요", "confirm
할게요")."""
GOING_ON = ("진행", "확인", "승인", "proceed", "confirm")
"""Confirm words that are verbs of going on: negated, they cancel."""


OBJECT_PARTICLES = ("", "은", "는", "이", "가", "을", "를", "도", "만", "의", "요", "이요", "s")
"""What an object may carry beside a decision ("카드는 취소", "cancel the orders")."""
TOPIC_PARTICLES = ("은", "는", "을", "를", "도")
"""The particles that make the flow's own verb the object of a decision ("신청은 취소")."""


WANTING = frozenset({"싶어", "싶어요", "싶다", "싶은데", "싶습니다", "싶네요", "want", "wanna"})
"""Wanting to do the flow's doing ("보내고 싶어"): a verb's auxiliary, nothing more."""


# How a message is read: a small automaton over its pieces, state -> kind -> state, the kinds
# as words.py names them (N neutral, Y yes, D deny, C cancel word, K cancel noun, X negation,
# M yes then 말고, A the flow's own doing, U a cancel turned down, H a cancel noun done, T the
# flow's verb as the topic). The three decisions run as one (their states named apart).
Table = dict[str, dict[str, str]]
DECISIONS: Table = {
    "confirm": {"N": "confirm", "T": "confirm", "Y": "yes", "A": "confirm", "U": "confirm"},
    # a yes word done in Korean is a yes ("confirm 할게요", "ok 할게요")
    "yes": {"N": "yes", "T": "yes", "Y": "yes", "A": "yes", "U": "yes", "H": "yes"},
    "deny": {"N": "deny", "D": "no", "U": "aside"}, "no": {"N": "no", "D": "no", "U": "aside"},
    # a no that only turns a cancel down, then the yes ("아니 취소 안 해요, 보내주세요")
    "aside": {"N": "aside", "U": "aside", "Y": "yes", "A": "yes"},
    "cancel": {"N": "cancel", "D": "cancel", "Y": "said", "M": "cancel", "C": "stop",
               "K": "noun", "X": "stop", "T": "topic"},
    # the flow's verb as the topic: a cancel word cancels it, a "don't" alone does not
    # ("이체는 취소"; "결제는 하지 마" may turn down one part of the task)
    "topic": {"N": "topic", "T": "topic", "C": "stop", "K": "noun"},
    "said": {"N": "cancel", "D": "cancel", "Y": "said", "M": "cancel", "C": "stop", "K": "noun",
             "X": "stop"},
    # after a cancel said as a sentence ("됐어요") a negation is a second one ("안 할래요");
    # after a cancel noun it negates that noun ("취소 안 할래": no decision)
    "stop": {"N": "stop", "D": "stop", "C": "stop", "K": "noun", "X": "stop"},
    "noun": {"N": "noun", "D": "noun", "C": "stop", "K": "noun", "H": "noun"},
}
STARTS = frozenset({"confirm", "deny", "cancel"})
CANCEL_FIRST: Table = {"start": {"N": "start", "D": "start", "C": "stop", "K": "stop",
                                   "X": "stop"},
                         "stop": {}}


MISSPOKE = frozenset({"잘못", "말했어", "말했어요", "말했네", "말했다", "아니다", "아니",
                      "잠깐", "잠깐만", "정정", "정정할게", "정정할게요", "정정합니다",
                      "미안", "미안해", "미안해요", "미안요", "미안합니다", "죄송", "죄송해요",
                      "죄송요", "죄송합니다", "ㅈㅅ", "ㅈㅅㅈㅅ", "쏘리", "앗", "아차", "헐",
                      "말했네요", "말했습니다", "말했음", "말했나", "눌렀다", "눌렀어", "눌렀어요",
                      "눌렀네", "눌렀네요", "쳤다", "쳤어", "쳤어요", "쳤네", "쳤네요", "적었다",
                      "적었어", "적었어요", "적었네요", "썼다", "썼어", "썼어요", "썼네요", "오타",
                      "오타요", "오타예요", "오타다", "오타남", "오타났다", "오타났어요", "헉",
                      "아이고", "아이쿠", "어머", "실수", "실수요", "실수했어요", "실수했네요",
                      "실수했다", "actually", "oops", "sorry", "wait", "i", "meant",
                      "correction", "typo", "mistyped", "my bad", "my mistake"})
"""Words of having misspoken, apologies among them ("아 미안 5만원", "ㅈㅅ 누나한테"): said
with a changed value, they say nothing else."""


__all__ = ["CANCEL_FIRST", "CANCEL_NOUNS", "DECISIONS", "DO_IT", "EN", "GENERIC_ACT", "GOING_ON",
           "KO", "MISSPOKE", "NEUTRAL", "OBJECT_PARTICLES", "RESUME", "STARTS", "TOPIC_PARTICLES",
           "Table", "WANTING"]
