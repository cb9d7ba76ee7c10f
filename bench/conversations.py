"""The transfer conversations every benchmark replays: single,
missing amount, rejected amount, correction at READY, batch, batch with a cancel and a
missing amount, small talk and the history question."""

CONVERSATIONS: list[list[str]] = [
    ["엄마한테 1만원 보내줘", "확인"],
    ["엄마한테 보내줘", "3만원", "확인"],
    ["엄마한테 보내줘", "마이너스 천원", "5천원", "취소"],
    ["엄마한테 1만원 보내줘", "음 글쎄", "아니 3만원으로 해줘", "확인"],
    ["엄마한테 만원, 용걸이한테 5만원 보내줘", "확인", "확인"],
    ["엄마한테 만원, 용걸이한테 보내줘", "취소", "3만원", "확인"],
    ["안녕하세요", "총 얼마 보냈어?"],
]
