"""``EvalReport``s -> text for a terminal, JSON, or JUnit XML, and whether they pass the gates.

The gates (``flowctl eval``): no wrong settlement (``max_wrong``, default 0), every decision
taken right, and at least ``fail_under`` percent of the cases read right.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path as FilePath
from xml.etree import ElementTree

from engine.testing.evaluate import (
    CaseResult,
    EvalCase,
    EvalReport,
    find_eval_files,
    run_eval,
    summary,
    tags,
)


@dataclass(frozen=True, slots=True)
class Gates:
    fail_under: float = 0.0
    """Percent of cases read right, at least."""
    max_wrong: int = 0
    """Wrong settlements, at most."""


async def evaluate_paths(paths: Sequence[str | FilePath], *, live: bool = False,
                         env: Mapping[str, str] | None = None,
                         patterns: Sequence[str] = ()) -> list[EvalReport]:
    """Run every eval file under ``paths`` (a flow file stands for its ``.eval.yaml``);
    ``patterns`` keep the cases whose tag or message contains one of them."""
    folded = [p.casefold() for p in patterns]

    def chosen(case: EvalCase) -> bool:
        words = f"{case.tag or ''} {case.message}".casefold()
        return not folded or any(p in words for p in folded)

    return [await run_eval(path, live=live, env=env, select=chosen)
            for path in find_eval_files(paths)]


def failures(report: EvalReport, gates: Gates) -> list[str]:
    """Why ``report`` fails the gates; [] when it passes."""
    out = []
    if len(report.wrong) > gates.max_wrong:
        out.append(f"{len(report.wrong)} wrong settlement(s) (at most {gates.max_wrong})")
    precision = report.decision_precision
    if precision is not None and precision < 1.0:
        out.append(f"decision precision {_pct(precision)} (must be 100 %)")
    accuracy = report.accuracy or 0.0
    if accuracy * 100 < gates.fail_under:
        out.append(f"{_pct(accuracy)} read right (at least {gates.fail_under:g} %)")
    return out


def _pct(share: float | None) -> str:
    return "-" if share is None else f"{share * 100:.1f} %"


def text(report: EvalReport, gates: Gates, *, verbose: bool = False) -> Iterator[str]:
    """The report for a terminal: figures, classes, then the cases that went wrong."""
    figures = summary(report)
    precision, recall = report.slot_scores()
    right = sum(r.right for r in report.results)
    yield (f"{report.path} ({figures['mode']}, flow {report.flow}): "
           f"{len(report.results)} case(s)")
    yield f"  read right          {right}/{len(report.results)}  {_pct(report.accuracy)}"
    yield f"  intents             {_pct(report.intent_accuracy)}"
    yield f"  slots               precision {_pct(precision)}, recall {_pct(recall)}"
    yield f"  decisions           precision {_pct(report.decision_precision)}"
    yield (f"  wrong settlements   {len(report.wrong)} (harmful {len(report.harmful)})")
    yield (f"  settled by rules    {_pct(report.by_rules)} (the rest went to the model, or "
           "offline to a question back)")
    yield "  by class (read right / cases):"
    for tag, cases, ok in tags(report.results):
        yield f"    {tag:<34} {ok}/{cases}"
    wrong = report.wrong
    if wrong:
        yield "  wrong settlements (the rules settled these, and read them wrong):"
        yield from _cases(wrong)
    unsettled = [r for r in report.results if not r.right and not r.wrong_settlement]
    if unsettled and verbose:
        yield "  not read right, left to the model (or offline to a question back):"
        yield from _cases(unsettled)
    elif unsettled:
        yield f"  {len(unsettled)} case(s) left to the model were not read right (-v lists them)"
    confusion = [(k, n) for k, n in sorted(report.confusion().items()) if k[0] != k[1]]
    if confusion:
        yield "  intents confused (expected -> read: cases):"
        for (want, got), n in confusion:
            yield f"    {want} -> {got}: {n}"
    for reason in failures(report, gates):
        yield f"  FAIL: {reason}"


def _cases(results: Sequence[CaseResult]) -> Iterator[str]:
    for r in results:
        mark = " HARMFUL" if r.harmful else ""
        yield f"    {r.where}: {r.case.message!r}{mark}"
        for problem in r.problems:
            yield f"      {problem}"


def json_report(reports: Sequence[EvalReport], gates: Gates) -> str:
    """Every figure and every case, as JSON."""
    return json.dumps([{**summary(r), "passed": not failures(r, gates),
                        "failures": failures(r, gates),
                        "classes": [{"tag": t, "cases": n, "right": ok}
                                    for t, n, ok in tags(r.results)],
                        "cases": [_case_json(c) for c in r.results]}
                       for r in reports], ensure_ascii=False, indent=2)


def _case_json(r: CaseResult) -> dict[str, object]:
    return {"where": r.where, "message": r.case.message, "tag": r.case.tag,
            "expected": r.case.expect.model_dump(exclude_unset=True),
            "read": dict(r.reading), "right": r.right,
            "wrong_settlement": r.wrong_settlement, "harmful": r.harmful,
            "problems": list(r.problems)}


def junit_xml(reports: Sequence[EvalReport]) -> str:
    """A test suite per eval file, a test case per message; a wrong settlement fails, a
    message left to the model and not read right is skipped (it is the model's to read)."""
    suites = ElementTree.Element("testsuites", name="flowctl eval")
    for report in reports:
        suite = ElementTree.SubElement(
            suites, "testsuite", name=report.path, tests=str(len(report.results)),
            failures=str(len(report.wrong)),
            skipped=str(sum(not r.right and not r.wrong_settlement for r in report.results)))
        for r in report.results:
            case = ElementTree.SubElement(suite, "testcase", classname=r.case.tag or "eval",
                                          name=f"{r.where} {r.case.message}")
            if r.wrong_settlement:
                failure = ElementTree.SubElement(case, "failure", type="wrong_settlement",
                                                 message="; ".join(r.problems))
                failure.text = "harmful" if r.harmful else "wrong"
            elif not r.right:
                ElementTree.SubElement(case, "skipped", message="; ".join(r.problems))
    return ElementTree.tostring(suites, encoding="unicode")


__all__ = ["Gates", "evaluate_paths", "failures", "json_report", "junit_xml", "text"]
