"""Which FTS5 tokenization ranks Korean queries well: ours (character bigrams) against
FTS5's `trigram` tokenizer and its `unicode61` word tokenizer, on the shipped test
knowledge (tests/fixtures/knowledge) and the questions below, each with the section that
answers it.

- ``bigram``: engine/retrieval (bigrams in runs of Korean, words otherwise; any term)
- ``trigram words``: a `trigram` table; the query's words of 3+ characters, any of them
  (FTS5 matches a trigram term as a substring; shorter words cannot match at all)
- ``trigram grams``: the same table; every trigram of the query's words, any of them
- ``unicode61``: a `unicode61` table; the query's words, any of them

Reported: hit@1 (the answering section ranked first), MRR over the top 3, questions with
no hit at all, and the median query time. Then the cost at FL108's limit: 1 MiB of Korean
markdown (the test documents repeated) indexed, loaded and searched.
Run: python bench/retrieval_ko.py [--mib 1]
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.retrieval import KnowledgeIndex, build_index, read_chunks, source_files  # noqa: E402

KNOWLEDGE = ROOT / "tests" / "fixtures" / "knowledge"
# question -> the heading (last part) of the section that answers it
QUESTIONS = {
    "노트북 추천해줘": "학생용 노트북 스터디15",  # any laptop counts, see LAPTOPS
    "가벼운 노트북 있어?": "가벼운 울트라북 에어14",
    "게임용 노트북": "게이밍 노트북 스톰16",
    "게이밍 노트북 가격": "게이밍 노트북 스톰16",
    "학생 할인 되나요": "학생용 노트북 스터디15",
    "배터리 오래 가는 노트북": "가벼운 울트라북 에어14",
    "무선 이어폰 방수 돼?": "무선 이어폰 버즈프로",
    "노이즈 캔슬링 헤드폰": "헤드폰 사일런스700",
    "이어폰 충전 시간": "무선 이어폰 버즈프로",
    "노트북 가방": "노트북 백팩 커뮤터",
    "가죽 가방 있어요?": "가죽 토트백",
    "방수 백팩": "노트북 백팩 커뮤터",
    "배송 얼마나 걸려요": "배송 기간",
    "언제 도착해?": "배송 기간",
    "배송비 얼마야": "무료배송 기준",
    "무료배송 조건": "무료배송 기준",
    "제주도 배송": "제주·도서산간",
    "환불은 언제까지 돼?": "환불 기간",
    "환불 기간이 어떻게 되나요": "환불 기간",
    "교환하고 싶어요": "교환 방법",
    "교환 배송비": "교환 방법",
    "환불 안 되는 경우": "환불이 안 되는 경우",
    "사용한 상품도 환불돼?": "환불이 안 되는 경우",
    "오후에 주문하면 언제 출고돼": "배송 기간",
}
LAPTOPS = {"가벼운 울트라북 에어14", "게이밍 노트북 스톰16", "학생용 노트북 스터디15"}
Search = Callable[[str], list[str]]


def _fts(tokenizer: str) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE c USING fts5(h, b, heading UNINDEXED, "
                 f"tokenize = '{tokenizer}')")
    rows = [(c.heading, c.text, c.heading) for c in read_chunks(source_files(KNOWLEDGE,
                                                                              KNOWLEDGE))]
    conn.executemany("INSERT INTO c VALUES (?, ?, ?)", rows)
    return conn


def _searcher(conn: sqlite3.Connection, terms: Callable[[str], list[str]]) -> Search:
    def search(query: str) -> list[str]:
        found = [t for t in dict.fromkeys(terms(query)) if t]
        if not found:
            return []
        expression = " OR ".join('"' + t.replace('"', '""') + '"' for t in found)
        rows = conn.execute("SELECT heading FROM c WHERE c MATCH ? ORDER BY "
                            "bm25(c, 3.0, 1.0) LIMIT 3", (expression,)).fetchall()
        return [r[0] for r in rows]
    return search


def _words(query: str) -> list[str]:
    return re.findall(r"[^\W_]+", query.casefold())


def _grams(query: str) -> list[str]:
    return [w[i:i + 3] for w in _words(query) if len(w) >= 3 for i in range(len(w) - 2)]


def strategies(tmp: Path) -> dict[str, Search]:
    target = tmp / "index.sqlite"
    build_index(source_files(KNOWLEDGE, KNOWLEDGE), target)
    ours = KnowledgeIndex.load(target)
    trigram, words = _fts("trigram"), _fts("unicode61")
    return {
        "bigram (flowctl)": lambda q: [h.heading for h in ours.search(q, 3)],
        "trigram words": _searcher(trigram, lambda q: [w for w in _words(q) if len(w) >= 3]),
        "trigram grams": _searcher(trigram, _grams),
        "unicode61 words": _searcher(words, _words),
    }


def score(search: Search) -> tuple[int, float, int, float]:
    hits1, rr, empty, times = 0, 0.0, 0, []
    for question, expected in QUESTIONS.items():
        good = LAPTOPS if question == "노트북 추천해줘" else {expected}
        started = time.perf_counter()
        ranked = [h.rsplit(" > ", 1)[-1] for h in search(question)]
        times.append((time.perf_counter() - started) * 1e3)
        empty += not ranked
        rank = next((i for i, h in enumerate(ranked, 1) if h in good), None)
        hits1 += rank == 1
        rr += 1 / rank if rank else 0.0
    return hits1, rr / len(QUESTIONS), empty, statistics.median(times)


def scale(tmp: Path, mib: float) -> None:
    """Index ``mib`` MiB of markdown: build time, index size, load time, query times."""
    docs = tmp / "big"
    docs.mkdir()
    text = "".join(f.path.read_text(encoding="utf-8") + "\n"
                   for f in source_files(KNOWLEDGE, KNOWLEDGE))
    copies = int(mib * 1024 * 1024 / len(text.encode()))
    for i in range(copies):
        (docs / f"doc{i:04}.md").write_text(text, encoding="utf-8")
    files = source_files(docs, tmp)
    size = sum(f.size for f in files) / 1024 / 1024
    started = time.perf_counter()
    chunks = build_index(files, tmp / "big.sqlite")
    built = time.perf_counter() - started
    started = time.perf_counter()
    index = KnowledgeIndex.load(tmp / "big.sqlite")
    loaded = time.perf_counter() - started
    times = []
    for question in QUESTIONS:
        started = time.perf_counter()
        index.search(question, 3)
        times.append((time.perf_counter() - started) * 1e3)
    print(f"\n{size:.2f} MiB of markdown in {len(files)} files, {chunks} chunks: built in "
          f"{built:.2f} s, index {(tmp / 'big.sqlite').stat().st_size / 1024 / 1024:.1f} MiB, "
          f"loaded in {loaded * 1000:.0f} ms; query median {statistics.median(times):.2f} ms, "
          f"max {max(times):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=float, default=1.0, help="size of the scale run (0: skip)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        table = strategies(Path(tmp))
        print(f"{len(QUESTIONS)} Korean questions, "
              f"{len(list(read_chunks(source_files(KNOWLEDGE, KNOWLEDGE))))} chunks\n")
        print("| strategy | hit@1 | MRR@3 | no hit | median query |")
        print("|---|---|---|---|---|")
        for name, search in table.items():
            hits1, mrr, empty, median = score(search)
            print(f"| {name} | {hits1}/{len(QUESTIONS)} | {mrr:.2f} | {empty} | "
                  f"{median * 1000:.0f} µs |")
        if args.mib:
            scale(Path(tmp), args.mib)


if __name__ == "__main__":
    main()
