"""`flowctl chat` at a real terminal, driven as a person would: a real `flowctl chat` process
in a tmux pane (Debian's tmux; .ci/run installs it), keys sent with `send-keys`, the screen
read back with `capture-pane`.

Covered: the arrow keys edit the line and recall history (no ``^[[A``), a 10,000-character
line reaches the engine whole and is refused as the server refuses it, the first Ctrl-C quits
at once (at the prompt and in the middle of a turn waiting on a model), and a turn outside
any stage prints no ``stage=None``.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakes.llm_servers import FakeLLMServer, FakeReply
from tests.server.processes import flowctl_env

ROOT = Path(__file__).resolve().parents[1]
TOO_LONG = "메시지가 너무 길어요. 4000자 이내로 입력해 주세요."


class Pane:
    """One tmux server (its own socket) running ``command`` in a 160x48 pane."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.socket = f"flowctl-test-{uuid.uuid4().hex[:8]}"
        # the shell outlives a Ctrl-C (trapped, not ignored: the program still gets it) and
        # says how the program ended
        shell = f"trap : INT; {shlex.join(command)}; echo EXIT=$?; sleep 600"
        self.tmux("new-session", "-d", "-s", "chat", "-x", "160", "-y", "48",
                  "sh", "-c", shell, env=env)

    def tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        run = subprocess.run(["tmux", "-u", "-L", self.socket, *args], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=20, check=True)
        return run.stdout

    def keys(self, *keys: str) -> None:
        """Named keys (``Enter``, ``Up``, ``C-c``...)."""
        self.tmux("send-keys", "-t", "chat", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "chat", "-l", text)

    def paste(self, text: str, tmp: Path) -> None:
        """Paste as a terminal does (bracketed paste when the program asks for it)."""
        buffer = tmp / "paste.txt"
        buffer.write_text(text, encoding="utf-8")
        self.tmux("load-buffer", str(buffer))
        self.tmux("paste-buffer", "-p", "-t", "chat")

    def screen(self) -> str:
        """What the terminal shows, wrapped lines joined, with its scrollback."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-2000", "-t", "chat")

    def wait_for(self, check: Callable[[str], bool], what: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.screen()
            if check(shown):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal never showed {what}; it shows:\n{shown}")
            time.sleep(0.1)

    def wait_text(self, text: str, timeout: float = 20) -> str:
        return self.wait_for(lambda shown: text in shown, repr(text), timeout)

    def prompt_line(self) -> str:
        """The last line that starts with the prompt (where the cursor is)."""
        return [line for line in self.screen().splitlines() if line.startswith("you>")][-1]

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=20)


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[Callable[..., Pane]]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux not found: install Debian's tmux (`apt-get install tmux`, as "
                    ".ci/run does)", pytrace=False)
    panes: list[Pane] = []

    def start(*args: str, env: dict[str, str] | None = None) -> Pane:
        environment = flowctl_env({"LANG": "C.UTF-8", "TERM": "tmux-256color",
                                   "HOME": str(tmp_path), **(env or {})})
        pane = Pane([sys.executable, "-m", "cli", "chat", "flows/transfer.yaml", *args],
                    environment)
        panes.append(pane)
        pane.wait_text("you>")
        return pane

    yield start
    for pane in panes:
        pane.close()


def test_arrow_keys_edit_the_line_and_recall_history(chat: Callable[..., Pane]) -> None:
    pane = chat()
    pane.type("엄마한테 보내줘")
    pane.keys("Enter")
    pane.wait_text('flow=transfer stage=FILLING next=ASK slots={"target": "엄마"}')

    pane.keys("Up")  # the previous line comes back, editable
    pane.wait_for(lambda _: pane.prompt_line().rstrip() == "you> 엄마한테 보내줘",
                  "the recalled line")
    pane.keys("C-u")
    pane.type("3원")
    pane.keys("Left")  # the cursor moves inside the line: "3|원" -> "3만|원"
    pane.type("만")
    pane.keys("Enter")
    shown = pane.wait_text('slots={"target": "엄마", "amount": 30000}')
    assert "you> 3만원" in shown
    assert "^[[" not in shown


def test_history_kept_in_a_file_comes_back_next_time(chat: Callable[..., Pane],
                                                     tmp_path: Path) -> None:
    history = tmp_path / "chat-history"
    pane = chat("--history", str(history))
    pane.type("용걸이한테 보내줘")
    pane.keys("Enter")
    pane.wait_text("stage=FILLING")
    pane.keys("C-d")  # Ctrl-D at an empty prompt ends the chat normally
    pane.wait_text("EXIT=0", timeout=5)

    again = chat("--history", str(history))
    again.keys("Up")
    again.wait_for(lambda _: again.prompt_line().rstrip() == "you> 용걸이한테 보내줘",
                   "the line typed in the last run")


def test_a_history_file_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    where = tmp_path / "missing" / "history"
    run = subprocess.run([sys.executable, "-m", "cli", "chat", "flows/transfer.yaml",
                          "--history", str(where)], cwd=ROOT, env=flowctl_env(), input="",
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip() == f"error: cannot write {where}: No such file or directory"


def test_a_10000_character_line_is_refused_whole_as_the_server_does(
        chat: Callable[..., Pane], tmp_path: Path) -> None:
    pane = chat()
    pane.type("엄마한테 보내줘")
    pane.keys("Enter")
    pane.wait_text("stage=FILLING")
    # Korean: 30,000 bytes, far past the tty's 4096-byte line (the old cut: 1,365 characters)
    pane.paste("가" * 10_000, tmp_path)
    pane.keys("Enter")
    shown = pane.wait_text(f"bot {TOO_LONG}")
    # refused, not answered: the session is just as it was
    after = shown.split(TOO_LONG, 1)[1]
    assert 'flow=transfer stage=FILLING next=ASK slots={"target": "엄마"}' in after
    assert "stage=None" not in shown


def test_a_turn_outside_any_stage_prints_no_stage_none(chat: Callable[..., Pane]) -> None:
    pane = chat()
    pane.keys("Enter")  # a blank line in a new session: refused before any flow starts
    shown = pane.wait_text("bot 질문을 입력해주세요.")
    shown = pane.wait_text("next=ASK")
    assert "stage=None" not in shown
    assert [line for line in shown.splitlines() if "next=" in line] == ["next=ASK"]


def test_the_first_ctrl_c_at_the_prompt_quits(chat: Callable[..., Pane]) -> None:
    pane = chat()
    pane.type("엄마한")  # a half-typed line
    pane.keys("C-c")
    pane.wait_text("EXIT=130", timeout=3)


def test_the_first_ctrl_c_in_the_middle_of_a_turn_quits(chat: Callable[..., Pane]) -> None:
    with FakeLLMServer(default=FakeReply(text="늦은 답", delay_sec=60)) as model:
        pane = chat(env=model.env())
        pane.type("오늘 날씨 어때?")  # no rule understands it: the model is asked
        pane.keys("Enter")
        deadline = time.monotonic() + 20
        while not model.requests:
            assert time.monotonic() < deadline, pane.screen()
            time.sleep(0.05)
        pane.keys("C-c")
        shown = pane.wait_text("EXIT=130", timeout=3)
        assert "늦은 답" not in shown
