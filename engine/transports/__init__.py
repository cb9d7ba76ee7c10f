"""Events -> the outside world: ``http/`` (FastAPI JSON + SSE + the playground),
``sse.py`` (event -> SSE frame), ``terminal.py`` (``flowctl chat`` and ``flowctl test``).
Transports only translate events; they never decide anything about a turn."""
