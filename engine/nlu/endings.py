"""Korean endings as data: what may follow a decision word or a verb of the flow for the
message to stay that word ("보내 주세요", "확인해 주세요", "보내지 마"), standard and as the
regions say it ("보내주이소", "보내유", "보내부러", "보내줍서"). ``lexicon.Lexicon`` builds its
word forms from them."""

from __future__ import annotations

REQUEST = ("줘", "줘요", "주세요", "주십시오", "주시오", "주라", "주셈", "줘라",
            # as people text and speak it: "보내주삼", "보내주세용", "보내 주소" (Gyeongsang)
            "주삼", "주세용", "주세여", "줘용", "줘여", "주쇼", "주소", "주이소", "주십쇼",
            "주시죠", "주시기 바랍니다", "주시길 바랍니다",
            # as older people say it to younger: "보내 주게", "보내 주게나"
            "주게", "주게나", "주시게",
            # as the regions say it: "보내도", "보내도고" (Gyeongsang), "보내주랑께" (Jeolla),
            # "보내줘유" (Chungcheong), "보내줍서" (Jeju)
            "도", "도고", "주랑께", "줘유", "주세유", "주셔유", "줍서", "줍써", "주십서",
            # to someone honoured: "보내드려", "보내 드리세요"
            "드려", "드려요", "드리세요", "드리십시오", "드립시다", "드리자", "드릴게요", "드릴게",
            "드려 주세요", "드려주세요", "드려줘", "드려 줘")
"""What follows a verb's 아/어 form to ask for it ("보내 주세요", "해줘")."""
ALLOWED = ("도 돼", "도 돼요", "도 되요", "도 됩니다", "도 좋아", "도 좋아요", "도 괜찮아",
            "도 괜찮아요")
"""Permission, which at a confirmation is a yes ("보내도 돼요")."""
HADA = ("해", "해요", "해라", "하세요", "하십시오", "합니다", "합시다", "하자", "하셈", "하삼",
         "하시죠", "하세용", "해용",
         "할게", "할게요", "할께", "할께요", "할래", "할래요", "하겠습니다", "하겠어요", "하겠음",
         "해버려", "해 버려", "시켜", "시켜요", "시켜줘", "시켜 줘", "시켜 주세요", "시켜주세요",
         "시키세요", "ㄱ", "ㄱㄱ", *(f"해 {r}" for r in REQUEST), *(f"해{r}" for r in REQUEST),
         *(f"하여 {r}" for r in REQUEST), *(f"하여{r}" for r in REQUEST), "하라고", "하라고요",
         "하라니까", "하라니까요", "할게여", "할께여", "할래여", "해여",
         *(f"해{g}달라{e}" for g in ("", " ") for e in ("고", "고요", "구요", "니까", "니까요")),
         # as the regions say it: 혀, 해유 (Chungcheong), 하이소 (Gyeongsang), 해부러,
         # 하랑께 (Jeolla), 헙서 (Jeju)
         "혀", "혀유", "해유", "하세유", "하이소", "해부러", "해뿌라", "하랑께", "허랑께", "헙서",
         "허라", "해라마",
         *(f"해{a}" for a in ALLOWED))
"""하다's affirmative forms after a noun ("확인해 주세요", "진행할게요", "송금하자")."""
NOMINAL = ("요", "이요", "입니다", "이에요", "이예요", "임", "ㄱ", "ㄱㄱ")
"""A noun said on its own, politely ("확인이요", "진행ㄱ")."""
VOWEL = ("요", "용", "라", "자", "ㄱ", "ㄱㄱ", *(f" {r}" for r in REQUEST), *REQUEST, *ALLOWED,
          "버려", " 버려", "셈", "삼", "세요", "세용", "시죠", "뿌라", "삐라", "라고", "라고요",
          "라구요", "라니까", "라니까요", "겠습니다", "겠어요",
          *(f"{g}달라{e}" for g in ("", " ") for e in ("고", "고요", "구요", "니까", "니까요")),
          # as the regions say it: 보내유, 보내이소, 보내부러, 보내랑께, 보내소
          "유", "이소", "부러", "뿌러", "불어", "랑께", "라니께", "소", "라마")
"""After a word ending in a vowel: 보내요, 보내라, 보내자, 보내 주세요, 보내도 돼요, 보내셈,
보내시죠, 보내뿌라, 보내겠습니다, and insisting: 보내라고요, 보내라니까, 보내 달라고요 (with
anyone named before it, someone else's words: no decision)."""

NEG_HADA = ("하지 마", "하지 마요", "하지 마세요", "하지 말아", "하지 말아요", "하지 말아줘",
             "하지 말아 주세요", "하지 말아주세요", "하지 말라고", "하지 말자", "하지 않을래",
             "하지 않을게요",
             # formal: "이체하지 마십시오", "송금하지 않겠습니다"
             "하지 마십시오", "하지 마시오", "하지 말아 주십시오", "하지 말아주십시오",
             "하지 않겠습니다", "하지 않겠어요")
"""하다's negated imperatives after a noun ("이체하지 마세요"): a cancel."""
NEG_VOWEL = ("지 마", "지 마요", "지 마세요", "지 말아", "지 말아요", "지 말아줘",
              "지 말아 주세요", "지 말아주세요", "지 말자", "지 말라고",
              # formal: "보내지 마십시오", "보내지 않겠습니다"
              "지 마십시오", "지 마시오", "지 말아 주십시오", "지 말아주십시오", "지 않겠습니다",
              "지 않겠어요",
              # as the regions say it
              "지 마라", "지 마이소", "지 마소", "지 맙서", "지 마유", "지 말어", "지 말랑께")
"""Negated imperatives after a verb stem ("보내지 마")."""
NEG_WILL = ("래", "래요", "게", "게요", "께", "께요", "란다", "라요", "래유", "게유", "께유",
            " 거예요", " 거에요", " 거야", " 겁니다", " 거임")
""""안 보낼래", "안 할게요", "안 살 거예요": attached to a stem given a final ㄹ."""

__all__ = ["ALLOWED", "HADA", "NEG_HADA", "NEG_VOWEL", "NEG_WILL", "NOMINAL", "REQUEST", "VOWEL"]
