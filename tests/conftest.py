"""Shared fixtures: the shipped transfer service compiled once, engines on fresh stores."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore

ROOT = Path(__file__).resolve().parents[1]
TODAY = dt.datetime(2026, 11, 22, 9, 0).astimezone()


@pytest.fixture(scope="session")
def transfer() -> CompiledService:
    return compile_file(ROOT / "flows" / "transfer.yaml")


@pytest.fixture
def engine(transfer: CompiledService) -> Engine:
    return Engine(transfer, store=MemoryStore(), settings=load_settings({}), clock=lambda: TODAY)
