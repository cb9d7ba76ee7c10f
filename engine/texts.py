"""Built-in user-facing texts and progress labels per locale (defined once, below everything).

A service overrides a text (not a ``label_*``) by defining a message of the same name
(``empty_message``, ``message_too_long``, ``turn_failed``, ``slot_invalid``, ``ask_slot``,
``unclear``, the ``run_*`` texts of background runs); such a message sees only the values
the text takes (``limit``, ``slot``)."""

from __future__ import annotations

TEXTS: dict[str, dict[str, str]] = {
    "ko": {
        "empty_message": "질문을 입력해주세요.",
        "message_too_long": "메시지가 너무 길어요. {limit}자 이내로 입력해 주세요.",
        "rate_limited": "요청이 너무 많아요. {seconds}초 뒤에 다시 보내 주세요.",
        "turn_failed": "죄송해요, 처리 중 문제가 생겼어요. 잠시 후 다시 시도해 주세요.",
        "slot_invalid": "입력하신 값을 사용할 수 없어요.",
        "ask_slot": "{slot} 값을 알려주세요.",
        "not_yours": "이 대화에는 접근할 수 없어요.",
        "bad_context": "요청의 context를 사용할 수 없어요: {problems}",
        "action_pending": "요청하신 작업의 결과를 아직 확인하지 못했어요. 잠시 후 아무 말이나 "
                          "보내 주시면 결과부터 확인해 드릴게요.",
        "currency_mismatch": "{currency} 금액은 받을 수 없어요. {expected} 금액으로 알려주세요.",
        "date_unread": "'{said}'은(는) 날짜로 알아듣지 못했어요(예: '12월 1일', '다음 주 금요일'; "
                       "바로 하려면 '지금').",
        "model_missed": "지금은 답을 준비하는 데 시간이 걸려 말씀을 정확히 이해하지 못했어요.",
        "did_you_mean": "혹시 {option} 말씀이신가요?",
        "pending_meanwhile": "앞의 요청은 아직 결과를 확인하는 중이에요. 확인되는 대로 "
                             "알려드릴게요.",
        "pending_not_cancelled": "이미 보낸 요청이라 지금 취소할 수는 없어요. 결과가 확인되는 "
                                 "대로 알려드릴게요.",
        "untold_outcome": "지난 요청의 결과를 전해 드리지 못했을 수 있어 다시 알려드려요: "
                          "{outcome}",
        "action_done_unshown": "요청하신 작업은 처리됐어요. 다만 결과를 자세히 보여드리는 중에 "
                               "문제가 생겼어요.",
        "action_failed_unshown": "요청하신 작업은 처리되지 않았어요. 자세한 내용을 보여드리는 "
                                 "중에 문제가 생겼어요.",
        "repeated_request": "방금 같은 요청을 처리했어요. 한 번 더 하시려는 게 맞는지 "
                            "확인해 주세요.",
        "label_intent": "의도 파악 중",
        "label_understand": "정보 추출 중",
        "label_call": "실행 중",
        "label_agent": "응답 생성 중",
        "label_memory": "대화 요약 중",
        "label_retrieve": "문서 검색 중",
        "synthesis_failed": "죄송해요, 답변을 정리하지 못했어요. 다시 한 번 말씀해 주세요.",
        "unclear": "이해하지 못했어요. 다시 알려주세요.",
        "clarify": "어떤 걸 원하세요? {options} 중에서 골라 주세요.",
        "run_busy": "진행 중인 작업이 있어요 (run {run}). 끝나면 알려드릴게요. 멈추려면 "
                    "'취소'라고 말씀해 주세요.",
        "run_cancelled": "진행 중이던 작업을 취소했어요.",
        "run_cancelling": "작업 취소를 요청했어요. 곧 멈출 거예요.",
        "run_interrupted": "서버가 다시 시작되어 작업이 중단됐어요. 다시 시작하려면 말씀해 주세요.",
        "run_outdated": "대화가 이미 다른 단계로 넘어가서 작업을 시작하지 않았어요.",
    },
    "en": {
        "empty_message": "Please type a message.",
        "message_too_long": "That message is too long; please keep it under {limit} characters.",
        "rate_limited": "Too many messages; please send again in {seconds} seconds.",
        "turn_failed": "Sorry, something went wrong. Please try again in a moment.",
        "slot_invalid": "That value can't be used.",
        "ask_slot": "Please tell me the {slot}.",
        "not_yours": "This conversation is not available.",
        "bad_context": "The request's context can't be used: {problems}",
        "model_missed": "I couldn't work out what you meant in time.",
        "did_you_mean": "Did you mean {option}?",
        "pending_meanwhile": "I'm still checking the result of your earlier request; I'll "
                             "tell you as soon as I know.",
        "pending_not_cancelled": "That request was already sent, so it can't be cancelled "
                                 "now. I'll tell you how it ended as soon as I know.",
        "untold_outcome": "In case my last answer did not reach you: {outcome}",
        "action_done_unshown": "Your request went through, but something went wrong while "
                               "showing its details.",
        "action_failed_unshown": "Your request did not go through, and something went wrong "
                                 "while showing the details.",
        "repeated_request": "You just completed this same request. Please make sure you "
                            "want to do it again.",
        "action_pending": "I couldn't confirm the result of your request yet. Send any "
                          "message in a moment and I'll check it first.",
        "currency_mismatch": "I can't take an amount in {currency}; please give it in {expected}.",
        "date_unread": "I couldn't read '{said}' as a date (e.g. 'December 1', 'next Friday'; "
                       "'now' to go ahead right away).",
        "label_intent": "Finding intent",
        "label_understand": "Reading details",
        "label_call": "Running",
        "label_agent": "Writing reply",
        "label_memory": "Summarising",
        "label_retrieve": "Searching documents",
        "synthesis_failed": "Sorry, I couldn't put the answer together. Please ask again.",
        "unclear": "Sorry, I didn't get that. Could you say it again?",
        "clarify": "Which one do you mean: {options}?",
        "run_busy": "A task is still running (run {run}); I'll tell you when it ends. Say "
                    "'cancel' to stop it.",
        "run_cancelled": "The running task was cancelled.",
        "run_cancelling": "Asked the task to stop; it will end shortly.",
        "run_interrupted": "The server restarted and the task was interrupted. Tell me to "
                           "start it again.",
        "run_outdated": "The conversation had moved on, so the task did not start.",
    },
}


# texts a service may replace with a message of the same name, and the values each one sees
OVERRIDABLE_TEXTS: dict[str, tuple[str, ...]] = {
    "empty_message": (), "turn_failed": (), "slot_invalid": (), "unclear": (),
    "message_too_long": ("limit",), "rate_limited": ("seconds",), "ask_slot": ("slot",),
    "currency_mismatch": ("currency", "expected"), "date_unread": ("said",),
    "action_pending": (),
    "untold_outcome": ("outcome",), "repeated_request": (), "pending_not_cancelled": (),
    "action_done_unshown": (), "action_failed_unshown": (),
    "pending_meanwhile": (),
    "model_missed": (), "did_you_mean": ("option",),
    "clarify": ("options",), "synthesis_failed": (), "run_busy": ("run",), "run_cancelled": (),
    "run_cancelling": (), "run_interrupted": (), "run_outdated": (),
}


def text(locale: str, key: str, **values: object) -> str:
    return TEXTS.get(locale, TEXTS["en"])[key].format(**values)
