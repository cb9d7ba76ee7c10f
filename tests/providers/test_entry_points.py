"""A provider added by an installed package (entry-point group ``flowctl.providers``).

The package here is real as far as Python's packaging goes: a ``*.dist-info`` directory
with an ``entry_points.txt`` and a module, on ``sys.path``, found by
``importlib.metadata`` exactly as a pip-installed one. Its factory wraps the scripted
provider, so the test needs no network. A flow names the provider like a built-in one.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.errors import FlowDefinitionError
from engine.registry import provider_names
from engine.runtime.calls.models import ModelPool
from engine.runtime.engine import Engine
from engine.store import MemoryStore

FLOW = """
service: plugged
default_flow: chat
models:
  talk: {provider: PROVIDER, model: acme-small, fixture: replies.yaml}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT:
        steps:
          - {agent: chat, prompt: chat, model: talk, fallback: offline}
messages:
  offline: (offline)
"""
MODULE = '''
from engine.providers.scripted import ScriptedProvider

def factory(env, fixture):
    """An acme model: here, the scripted replies of the flow's fixture."""
    return ScriptedProvider(fixture)
'''


def install(root: Path, monkeypatch: pytest.MonkeyPatch, points: str) -> None:
    """A package ``flowctl-acme`` installed into ``root`` (on sys.path)."""
    root.mkdir()
    (root / "acme_flowctl.py").write_text(MODULE, encoding="utf-8")
    info = root / "flowctl_acme-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: flowctl-acme\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent(points), encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))


def flow(tmp_path: Path, provider: str) -> Path:
    replies = '- match: "."\n  reply: "acme says hi"\n  repeat: true\n'
    (tmp_path / "replies.yaml").write_text(replies, encoding="utf-8")
    (tmp_path / "prompts").mkdir(exist_ok=True)
    (tmp_path / "prompts" / "chat.j2").write_text("You are brief.", encoding="utf-8")
    path = tmp_path / "plugged.yaml"
    path.write_text(FLOW.replace("PROVIDER", provider), encoding="utf-8")
    return path


async def test_an_installed_provider_is_named_like_a_built_in_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(tmp_path / "site", monkeypatch, "[flowctl.providers]\nacme = acme_flowctl:factory\n")
    assert "acme" in provider_names()
    engine = Engine(compile_file(flow(tmp_path, "acme")), store=MemoryStore())
    assert engine.models.get("talk") is not None
    assert (await engine.reply("s", "hello")).message == "acme says hi"


def test_a_provider_no_package_adds_is_still_unknown(tmp_path: Path) -> None:
    with pytest.raises(FlowDefinitionError, match="unknown provider `acmee`"):
        compile_file(flow(tmp_path, "acmee"))


def test_a_package_whose_factory_fails_leaves_the_model_offline_with_the_reason(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(tmp_path / "site", monkeypatch, "[flowctl.providers]\nacme = acme_flowctl:nope\n")
    pool = ModelPool(compile_file(flow(tmp_path, "acme")), {})
    assert "talk" not in pool.live
    assert "could not load it" in pool.offline["talk"] and "acme_flowctl:nope" in \
        pool.offline["talk"]
