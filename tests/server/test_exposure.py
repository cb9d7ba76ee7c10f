"""Without API keys ``flowctl serve`` listens on loopback only: another address is refused in
one line (exit 2) unless anonymous access is allowed. Bad security settings are one line too.
No test here listens anywhere but loopback: the allowed cases use an address that cannot be
bound (TEST-NET-1), which shows the refusal was not what stopped them."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from cli import main
from engine.config import DEFAULT_RATE_LIMIT, RateLimit, SettingsError, load_settings
from engine.errors import FlowRuntimeError
from engine.transports.http import bind, serve
from tests.server.conftest import TRANSFER, free_port
from tests.server.processes import Serve, flowctl
from tests.server.test_auth import KEY_A, KEY_B, bearer

REFUSAL = ("error: refusing to listen on {host} without API keys: anyone who can reach it "
           "could move money; set FLOWCTL_API_KEYS (or FLOWCTL_API_KEYS_FILE), or pass "
           "--allow-anonymous")
UNBINDABLE = "192.0.2.1"  # TEST-NET-1: no interface of this machine has it


@pytest.mark.parametrize("host", ["0.0.0.0", "::", UNBINDABLE])
def test_no_keys_and_a_public_address_is_refused_in_one_line(host: str) -> None:
    port = free_port()
    done = flowctl("serve", "flows/transfer.yaml", "--host", host, "--port", str(port),
                   "--store", "memory://")
    assert done.returncode == 2
    assert done.stderr.strip() == REFUSAL.format(host=host)
    assert done.stdout == ""
    bind("127.0.0.1", port).close()  # nothing was left listening


@pytest.mark.parametrize("how", [["--allow-anonymous"], {"FLOWCTL_ALLOW_ANONYMOUS": "true"},
                                 {"FLOWCTL_API_KEYS": KEY_A}],
                         ids=["--allow-anonymous", "FLOWCTL_ALLOW_ANONYMOUS", "keys"])
def test_keys_or_anonymous_access_lift_the_refusal(how: list[str] | dict[str, str]) -> None:
    args, env = (how, None) if isinstance(how, list) else ([], how)
    port = free_port()
    done = flowctl("serve", "flows/transfer.yaml", "--host", UNBINDABLE, "--port", str(port),
                   "--store", "memory://", *args, env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"error: cannot listen on {UNBINDABLE}:{port}: "
                                   "Cannot assign requested address")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "127.0.0.2"])
def test_no_keys_on_loopback_just_works(host: str) -> None:
    server = Serve("flows/transfer.yaml", "--host", host, "--store", "memory://")
    server.url = f"http://{'127.0.0.1' if host == 'localhost' else host}:{server.port}"
    try:
        server.wait_ready()
        response = httpx.post(f"{server.url}/v1/agent/chat",
                              json={"session_id": "u", "message": "엄마한테 1만원 보내줘"})
        assert response.json()["interaction"]["state_snapshot"]["stage"] == "READY"
    finally:
        output = server.stop()
    assert "access: loopback clients only (no API keys)" in output


async def test_serve_refuses_the_same_way(tmp_path: Path) -> None:
    with pytest.raises(FlowRuntimeError) as err:
        await serve(str(TRANSFER), host="0.0.0.0", port=free_port(),
                    store_url=f"sqlite:///{tmp_path}/s.db", env={})
    assert "refusing to listen on 0.0.0.0 without API keys" in str(err.value)
    assert not (tmp_path / "s.db").exists()  # nothing was opened


def test_a_keys_file_is_read_with_its_comments(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.write_text(f"# the team's keys\n{KEY_A}\n\n  {KEY_B}  \n", encoding="utf-8")
    server = Serve("flows/transfer.yaml", "--store", "memory://",
                   env={"FLOWCTL_API_KEYS_FILE": str(keys)}).wait_ready()
    try:
        body = {"session_id": "u", "message": "안녕"}
        assert httpx.post(f"{server.url}/v1/agent/chat", json=body).status_code == 401
        for key in (KEY_A, KEY_B):
            assert httpx.post(f"{server.url}/v1/agent/chat", json=body,
                              headers=bearer(key)).status_code in (200, 404)
    finally:
        output = server.stop()
    assert "access: 2 API key(s)" in output
    assert KEY_A not in output and KEY_B not in output


@pytest.mark.parametrize("env, args, line", [
    ({"FLOWCTL_API_KEYS": "short"}, [],
     "FLOWCTL_API_KEYS: key 1 is shorter than 16 characters"),
    ({"FLOWCTL_API_KEYS": f"{KEY_A},has space in it 0123456789"}, [],
     "FLOWCTL_API_KEYS: key 2 has a character other than visible ASCII (no spaces)"),
    ({"FLOWCTL_API_KEYS_FILE": "/nonexistent/keys"}, [],
     "FLOWCTL_API_KEYS_FILE='/nonexistent/keys': cannot read it: No such file or directory"),
    ({"FLOWCTL_RATE_LIMIT": "lots"}, [],
     "FLOWCTL_RATE_LIMIT='lots' is not a rate like 120/minute, 5/second, 1000/hour or 30/10s "
     "(or off)"),
    ({"FLOWCTL_ALLOW_ANONYMOUS": "maybe"}, [],
     "FLOWCTL_ALLOW_ANONYMOUS='maybe' is not a yes/no value; use true or false"),
    ({"FLOWCTL_COOKIE_SECRET": "tiny"}, [], "FLOWCTL_COOKIE_SECRET is shorter than 32 characters"),
    ({"FLOWCTL_CORS_ORIGINS": "*"}, [],
     "FLOWCTL_CORS_ORIGINS '*' is not an origin like https://app.example.com (scheme, host and "
     "port only; * is not allowed)"),
    ({}, ["--cors-origin", "https://app.example.com/path"],
     "--cors-origin 'https://app.example.com/path' is not an origin like "
     "https://app.example.com (scheme, host and port only; * is not allowed)"),
    ({}, ["--allowed-host", "bad host"],
     "--allowed-host 'bad host' is not a host name like api.example.com or *.example.com"),
])
def test_a_bad_security_setting_is_one_line(env: dict[str, str], args: list[str], line: str,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    port = free_port()
    assert main(["serve", str(TRANSFER), "--port", str(port), "--store", "memory://",
                 *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {line}") and err.count("\n") == 1
    assert "Traceback" not in err and KEY_A not in err
    bind("127.0.0.1", port).close()


def test_a_key_is_never_echoed_by_a_settings_error() -> None:
    with pytest.raises(SettingsError) as err:
        load_settings({"FLOWCTL_API_KEYS": "secret-short"})
    assert "secret-short" not in str(err.value)


@pytest.mark.parametrize("raw, limit", [
    ("120/minute", RateLimit(120, 60.0)), ("5/second", RateLimit(5, 1.0)),
    ("1000/hour", RateLimit(1000, 3600.0)), ("30/10s", RateLimit(30, 10.0)),
    (" 60 / min ", RateLimit(60, 60.0)), ("off", None), ("0", None)])
def test_rate_limits_parse(raw: str, limit: RateLimit | None) -> None:
    assert load_settings({"FLOWCTL_RATE_LIMIT": raw}).rate_limit == limit


def test_the_server_settings_default_to_safe_values() -> None:
    settings = load_settings({})
    assert (settings.api_keys, settings.allow_anonymous, settings.cors_origins,
            settings.allowed_hosts, settings.rate_limit) == ((), False, (), (),
                                                              DEFAULT_RATE_LIMIT)
    assert str(DEFAULT_RATE_LIMIT) == "600/minute"
    assert KEY_A not in repr(load_settings({"FLOWCTL_API_KEYS": KEY_A}))
