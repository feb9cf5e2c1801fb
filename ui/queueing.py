"""A step's turn at the engine, as the pages take it: admitted, queued with its place shown, freed.

`backend.fair_use.FairUse` decides who steps when; this module is how a Playground step's job
waits for that turn: it polls the ticket and reads the person's place in the queue every
`POLL_S`, which the page shows in the step's job line.
"""

from __future__ import annotations

from collections.abc import Iterator

import gradio as gr

from backend.engines.base import engine_spec
from backend.fair_use import Ticket, queue_line
from ui.services import Services

POLL_S = 1.0
"""How often a waiting step rereads its place (and frees its worker thread)."""


def admitted(services: Services, request: gr.Request, engine: str) -> Ticket:
    """Admit one step on `engine`: its ticket, whose turn may not have come yet.

    The caller waits with `places` and releases the ticket (a context manager) when the step
    ends, however it ends (done, failed, cancelled).

    Raises:
        BusyError: the person already has their share of steps in flight.
        UnknownNameError: no such engine.
    """
    return services.fair.admit(person_of(services, request), engine_spec(engine).baseline)


def places(ticket: Ticket) -> Iterator[str]:
    """The person's place in the queue every `POLL_S` until the ticket's turn has come.

    Ends at once for a baseline engine; after a wait, its last line is "" (the place shown
    goes away when the step starts).
    """
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
    ticket = admitted(services, request, engine)
    ticket.wait()
    return ticket


def person_of(services: Services, request: gr.Request) -> str:
    """Whose share a step counts against: the login, else the server-issued anonymous id."""
    return services.identify(request, individual=True).name
