"""The one place where errors become messages for the person at the browser.

Every callback is wrapped by `guarded` when it is wired: domain errors (`AWPError`) carry a message
written for the user and become `gr.Error` as they are; anything else is a bug, so it is logged with
its traceback and the user sees a generic message with no internals.
"""

from __future__ import annotations

import functools
import html
import inspect
import logging
from collections.abc import Callable
from typing import Any

import gradio as gr

from backend import errors
from ui.users import AccessDeniedError

TITLES: dict[type[Exception], str] = {
    errors.BadActionError: "Invalid action",
    errors.BadInputError: "Invalid input",
    errors.UnknownNameError: "Unknown name",
    errors.EngineUnavailableError: "Engine unavailable",
    errors.PromptTooLongError: "Prompt too long",
    errors.EngineRequestError: "Engine refused the request",
    errors.NotFoundError: "Not found",
    errors.ConflictError: "Changed by someone else",
    errors.ExportError: "Export failed",
    errors.SchemaOutOfDateError: "Database out of date",
    AccessDeniedError: "Not allowed",
}

logger = logging.getLogger(__name__)

GENERIC_MESSAGE = "Something went wrong on our side; the error was logged. Please try again."


def to_gr_error(exc: Exception) -> gr.Error:
    """Translate an exception raised by a callback into what the browser shows."""
    if isinstance(exc, gr.Error):
        return exc
    if isinstance(exc, errors.AWPError):
        title = next((TITLES[k] for k in type(exc).__mro__ if k in TITLES), "Error")
        # gr.Error renders its message as HTML, and messages may quote user input: escape it
        return gr.Error(html.escape(str(exc)), title=title, print_exception=False)
    logger.exception("unexpected error in a UI callback", exc_info=exc)
    return gr.Error(GENERIC_MESSAGE)


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a callback (plain function or generator) so that errors reach the UI as `gr.Error`.

    `functools.wraps` keeps the signature visible to Gradio, which injects `gr.Request` and
    `gr.Progress` parameters by inspecting it.
    """
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def stream(*args: Any, **kwargs: Any) -> Any:
            try:
                yield from fn(*args, **kwargs)
            except Exception as exc:
                raise to_gr_error(exc) from None

        return stream

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise to_gr_error(exc) from None

    return call
