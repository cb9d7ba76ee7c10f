"""Intents' examples -> a small linear model that tells intents apart on new phrasings.

Keywords and example similarity (``intents.py``) are sure of messages close to what the
author wrote. Users paraphrase: "how much is left in my checking" shares few letters with
"what's my balance", yet its words ("left", "checking") are ones only the balance intent's
examples use. This model learns which words and word pieces tell the intents apart:

- features: each word (English words lose a plural/-ed/-ing ending) and the character
  2-, 3- and 4-grams of each word with its edges (" ba", "bal", ..., "ce "), so a typo
  ("balnce") or a Korean ending ("보내줄래", "보내주세요") still shares most of them;
- training texts of an intent: its examples, keywords and description; and a class of
  everyday messages that ask for nothing (``BACKGROUND``: greetings, thanks, small talk);
- multinomial logistic regression, trained at compile time by a fixed number of passes of
  stochastic gradient descent in a fixed order (the same flow always gives the same model),
  on L2-normalised log counts; the output is a probability per intent.

It needs two or more intents with training texts: it only tells intents apart, it never
says whether a message is about any of them (``intents.py`` keeps that gate: a message must
also look like the intent's examples at all).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.precompiled import re_compile

from .words import normalise

PASSES, STEP, DECAY = 25, 0.8, 1e-3
"""Training: passes over the texts, the gradient step, the weight decay after each pass."""
_LATIN_WORD = re_compile(r"[a-z]+$")
_ENDINGS = ("ing", "ed", "es", "s")


def features(text: str) -> dict[str, float]:
    """A message's features, L2-normalised log counts.

    >>> sorted(features("Cards!"))[:4]
    [' c', ' ca', ' car', 'ar']
    """
    said = []
    for word in normalise(text).split():
        said.append("w:" + _stem(word))
        padded = f" {word} "
        for n in (2, 3, 4):
            said.extend(padded[i : i + n] for i in range(len(padded) - n + 1))
    counts = Counter(said)
    weighted = {f: 1.0 + math.log(c) for f, c in counts.items()}
    norm = math.sqrt(sum(v * v for v in weighted.values())) or 1.0
    return {f: v / norm for f, v in weighted.items()}


def _stem(word: str) -> str:
    if _LATIN_WORD.match(word):
        for ending in _ENDINGS:
            if len(word) > len(ending) + 2 and word.endswith(ending):
                return word[: -len(ending)]
    return word


@dataclass(frozen=True, slots=True)
class IntentModel:
    """Weights per feature (one per intent, in ``names`` order) and a bias per intent."""

    names: tuple[str, ...]
    weights: Mapping[str, tuple[float, ...]]
    bias: tuple[float, ...]

    def probabilities(self, text: str) -> dict[str, float]:
        """Intent -> probability that ``text`` asks for it, of these intents (sums to 1)."""
        chances = _softmax(self.weights, self.bias, features(text))
        return dict(zip(self.names, chances, strict=True))


def _softmax(weights: Mapping[str, Sequence[float]], bias: Sequence[float],
             x: Mapping[str, float]) -> list[float]:
    """Each class's probability for the features ``x``."""
    z = list(bias)
    for feature, value in x.items():
        row = weights.get(feature)
        if row is not None:
            z = [a + w * value for a, w in zip(z, row, strict=True)]
    top = max(z)
    exp = [math.exp(v - top) for v in z]
    total = sum(exp)
    return [e / total for e in exp]


ELSE = ""
"""The class of messages that ask for none of the intents (``BACKGROUND``)."""
BACKGROUND = (
    "hello", "hi there", "hey", "good morning", "thanks", "thank you so much", "ok", "okay",
    "how are you", "who are you", "what can you do", "are you a bot", "let me think",
    "hold on a second", "wait", "hmm", "lol", "nice", "tell me a joke", "i'm bored",
    "that's great", "what do you mean", "sorry", "bye", "see you later",
    "안녕하세요", "안녕", "고마워요", "감사합니다", "네", "응", "잠깐만요", "음", "글쎄요",
    "뭐 하고 있어", "너 누구야", "심심해", "좋네요", "뭐라고요", "미안해요", "잘 있어",
    "나중에 봐요", "이거 뭐야",
)
"""Everyday messages that ask for nothing: a class of their own in training, so a message
like none of the intents goes there instead of to the least unlike intent."""


def train(texts: Mapping[str, Sequence[str]]) -> IntentModel | None:
    """A model of the intents with training texts; None with fewer than two.

    >>> model = train({"balance": ["what's my balance", "how much money do I have"],
    ...                "transfer": ["send money to my sister", "transfer 200 dollars"]})
    >>> best = lambda text: max(model.probabilities(text).items(), key=lambda i: i[1])[0]
    >>> best("what is my balance now"), best("send 50 dollars to my brother")
    ('balance', 'transfer')
    >>> best("hello there")  # like none of them: the everyday messages' class
    ''
    """
    names = tuple(n for n, t in texts.items() if any(s.strip() for s in t))
    if len(names) < 2:
        return None
    texts = {**texts, ELSE: BACKGROUND}
    names += (ELSE,)
    classes = range(len(names))
    rows: dict[str, list[float]] = {}
    data = [(tuple((rows.setdefault(f, [0.0] * len(names)), v) for f, v in x.items()), k)
            for k, n in enumerate(names) for x in map(features, filter(str.strip, texts[n]))]
    bias = [0.0] * len(names)
    order = list(range(len(data)))
    shuffle = random.Random(0).shuffle  # a fixed order: the same flow, the same model
    for _ in range(PASSES):
        shuffle(order)
        for i in order:
            x, label = data[i]
            z = bias[:]
            for row, v in x:
                for k in classes:
                    z[k] += row[k] * v
            top = max(z)
            exp = [math.exp(v - top) for v in z]
            total = sum(exp)
            for k in classes:
                gradient = exp[k] / total - (k == label)
                if -1e-3 < gradient < 1e-3:
                    continue  # learned already: most classes, once the first passes are done
                bias[k] -= STEP * gradient * 0.1
                step = STEP * gradient
                for row, v in x:
                    row[k] -= step * v
        for row in rows.values():
            for k in classes:
                row[k] *= 1 - DECAY
    return IntentModel(names, {f: tuple(r) for f, r in rows.items()}, tuple(bias))
