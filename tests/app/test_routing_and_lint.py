"""The router's rules as a table, and every app finding `flowctl lint` reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli import main
from engine.app.load import analyse_app
from engine.app.router import Route, Router
from tests.conftest import ROOT

SEED = Router({"transfer": ["이체", "송금", "보내", "얼마 보냈"],
               "balance": ["잔액", "얼마", "조회"], "card": ["카드", "신청", "발급"]}, "transfer")


@pytest.mark.parametrize("message,active,mid,suspended,expected", [
    ("엄마한테 만원 보내줘", None, False, None, Route("transfer", "keyword", "보내")),
    ("잔액 얼마야", None, False, None, Route("balance", "keyword", "잔액")),
    ("총 얼마 보냈어?", None, False, None, Route("transfer", "keyword", "얼마 보냈")),  # longest
    ("카드 신청", None, False, None, Route("card", "keyword", "카드")),
    ("안녕", None, False, None, Route("transfer", "default")),
    ("3만원", "transfer", True, None, Route("transfer", "mid_flow")),
    ("확인", "card", True, None, Route("card", "mid_flow")),
    ("잔액 알려줘", "transfer", True, None, Route("balance", "switch", "잔액")),
    ("얼마 보낼지 잔액 보고 이체할래", "transfer", True, None, Route("transfer", "mid_flow")),
    ("3만원", "balance", False, "transfer", Route("transfer", "resume")),
    ("카드 발급", "balance", False, "transfer", Route("card", "keyword", "카드")),
])
def test_routes(message: str, active: str | None, mid: bool, suspended: str | None,
                expected: Route) -> None:
    assert SEED.route(message, active, mid_flow=mid, suspended=suspended) == expected


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "app.yaml"
    path.write_text(text.replace("FLOWS", str(ROOT / "flows")), encoding="utf-8")
    return path


@pytest.mark.parametrize("text,expected", [
    ("app: a\nservices:\n  t: {flow: FLOWS/transfer.yaml}\ndefault: x\n",
     ["4:10 FL080 default service `x` is not one of the services (t)"]),
    ("app: a\nservices:\n  t: {flow: FLOWS/transfer.yaml, keywords: [카드]}\n"
     "  c: {remote: 'http://127.0.0.1:1/v1/agent', keywords: [카드]}\ndefault: t\n",
     ["4:57 FL081 keyword `카드` is claimed by services `t` and `c`; `t` (listed first) "
      "always gets it"]),
    ("app: a\nservices:\n  t: {flow: FLOWS/transfer.yaml}\n"
     "  c: {remote: 'http://127.0.0.1:1/v1/agent'}\ndefault: t\n",
     ["4:3 FL082 service `c` is not the default and claims no keyword: no message can "
      "reach it"]),
    ("app: a\nservices:\n  t: {flow: FLOWS/transfer.yaml}\n"
     "  c: {remote: '${NOT_SET_ANYWHERE}', keywords: [카드]}\ndefault: t\n",
     ["4:15 FL083 `NOT_SET_ANYWHERE` is not set, so service `c` has no URL"]),
    ("app: a\nservices:\n  t: {flow: nowhere.yaml}\ndefault: t\n",
     ["3:13 FL084 flow file `nowhere.yaml` of service `t` not found"]),
    ("app: a\nservices:\n  c: {remote: 'http://127.0.0.1:1/v1/agent'}\ndefault: c\n",
     ["2:1 FL085 the app has no local service"]),
    ("app: a\nservices:\n  t: {flow: FLOWS/transfer.yaml, remote: 'http://x'}\ndefault: t\n",
     ["3:6 FL016 a service takes exactly one of `flow`, `remote` or `a2a`"]),
    ("app: a\nservices:\n  t: {keyword: [x], flow: FLOWS/transfer.yaml}\ndefault: t\n",
     ["3:7 FL010 unknown key `keyword` in services.t"]),
])
def test_lint_findings(tmp_path: Path, text: str, expected: list[str]) -> None:
    _, findings = analyse_app(write(tmp_path, text), {})
    shown = [f"{f.location.line}:{f.location.column} {f.code} {f.message}" for f in findings]
    assert len(shown) == len(expected), shown
    for got, want in zip(shown, expected, strict=True):
        assert got.startswith(want), shown


def test_flowctl_lint_checks_app_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--strict", str(ROOT / "flows" / "bank.yaml")]) == 0
    bad = write(tmp_path, "app: a\nservices:\n  t: {flow: FLOWS/transfer.yaml}\ndefault: x\n")
    assert main(["lint", str(bad)]) == 1
    assert "FL080" in capsys.readouterr().out


def test_the_app_schema_is_generated_and_describes_every_key() -> None:
    import json

    from jsonschema import Draft202012Validator

    from engine.app.load import SCHEMA_PATH, render_schema
    from engine.dsl.load import load_file
    from tests.test_lint_editors import undescribed

    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_schema(), "run `flowctl schema`"
    schema = json.loads(render_schema())
    assert list(undescribed(schema)) == []
    bank, _ = load_file(ROOT / "flows" / "bank.yaml")
    assert list(Draft202012Validator(schema).iter_errors(bank)) == []
    assert (ROOT / "flows" / "bank.yaml").read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../schemas/app.schema.json")


def test_serve_refuses_a_bad_app_with_its_findings_or_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "app: a\nservices:\n  t: {flow: FLOWS/transfer.yaml}\ndefault: x\n")
    assert main(["serve", str(bad), "--port", "0", "--store", "memory://"]) == 2
    assert "FL080" in capsys.readouterr().err
    unset = write(tmp_path, "app: a\nservices:\n  t: {flow: FLOWS/transfer.yaml}\n"
                  "  c: {remote: '${NOT_SET_ANYWHERE}', keywords: [카드]}\ndefault: t\n")
    assert main(["serve", str(unset), "--port", "0", "--store", "memory://"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "NOT_SET_ANYWHERE" in err and len(err.splitlines()) == 1
