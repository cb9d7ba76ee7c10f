"""Shared fixtures: no network beyond loopback for any test, the shipped transfer service
compiled once, engines on fresh stores."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.compiler import compile_file
from engine.compiler.compiled import CompiledService
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.store import MemoryStore
from tests.fakes.bank import Bank

ROOT = Path(__file__).resolve().parents[1]
TODAY = dt.datetime(2026, 11, 22, 9, 0).astimezone()

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 (also IPv4-mapped, ::ffff:127.x.y.z) and the name ``localhost``."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # any other name, or a scoped IPv6 address
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def _check(sock: socket.socket, address: object) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return  # AF_UNIX and other local families
    host = str(address[0]) if isinstance(address, tuple) and address else repr(address)
    if not is_loopback(host):
        raise OSError(f"network access to {host} is blocked in tests; use tests.fakes")


def _connect(self: socket.socket, address: object) -> None:
    _check(self, address)
    return _real_connect(self, address)  # type: ignore[arg-type]


def _connect_ex(self: socket.socket, address: object) -> int:
    _check(self, address)
    return _real_connect_ex(self, address)  # type: ignore[arg-type]


@pytest.fixture(scope="session", autouse=True)
def no_network() -> Iterator[None]:
    """Every test (and every fixture, session-scoped ones too) may reach loopback only.

    Subprocesses are not covered: tests that start one must scrub its environment.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", _connect)
        patch.setattr(socket.socket, "connect_ex", _connect_ex)
        yield


@pytest.fixture(scope="session")
def transfer() -> CompiledService:
    return compile_file(ROOT / "flows" / "transfer.yaml")


@pytest.fixture
def bank() -> Iterator[Bank]:
    """The counting loopback bank (tests/fakes/bank.py), running for one test."""
    running = Bank().start()
    yield running
    running.stop()


@pytest.fixture
def engine(transfer: CompiledService) -> Engine:
    return Engine(transfer, store=MemoryStore(), settings=load_settings({}), clock=lambda: TODAY)
