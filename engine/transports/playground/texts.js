// The playground's own words, in the served flow's locale (ko, en); the page's HTML marks
// each text with data-text="key" (or data-placeholder / data-label) and `apply` fills them.
// Messages the engine also says (too long, ...) are worded as the engine's texts are.

const TEXTS = {
  ko: {
    newSession: "새 세션",
    sessions: "세션",
    forget: "삭제",
    forgetTitle: "이 세션을 서버에서 지워요",
    rawSession: "원본 세션",
    loginLabel: "이 서버는 API 키가 필요해요",
    keyPlaceholder: "API 키",
    login: "로그인",
    wrongKey: "키가 올바르지 않아요.",
    tryLater: "잠시 후 다시 시도해 주세요.",
    loginNeeded: "로그인이 필요해요.",
    conversation: "대화",
    message: "메시지",
    placeholder: "메시지를 입력하세요",
    placeholderExample: "메시지를 입력하세요 (예: {example})",
    send: "보내기",
    trySaying: "이렇게 말해 보세요",
    tooLong: "메시지가 너무 길어요. {limit}자 이내로 입력해 주세요.",
    disconnected: "연결이 끊겼어요. 다시 시도해 주세요.",
    serverFailed: "서버가 이 메시지에 답하지 못했어요(서버 오류). 다시 시도해 주세요.",
    noAnswer: "답을 받지 못했어요",
    task: "작업 {index}/{total}",
    state: "상태",
    slots: "슬롯",
    slotErrors: "슬롯 오류",
    taskQueue: "작업 대기열",
    none: "없음",
    empty: "비어 있음",
    graph: "단계 그래프",
    trace: "추적",
    traceTurn: "턴 {turn} · {id}",
    total: "전체",
    firstToken: "첫 토큰",
    agent: "에이전트",
    model: "모델",
    tokens: "토큰",
    retries: "재시도",
    error: "오류",
    hooks: "훅",
    completed: "완료된 작업",
    events: "이벤트",
    turn: "턴 {turn}",
    untitled: "(새 대화)",
    runs: "백그라운드 실행",
    cancelRun: "실행 취소",
    attempt: "시도 {attempt}",
    exitCode: "종료 코드 {code}",
  },
  en: {
    newSession: "New session",
    sessions: "Sessions",
    forget: "Forget",
    forgetTitle: "Delete this session on the server",
    rawSession: "raw session",
    loginLabel: "This server needs an API key",
    keyPlaceholder: "API key",
    login: "Log in",
    wrongKey: "That key is not valid.",
    tryLater: "Please try again in a moment.",
    loginNeeded: "Please log in.",
    conversation: "Conversation",
    message: "Message",
    placeholder: "Type a message",
    placeholderExample: "Type a message (e.g. {example})",
    send: "Send",
    trySaying: "Try saying",
    tooLong: "That message is too long; please keep it under {limit} characters.",
    disconnected: "The connection dropped. Please try again.",
    serverFailed: "The server could not answer this message (a server error). Please try again.",
    noAnswer: "no answer",
    task: "task {index}/{total}",
    state: "State",
    slots: "slots",
    slotErrors: "slot errors",
    taskQueue: "task queue",
    none: "none",
    empty: "empty",
    graph: "Stage graph",
    trace: "Trace",
    traceTurn: "turn {turn} · {id}",
    total: "total",
    firstToken: "first token",
    agent: "agent",
    model: "model",
    tokens: "tokens",
    retries: "retries",
    error: "error",
    hooks: "Hooks",
    completed: "Completed tasks",
    events: "Events",
    turn: "turn {turn}",
    untitled: "(new conversation)",
    runs: "Background runs",
    cancelRun: "Cancel run",
    attempt: "attempt {attempt}",
    exitCode: "exit code {code}",
  },
};

let current = TEXTS.ko;

export function setLocale(locale) {
  current = TEXTS[locale] || TEXTS.en;
  document.documentElement.lang = TEXTS[locale] ? locale : "en";
}

export function t(key, values = {}) {
  const text = current[key] ?? TEXTS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

// Fill every marked element of the page with the current locale's words.
export function apply(root = document) {
  for (const node of root.querySelectorAll("[data-text]")) node.textContent = t(node.dataset.text);
  for (const node of root.querySelectorAll("[data-placeholder]")) {
    node.placeholder = t(node.dataset.placeholder);
  }
  for (const node of root.querySelectorAll("[data-label]")) {
    node.setAttribute("aria-label", t(node.dataset.label));
  }
}
