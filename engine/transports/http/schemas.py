"""Runtime TypedDicts -> pydantic request/response models (also the OpenAPI docs at /docs).

The DONE payload's parts are declared once, as TypedDicts in ``engine.runtime.values.events`` and
``engine.runtime.values.session``; ``model_of`` derives a model from each, so the schema at
``/openapi.json`` cannot drift from what the engine sends, and a client that validates a
response with these models reads ``interaction.ui_hint.buttons`` as attributes. These
models only document and validate: responses are written from the events themselves.
"""

from __future__ import annotations

import functools
import json
import operator
import types
from typing import (
    Annotated,
    Any,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from fastapi import FastAPI
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, create_model

from engine.registry import NextAction
from engine.runtime.values.events import Hook, SelectedAgent, StateSnapshot, Trace, UiHint

__all__ = ["AUTH_ERRORS", "ERRORS", "SSE_DOC", "ChatRequest", "ChatResponse",
           "CompletedResponse", "DebugResponse", "ErrorBody", "Health", "Interaction",
           "LoginResponse", "SessionCreated", "SessionId", "document_errors", "error_doc",
           "model_of", "unicode_text"]


# -- models derived from the runtime's TypedDicts ------------------------------------------

@functools.cache
def _derived(shape: type, notes: tuple[tuple[str, str], ...]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for key, hint in get_type_hints(shape, include_extras=True).items():
        required, hint = _requirement(shape, hint)
        spec: dict[str, Any] = {"description": dict(notes).get(key)}
        if key.startswith("_"):
            spec["alias"] = key
        if required:
            fields[key.lstrip("_")] = (_swap(hint), Field(**spec))
        else:  # a key the engine may leave out
            fields[key.lstrip("_")] = (_swap(hint) | None, Field(None, **spec))
    return create_model(shape.__name__, __doc__=shape.__doc__, __module__=__name__,
                        __config__=ConfigDict(extra="allow", populate_by_name=True),
                        **fields)


def _requirement(shape: type, hint: Any) -> tuple[bool, Any]:
    """Whether a key must be there, and its type without ``Required``/``NotRequired``.

    Read from the hint rather than ``__required_keys__``, which is wrong for TypedDicts whose
    annotations are strings (``from __future__ import annotations``) before Python 3.13.
    """
    origin = get_origin(hint)
    if origin in (Required, NotRequired):
        return origin is Required, get_args(hint)[0]
    return bool(getattr(shape, "__total__", True)), hint


def model_of(shape: type, **notes: str) -> type[BaseModel]:
    """The pydantic model of TypedDict ``shape``; nested TypedDicts become models too.

    ``notes`` describe fields for the docs; a key that starts with ``_`` becomes a field
    without it, aliased to the key. Keys the TypedDict does not require default to None.

    >>> from engine.runtime.values.events import Trace, UiHint
    >>> model_of(UiHint).model_validate({"buttons": ["확인"]}).buttons
    ['확인']
    >>> model_of(Trace).model_validate({"turn_id": "a1", "total_elapsed_ms": 1.5,
    ...                                 "agents": []}).error is None
    True
    """
    return _derived(shape, tuple(sorted(notes.items())))


def _swap(hint: Any) -> Any:
    """``hint`` with every TypedDict in it replaced by its model."""
    if is_typeddict(hint):
        return model_of(hint)
    origin, args = get_origin(hint), get_args(hint)
    if origin is None or not args:
        return hint
    swapped = tuple(_swap(arg) for arg in args)
    if origin in (Union, types.UnionType):
        return functools.reduce(operator.or_, swapped)
    return origin[swapped]


# -- requests ---------------------------------------------------------------------------------

def unicode_text(value: str) -> str:
    """A lone surrogate (the JSON escape ``"\\ud800"`` decodes to one) is not text: 422.

    >>> unicode_text("엄마")
    '엄마'
    >>> unicode_text("\\ud800")
    Traceback (most recent call last):
    ValueError: contains a lone UTF-16 surrogate (such as a \\ud800 escape), which is not \
valid Unicode
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("contains a lone UTF-16 surrogate (such as a \\ud800 escape), "
                         "which is not valid Unicode") from None
    return value


def _unicode_first(value: Any) -> Any:
    """Before a length is counted (which would fail with a vaguer message)."""
    return unicode_text(value) if isinstance(value, str) else value


def _session_id(value: str) -> str:
    if not value.strip() or value != value.strip():
        raise ValueError("session_id must not be blank nor start or end with a space")
    return value


SessionId = Annotated[str, Field(min_length=1, max_length=128, examples=["user-001"],
                                 description="Any id the client picks (or one from POST "
                                             "/v1/agent/sessions); 1-128 characters."),
                      AfterValidator(_session_id), BeforeValidator(_unicode_first)]


def _json_object(value: Any) -> Any:
    """A query parameter's context arrives as JSON text: decode it (a body's is an object)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            raise ValueError("`context` must be a JSON object") from None
    return value


class ChatRequest(BaseModel):
    """One user message for one session."""

    session_id: SessionId
    message: Annotated[str, AfterValidator(unicode_text)] = Field(
        examples=["엄마한테 1만원 보내줘"],
        description="Blank -> a DONE asking for a question; longer than max_message_chars "
                    "(default 4000) -> 413.")
    context: Annotated[dict[str, Any] | None, BeforeValidator(_json_object)] = Field(
        None, examples=[{"logged_in": True, "user_type": "consumer"}],
        description="The request context the service's `context` schema declares (a JSON "
                    "object; as a query parameter, its JSON text); one it refuses -> 422.")


# -- responses --------------------------------------------------------------------------------

Interaction = create_model(
    "Interaction", __doc__="The DONE payload: always the last event of a turn.",
    __module__=__name__, __config__=ConfigDict(populate_by_name=True),
    message=(str, ...),
    next_action=(NextAction, ...),
    ui_hint=(model_of(UiHint, buttons="Texts the client may offer as buttons; sending one "
                                      "is the same as typing it."), ...),
    state_snapshot=(model_of(StateSnapshot, meta="`slot_errors` and batch progress live "
                                                 "here."), ...),
    hooks=(_swap(list[Hook]), ...),
    trace=(model_of(Trace, error="Set when the turn failed and saved nothing."),
           Field(alias="_trace")),
    requires_confirmation=(bool, Field(False, description="The reply asks the user to confirm "
                                       "something: a `respond` step's value, else whether "
                                       "next_action is CONFIRM.")),
    next_suggested_actions=(list[str], Field(default_factory=list, description="Short next "
                                             "steps a client may offer (a `respond` step's "
                                             "`next`).")),
    final_response=(str | None, Field(None, description="`response: orchestrator` only: the "
                                      "reply again.")),
    selected_agents=(_swap(list[SelectedAgent] | None), Field(None, description="`response: "
                     "orchestrator` only: the agent steps and actions that ran, in order, "
                     "with what each gave.")),
    action_requests=(list[dict[str, Any]] | None, Field(None, description="`response: "
                     "orchestrator` only: the action requests the gateway let through.")),
    confidence_score=(float | None, Field(None, ge=0.0, le=1.0, description="`response: "
                      "orchestrator` only: the mean confidence of the turn's readings.")),
)

ChatResponse = create_model(
    "ChatResponse", __module__=__name__, interaction=(Interaction, ...),
    hooks=(_swap(list[Hook]), ...),
)


class CompletedResponse(BaseModel):
    session_id: str
    completed: list[dict[str, Any]] = Field(description="Finished tasks, oldest first: flow, "
                                                        "outcome, slots, at, result.")


class Memory(BaseModel):
    raw_history: list[dict[str, str]]
    summary_text: str
    summary_struct: dict[str, Any] = Field(default_factory=dict, description="The summary as "
                                           "data: `completed` tasks and earlier `requests`.")


class DebugResponse(BaseModel):
    session_id: str
    version: int
    state: dict[str, Any]
    memory: Memory
    completed: list[dict[str, Any]]


class Health(BaseModel):
    status: str
    service: str
    dev_mode: bool
    max_message_chars: int


class ErrorBody(BaseModel):
    error: str = Field(examples=["message_too_long"])
    message: str
    detail: list[dict[str, Any]] | None = None
    interaction: dict[str, Any] | None = Field(
        None, description="`message_too_long` only: the DONE a chat client shows (the "
                          "refusal, failure tag CONTEXT_OVERFLOW, the session as it was).")


class SessionCreated(BaseModel):
    session_id: str = Field(description="A fresh id of 192 random bits (URL-safe base64).")


class LoginResponse(BaseModel):
    principal: str | None = Field(description="Who the key is (a hash of it, never the key); "
                                              "null when the server has no keys.")
    expires_in: int | None = Field(description="Seconds the cookie is valid.")


ResponsesDoc = dict[int | str, dict[str, Any]]


def error_doc(description: str | None = None) -> dict[str, Any]:
    """An error response as the OpenAPI document shows it: an ``ErrorBody``. Named by
    reference rather than as a ``model``, so that no route builds a validator for a body it
    never validates (``document_errors`` puts the schema in the document)."""
    doc: dict[str, Any] = {"content": {"application/json": {"schema": {
        "$ref": "#/components/schemas/ErrorBody"}}}}
    return {**doc, "description": description} if description else doc


def document_errors(app: FastAPI) -> None:
    """OpenAPI: the ``ErrorBody`` the error responses refer to (``schemas.error_doc``)."""
    make = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = make()
            schema.setdefault("components", {}).setdefault("schemas", {}).setdefault(
                "ErrorBody", ErrorBody.model_json_schema(mode="serialization"))
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


ERRORS: ResponsesDoc = {
    413: error_doc("The message is longer than max_message_chars."),
    422: error_doc("Malformed JSON or a missing/empty field."),
    503: error_doc("The server failed; nothing was saved."),
}

AUTH_ERRORS: ResponsesDoc = {
    401: error_doc("No valid API key (or login cookie) was sent."),
    403: error_doc("A cross-site request, or a client the server does not answer (no keys: "
                   "loopback only)."),
    404: error_doc("No such session, or another principal's."),
    429: error_doc("Over the rate limit; see Retry-After."),
}

SSE_DOC: ResponsesDoc = {
    200: {"content": {"text/event-stream": {}},
          "description": "SSE: AGENT_START, LLM_TOKEN, LLM_DONE, AGENT_DONE, TASK_PROGRESS, "
                         "then DONE (always last; same payload as `interaction`)."},
    204: {"description": "The request carried Last-Event-ID (an EventSource reconnecting); "
                         "no turn ran."},
}
