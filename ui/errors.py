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
    errors.BusyError: "One step at a time",
    AccessDeniedError: "Not allowed",
}

logger = logging.getLogger(__name__)

GENERIC_MESSAGE = "Something went wrong on our side; the error was logged. Please try again."


def title_of(exc: Exception) -> str:
    """The short heading of a domain error ("Invalid input", "Not found", ...)."""
    return next((TITLES[k] for k in type(exc).__mro__ if k in TITLES), "Error")


def to_gr_error(exc: Exception) -> gr.Error:
    """Translate an exception raised by a callback into what the browser shows."""
    if isinstance(exc, gr.Error):
        return exc
    if isinstance(exc, errors.AWPError):
        # gr.Error renders its message as HTML, and messages may quote user input: escape it
        return gr.Error(html.escape(str(exc)), title=title_of(exc), print_exception=False)
    logger.exception("unexpected error in a UI callback", exc_info=exc)
    return gr.Error(GENERIC_MESSAGE)


def inline_error(exc: Exception) -> str:
    """The error as a line of HTML shown beside the control that caused it (no pill, no toast).

    Gradio draws a raised error as a red pill over every output of the event, which hides the
    very buttons the person needs next; pages that show errors inline return this into their one
    message component instead. A bug is logged with its traceback and shown generically.
    """
    if isinstance(exc, errors.AWPError):
        title, text = title_of(exc), str(exc)
    else:
        logger.exception("unexpected error in a UI callback", exc_info=exc)
        title, text = "Error", GENERIC_MESSAGE
    return (
        f'<div class="awp-inline-error" role="alert"><b>{html.escape(title)}:</b> '
        f"{html.escape(text)}</div>"
    )


def inline(fn: Callable[..., Any], message: Any) -> Callable[..., Any]:
    """Wrap a callback whose errors go to the page's one `message` component, not a pill.

    The callback returns a dict of updates (outputs are wired by name); on an error only
    `message` changes, so everything the person already sees and chose stays as it was.
    On success `message` is cleared unless the callback set it.
    """
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def stream(*args: Any, **kwargs: Any) -> Any:
            try:
                for update in fn(*args, **kwargs):
                    yield {message: "", **update}
            except Exception as exc:
                yield {message: inline_error(exc)}

        return stream

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return {message: "", **fn(*args, **kwargs)}
        except Exception as exc:
            return {message: inline_error(exc)}

    return call


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
