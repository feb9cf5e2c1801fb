"""The fair-use queue: places in order, a free lane for baselines, one person's share."""

from __future__ import annotations

import threading

import pytest

from backend.errors import BusyError
from backend.fair_use import FairUse, queue_line


def test_model_steps_wait_in_order_and_know_their_place() -> None:
    fair = FairUse(model_slots=1, per_person=1, anonymous_max_new_tokens=64)
    first = fair.admit("ann", instant=False)
    second, third = fair.admit("bob", instant=False), fair.admit("cy", instant=False)
    assert first.wait(0) and not second.wait(0) and not third.wait(0)
    assert (second.ahead(), third.ahead()) == (1, 2)
    assert queue_line(2) == "⏳ Waiting for the model: 2 steps are ahead of you."
    first.release()
    assert second.wait(0) and third.ahead() == 1 and fair.in_flight() == (1, 1)
    second.release()
    third.release()
    assert fair.in_flight() == (0, 0)


def test_a_baseline_step_never_waits_for_the_model() -> None:
    fair = FairUse(model_slots=1, per_person=1, anonymous_max_new_tokens=64)
    long = fair.admit("ann", instant=False)
    queued = fair.admit("bob", instant=False)
    instant = fair.admit("cy", instant=True)
    assert instant.wait(0) and instant.ahead() == 0
    instant.release()
    assert fair.in_flight() == (1, 1)  # the long step and the queued one are still there
    long.release()
    queued.release()


def test_a_second_step_of_one_person_is_refused_until_the_first_ends() -> None:
    fair = FairUse(model_slots=4, per_person=1, anonymous_max_new_tokens=64)
    with fair.admit("ann", instant=False):
        with pytest.raises(BusyError, match="already have a step"):
            fair.admit("ann", instant=True)
        fair.admit("bob", instant=True).release()  # others are not refused
    fair.admit("ann", instant=False).release()


def test_a_waiting_step_is_woken_when_its_turn_comes() -> None:
    fair = FairUse(model_slots=1, per_person=1, anonymous_max_new_tokens=64)
    holder = fair.admit("ann", instant=False)
    waiter = fair.admit("bob", instant=False)
    woke: list[bool] = []
    thread = threading.Thread(target=lambda: woke.append(waiter.wait(None)))
    thread.start()
    holder.release()
    thread.join()
    assert woke == [True]
    waiter.release()


def test_only_anonymous_budgets_are_cut() -> None:
    fair = FairUse(model_slots=1, per_person=1, anonymous_max_new_tokens=64)
    assert fair.budget(262144, signed_in=False) == 64
    assert fair.budget(16, signed_in=False) == 16
    assert fair.budget(262144, signed_in=True) == 262144
