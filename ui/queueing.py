"""A step's turn at the engine, as the pages take it: admitted, queued with its place shown, freed.

`backend.fair_use.FairUse` decides who steps when; this module is how a page's streaming callback
waits for that turn without holding a worker thread for long: it polls the ticket and yields
the person's place in the queue every `POLL_S`, which the page shows near its Step button.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import gradio as gr

from backend.engines.base import engine_spec
from backend.fair_use import Ticket, queue_line
from ui.services import Services

POLL_S = 1.0
"""How often a waiting step rereads its place (and frees its worker thread)."""


@contextmanager
def waited_turn(services: Services, request: gr.Request, engine: str) -> Iterator[Iterator[str]]:
    """Admit one step on `engine`; the body iterates the queue lines, then steps.

    The lines end when the step's turn has come (at once for a baseline engine); the place is
    given back when the block ends, however it ends (done, failed, stopped).

    Raises:
        BusyError: `person` already has their share of steps in flight.
        UnknownNameError: no such engine.
    """
    ticket = services.fair.admit(person_of(services, request), engine_spec(engine).baseline)
    try:
        yield _lines(ticket)
    finally:
        ticket.release()


def _lines(ticket: Ticket) -> Iterator[str]:
    waited = False
    while not ticket.wait(POLL_S):
        waited = True
        yield queue_line(ticket.ahead())
    if waited:
        yield ""


def blocking_turn(services: Services, request: gr.Request, engine: str) -> Ticket:
    """Admit one step and wait for its turn without showing it (for callbacks that stream not).

    The caller releases the returned ticket (it is a context manager).

    Raises:
        BusyError: `person` already has their share of steps in flight.
        UnknownNameError: no such engine.
    """
    ticket = services.fair.admit(person_of(services, request), engine_spec(engine).baseline)
    ticket.wait()
    return ticket


def person_of(services: Services, request: gr.Request) -> str:
    """Whose share a step counts against: the login, else the server-issued anonymous id."""
    return services.identify(request, individual=True).name
