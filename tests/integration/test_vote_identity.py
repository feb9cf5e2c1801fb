"""Votes count under identities the server issues: names a client makes up change nothing.

The probes of issue 20 turned into tests: a client that votes again and again under new
`browser` keys, forged cookies and made-up proxy headers; six concurrent votes on one battle;
a fresh battle drawn on a step its voter already judged.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from gradio_client import Client
from sqlalchemy import func, select
from starlette.requests import Request

from app.identity import COOKIE, Identities, load_secret
from backend.errors import ConflictError
from storage.arena import ArenaStore
from storage.db import session_scope
from storage.models import AnnotationRow, AnnotatorRow, ArenaVoteRow, RealOrNotVoteRow
from tests.support.annotate import annotate, submit
from tests.support.app_server import (
    ARENA_OUTPUTS,
    REAL_OUTPUTS,
    RunningApp,
    follow_job,
    named,
    start_app,
)

ROUNDS = 8


def request(peer: str, headers: dict[str, str] | None = None) -> Request:
    """A real Starlette request from `peer` with `headers`."""
    raw = [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    return Request({"type": "http", "headers": raw, "client": (peer, 5000)})


def test_the_secret_is_made_once_and_kept(tmp_path: Path) -> None:
    first = load_secret("", tmp_path)
    assert first == load_secret("", tmp_path) and len(first) == 64
    assert (tmp_path / "identity.key").stat().st_mode & 0o077 == 0
    assert load_secret("configured", tmp_path) == b"configured"


def test_forged_cookies_and_proxy_headers_fall_back_to_the_address() -> None:
    identities = Identities(b"k" * 32)
    mine = identities.of_request(request("10.0.0.1"))
    assert mine == identities.of_request(request("10.0.0.1", {"X-Forwarded-For": "1.2.3.4"}))
    for forged in ("0123456789abcdef.00", "x", f"{'a' * 16}.{'b' * 64}", ""):
        assert identities.of_request(request("10.0.0.1", {"Cookie": f"{COOKIE}={forged}"})) == mine
    issued = identities.sign(identities.address_id("10.9.9.9"))
    moved = identities.of_request(request("10.0.0.1", {"Cookie": f"{COOKIE}={issued}"}))
    assert moved == identities.address_id("10.9.9.9") != mine  # the cookie outlives the address
    other_key = Identities(b"z" * 32).sign(identities.address_id("10.9.9.9"))
    assert identities.verify(other_key) is None
    behind = Identities(b"k" * 32, trust_proxy=True)
    proxied = request("10.0.0.254", {"X-Forwarded-For": "6.6.6.6, 203.0.113.7"})
    assert behind.of_request(proxied) == behind.address_id("203.0.113.7")  # the proxy's entry


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    settings = {
        "arena_contenders": "persistence,oracle",
        "arena_bootstrap_rounds": 10,
        "annotation_overlap": 10,  # an item stays open to others: only identity stops re-votes
    }
    running = start_app(
        tmp_path_factory.mktemp("vote-identity"), settings=settings, anonymous_role="annotator"
    )
    yield running
    running.close()


def stranger(app: RunningApp) -> Client:
    """A client under a new made-up name: a new session with a forged cookie.

    (A proxy header would be believed here: uvicorn trusts `X-Forwarded-For` from loopback
    peers, which only the machine's own proxy is; `Identities` is tested on it above.)
    """
    made_up = f"{secrets.token_hex(8)}.{secrets.token_hex(32)}"
    return Client(app.url, verbose=False, headers={"Cookie": f"{COOKIE}={made_up}"})


def test_the_server_issues_a_signed_cookie(app: RunningApp) -> None:
    issued = httpx.get(app.url).cookies.get(COOKIE)
    assert issued and app.context is not None
    identities = Identities(load_secret("", app.context.settings.data_dir))
    assert identities.verify(issued) == identities.address_id("127.0.0.1")
    again = httpx.get(app.url, cookies={COOKIE: issued})
    assert COOKIE not in again.cookies  # kept, not reissued


def refused_or_stored(person: Client, *args: Any, **kwargs: Any) -> None:
    """Vote; a refusal must say it was one vote too many (or nothing was left to vote on)."""
    try:
        person.predict(*args, **kwargs)
    except Exception as exc:
        assert "already voted on this" in str(exc) or "Press Next item first" in str(exc)


def one_voter_once_per_item(app: RunningApp, vote: type[RealOrNotVoteRow | ArenaVoteRow]) -> None:
    """Every human vote of `vote`'s table is one person's, never twice on one item."""
    with session_scope(app.context.database.session_factory) as session:
        voters = session.scalar(select(func.count(func.distinct(vote.voter_id))))
        per_item = session.scalars(
            select(func.count()).select_from(vote).group_by(vote.item_key, vote.voter_id)
        ).all()
    assert voters == 1 and per_item and set(per_item) == {1}


def test_votes_under_new_names_count_as_one_person(app: RunningApp) -> None:
    voter = Client(app.url, verbose=False)
    follow_job(voter, "arena_battle", "terminal", "all")
    named(voter.predict("all", api_name="/arena_vote_a"), ARENA_OUTPUTS)
    named(voter.predict("terminal", api_name="/real_next"), REAL_OUTPUTS)
    named(voter.predict("A", 2, api_name="/real_vote"), REAL_OUTPUTS)
    for browser in (secrets.token_hex(6) for _ in range(ROUNDS)):
        person = stranger(app)
        person.predict("terminal", api_name="/real_next", browser=browser)
        refused_or_stored(person, "A", 2, api_name="/real_vote", browser=browser)
        follow_job(person, "arena_battle", "terminal", "all", browser=browser)
        refused_or_stored(person, "all", api_name="/arena_vote_a", browser=browser)
    one_voter_once_per_item(app, RealOrNotVoteRow)
    one_voter_once_per_item(app, ArenaVoteRow)


def test_annotations_under_new_names_count_as_one_annotator(app: RunningApp) -> None:
    """Issue 20: one client stored 8 annotations of one prediction, each under a new name."""
    author = Client(app.url, verbose=False)
    loaded = named(author.predict("terminal", "mkrww/errors", 0, api_name="/load_turn"))
    author.predict(loaded["action"], engine="persistence", api_name="/step")
    for browser in (secrets.token_hex(6) for _ in range(ROUNDS)):
        person = stranger(app)
        annotate(person, "next", "terminal", browser=browser)  # offers nothing once it is done
        with contextlib.suppress(Exception):  # submitting anyway is refused, or stores nothing
            submit(person, "fixed", "reject", domain="terminal", browser=browser)
    with session_scope(app.context.database.session_factory) as session:
        rows = session.execute(select(AnnotationRow.prediction_id, AnnotationRow.annotator_id))
        stored = [tuple(row) for row in rows]
    assert stored  # the first one counted
    assert len({annotator for _, annotator in stored}) == 1  # one person, whatever the names
    assert len({prediction for prediction, _ in stored}) == len(stored)  # each item once


def test_concurrent_duplicates_are_refused_by_the_database(app: RunningApp) -> None:
    person = Client(app.url, verbose=False)
    follow_job(person, "arena_battle", "web", "all")
    pair = app.context.arena.open_pair("anonymous-racer", "web")
    assert pair is not None

    def vote(_: int) -> str:
        try:
            app.context.arena.vote_pair(pair, "anonymous-racer", "a")
        except ConflictError as exc:
            return str(exc)
        return "stored"

    with ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(vote, range(6)))
    assert outcomes.count("stored") == 1
    refused = [o for o in outcomes if o != "stored"]
    assert all("already voted on this battle. Nothing was stored." in o for o in refused)


def test_reports_can_count_signed_in_people_only(app: RunningApp) -> None:
    factory = app.context.database.session_factory
    with session_scope(factory) as session:
        anonymous = session.scalar(
            select(func.count())
            .select_from(RealOrNotVoteRow)
            .join(AnnotatorRow, AnnotatorRow.id == RealOrNotVoteRow.voter_id)
            .where(AnnotatorRow.name.startswith("anonymous-"))
        )
    assert anonymous and app.context.arena.real_counts()
    signed_in = ArenaStore(factory, signed_in_only=True)
    assert signed_in.real_counts() == [] and signed_in.battle_counts() == []
