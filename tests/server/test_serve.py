"""``serve`` refuses to start with a one-line reason: invalid flow, bad setting, port in use,
unusable store. (The happy path runs in test_concurrency's server processes.)"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from engine.errors import FlowDefinitionError, FlowRuntimeError
from engine.transports.http import bind, serve
from tests.server.conftest import TRANSFER, free_port


def one_line(err: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(err.value)
    assert "\n" not in text and "Traceback" not in text
    return text


async def test_an_invalid_flow_raises_flow_definition_error(tmp_path: Path) -> None:
    flow = tmp_path / "broken.yaml"
    flow.write_text("service: broken\nlocale: ko\nflows:\n  chat:\n    initial: NOWHERE\n"
                    "    stages: {}\n", encoding="utf-8")
    with pytest.raises(FlowDefinitionError) as err:
        await serve(str(flow), port=free_port(), store_url="memory://", env={})
    assert str(err.value).startswith(f"{flow}:")


async def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(FlowRuntimeError) as err:
            await serve(str(TRANSFER), port=port, store_url=f"sqlite:///{tmp_path}/s.db", env={})
    assert one_line(err) == (f"port {port} on 127.0.0.1 is already in use; stop the other "
                             "server or pick another port with --port")
    assert not (tmp_path / "s.db").exists()  # nothing was opened


@pytest.mark.parametrize("store_url, words", [
    ("sqlite:///{tmp}/file.txt/sessions.db", "cannot open session store"),
    ("sqlite:///{tmp}", "cannot open session store"),
    ("redis://localhost:6379", "unknown store"),
])
async def test_an_unusable_store_is_one_line_and_frees_the_port(
        tmp_path: Path, store_url: str, words: str) -> None:
    (tmp_path / "file.txt").write_text("not a directory")
    port = free_port()
    with pytest.raises(FlowRuntimeError) as err:
        await serve(str(TRANSFER), port=port, store_url=store_url.format(tmp=tmp_path), env={})
    assert words in one_line(err)
    bind("127.0.0.1", port).close()


async def test_a_bad_setting_is_one_line() -> None:
    with pytest.raises(FlowRuntimeError) as err:
        await serve(str(TRANSFER), port=free_port(), store_url="memory://",
                    env={"FLOWCTL_MAX_MESSAGE_CHARS": "lots"})
    assert one_line(err) == "FLOWCTL_MAX_MESSAGE_CHARS='lots' is not a whole number"

