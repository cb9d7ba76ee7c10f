"""A compiled service + a store -> turns: ``Engine.turn(session_id, message)`` yields events.

``engine.py`` surrounds a turn (admission, the session's lock, load, commit, failures);
``turn_run.py`` runs one (guard, route, understand, apply, fire, settle, remember);
``serving.py`` is what a transport needs of an engine. The folders, each importing only the
ones listed after it: ``steps/`` and ``conversation/`` (what a turn does), ``turn/`` (what a
turn is), ``calls/`` (models, tools, actions, memory), ``understanding/`` and ``values/``.
"""
