"""Engine -> HTTP: the FastAPI app (JSON, SSE, playground) and ``flowctl serve``.

The wire protocol is fixed (clients depend on it); docs/server.md is the reference. By job:
``app`` (create_app: routes, lifespan), ``schemas`` (request/response models, derived from
the runtime's TypedDicts, for OpenAPI), ``errors`` (every exception -> a JSON error body;
the body-size Guard), ``edge`` (who may call, from where; security headers), ``lane``
(a plain chat request answered without FastAPI's per-request work, every other request left
to the route), ``turns`` (each turn in its own task; its events as SSE frames),
``playground_api`` (the service as the playground shows it; the API docs without a CDN) and
``server`` (uvicorn config, bind, serve, run_server).
"""

from engine.transports.http.app import PLAYGROUND, create_app
from engine.transports.http.schemas import (
    ChatRequest,
    ChatResponse,
    CompletedResponse,
    DebugResponse,
    model_of,
)
from engine.transports.http.server import DEFAULT_STORE, bind, run_server, serve, server_config

__all__ = ["DEFAULT_STORE", "PLAYGROUND", "ChatRequest", "ChatResponse", "CompletedResponse",
           "DebugResponse", "bind", "create_app", "run_server", "serve", "server_config"]

# doctest.testmod(engine.transports.http) runs the examples of the package's modules too
__test__ = {"create_app": create_app, "model_of": model_of}
