"""The start-up lines say which models are live and by which setting, or why they run
offline and which swap would make them live."""

from __future__ import annotations

import logging

import pytest

from engine.compiler.compiled import CompiledService
from engine.runtime.calls.models import ModelPool


def lines(service: CompiledService, env: dict[str, str],
          caplog: pytest.LogCaptureFixture) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="flowctl.models"):
        ModelPool(service, env)
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("model ")]


def test_live_and_offline_lines(transfer: CompiledService,
                                caplog: pytest.LogCaptureFixture) -> None:
    names = sorted(transfer.models)
    assert names, "the transfer service declares models"
    offline = lines(transfer, {}, caplog)
    assert len(offline) == len(names) and all("runs offline" in x for x in offline)
    assert not any("swap with" in x for x in offline)

    name = names[0]
    var = f"FLOWCTL_MODEL_{name.upper()}"
    live = lines(transfer, {"OPENAI_API_KEY": "sk-test", var: "openai:gpt-4.1-mini"}, caplog)
    assert f"model {name}: openai gpt-4.1-mini (OPENAI_API_KEY)" in live

    hinted = lines(transfer, {"ANTHROPIC_API_KEY": "k", var: "openai:gpt-4.1-mini"}, caplog)
    mine = next(x for x in hinted if x.startswith(f"model {name} "))
    assert "runs offline" in mine
    assert f"(ANTHROPIC_API_KEY is set: swap with {var}=anthropic:MODEL)" in mine
