"""Every documented `meta` key is defined on every turn: a message that reads
`meta.corrected` renders on a turn that corrected nothing (it used to fail the whole turn
with an UndefinedError), and its keys are the Meta type's."""

from __future__ import annotations

from pathlib import Path
from typing import get_type_hints

from engine.compiler import compile_file
from engine.config import load_settings
from engine.runtime.engine import Engine
from engine.runtime.understanding.context import META_DEFAULTS
from engine.runtime.values.session import Meta
from engine.store import MemoryStore

FLOW = """\
service: table
locale: en
intents:
  book: {description: book a table, keywords: [book]}
routes: {book: book}
default_flow: chat
slots:
  people: {type: integer, description: how many, required: true, ask: ask_people}
flows:
  chat:
    initial: CHAT
    stages:
      CHAT: {say: chat}
  book:
    slots: [people]
    initial: INIT
    stages:
      INIT: {}
      FILLING: {say: filling}
      DONE: {terminal: true, say: booked}
    transitions:
      - {trigger: update, source: [INIT, FILLING], dest: DONE, when: not missing}
      - {trigger: update, source: [INIT, FILLING], dest: FILLING}
messages:
  chat: Say book.
  ask_people: How many?
  filling: "{{ ask(missing[0]) }}"
  booked: >-
    {% if meta.corrected %}Changed: {{ meta.corrected | list | join(', ') }}. {% endif %}Booked for
    {{ slots.people }}{% if meta.awaiting is none and not meta.batch_total %}.{% endif %}
"""


async def test_a_message_reading_meta_renders_when_nothing_set_it(tmp_path: Path) -> None:
    path = tmp_path / "table.yaml"
    path.write_text(FLOW, encoding="utf-8")
    engine = Engine(compile_file(path), store=MemoryStore(), settings=load_settings({}))
    await engine.reply("s", "book a table")
    done = await engine.reply("s", "4")
    assert done.message == "Booked for 4." and done.trace.get("error") is None


def test_the_defaults_name_every_meta_key() -> None:
    assert set(META_DEFAULTS) == set(get_type_hints(Meta))
