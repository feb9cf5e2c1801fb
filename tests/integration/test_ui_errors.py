"""The one error wrapper: domain errors read as written, bugs are logged and shown generically."""

from __future__ import annotations

import logging

import gradio as gr
import pytest

from backend.errors import BadActionError, ConflictError
from ui.errors import GENERIC_MESSAGE, guarded


def test_domain_error_keeps_its_message_escaped():
    @guarded
    def fail() -> None:
        raise BadActionError("bad <b>action</b>")

    with pytest.raises(gr.Error) as caught:
        fail()
    assert caught.value.message == "bad &lt;b&gt;action&lt;/b&gt;"
    assert caught.value.title == "Invalid action"


def test_stale_edit_is_titled_for_the_annotator():
    @guarded
    def fail() -> None:
        raise ConflictError("changed since you opened it; nothing was saved")

    with pytest.raises(gr.Error) as caught:
        fail()
    assert caught.value.title == "Changed by someone else"


def test_bug_is_logged_and_hidden(caplog: pytest.LogCaptureFixture):
    @guarded
    def fail() -> None:
        raise KeyError("internal detail")

    with caplog.at_level(logging.ERROR), pytest.raises(gr.Error) as caught:
        fail()
    assert caught.value.message == GENERIC_MESSAGE
    assert "internal detail" in caplog.text


def test_generators_are_wrapped_too():
    @guarded
    def stream():
        yield 1
        raise BadActionError("late")

    iterator = stream()
    assert next(iterator) == 1
    with pytest.raises(gr.Error, match="late"):
        next(iterator)
