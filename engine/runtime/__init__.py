"""A compiled service + a store -> turns: ``Engine.turn(session_id, message)`` yields events.

``turn.py`` runs a turn (route, understand, apply, fire, settle, remember, commit);
``understand.py`` the offline rules, ``llm.py`` the LLM calls, ``memory.py`` the folding of
history, ``slots.py`` validation, ``actions.py`` tools and HTTP actions, ``events.py`` the
closed event union the transports serialise.
"""
