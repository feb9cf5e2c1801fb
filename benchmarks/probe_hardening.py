"""Rerun issue 20's vote and live-budget probes against a real app; print what got through.

- vote flood: one client votes again and again (arena and Which-one-is-real) under new
  `browser` keys, new sessions and forged `awp_id` cookies; counts the voters stored;
- concurrent duplicates: six threads cast one voter's vote on one battle at once;
- live budget: a Rollouts-page shadow run while every place of `AWP_LIVE_MAX` is held.

Usage: PYTHONPATH=$PWD .venv/bin/python benchmarks/probe_hardening.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import secrets
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gradio_client import Client
from sqlalchemy import func, select

from app.identity import COOKIE
from backend.errors import ConflictError
from storage.db import session_scope
from storage.models import ArenaVoteRow, RealOrNotVoteRow
from tests.support.app_server import start_app


def attempt(client: Client, *args: Any, **kwargs: Any) -> bool:
    """Whether the call was accepted."""
    try:
        client.predict(*args, **kwargs)
    except Exception:
        return False
    return True


def main() -> None:
    """Run the probes; print one JSON object of counts."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    settings = {
        "arena_contenders": "persistence,oracle",
        "arena_bootstrap_rounds": 10,
        "annotation_overlap": 10,
        "live_max": 2,
    }
    app = start_app(Path(tempfile.mkdtemp()), settings=settings, anonymous_role="annotator")
    try:
        accepted = 0
        for _ in range(rounds):
            forged = f"{secrets.token_hex(8)}.{secrets.token_hex(32)}"
            client = Client(app.url, verbose=False, headers={"Cookie": f"{COOKIE}={forged}"})
            name = secrets.token_hex(6)
            client.predict("terminal", "all", api_name="/arena_battle", browser=name)
            accepted += attempt(client, "all", api_name="/arena_vote_a", browser=name)
            client.predict("terminal", api_name="/real_next", browser=name)
            accepted += attempt(client, "A", 2, api_name="/real_vote", browser=name)
        with session_scope(app.context.database.session_factory) as session:
            voters = {
                table.__tablename__: session.scalar(
                    select(func.count(func.distinct(table.voter_id)))
                )
                for table in (ArenaVoteRow, RealOrNotVoteRow)
            }
        pair = app.context.arena.open_pair("anonymous-racer", "terminal")
        assert pair is not None

        def vote(_: int) -> bool:
            try:
                app.context.arena.vote_pair(pair, "anonymous-racer", "a")
            except ConflictError:
                return False
            return True

        with ThreadPoolExecutor(6) as pool:
            stored = sum(pool.map(vote, range(6)))
        live = app.context.live_pool
        assert live is not None
        held = [live.lease("a"), live.lease("b")]
        shadow = Client(app.url, verbose=False)
        started = attempt(
            shadow, "terminal", "replay", "oracle", 8, 3, "shadow", api_name="/rollout_run"
        )
        in_use = live.count()
        for token in held:
            live.release(token)
        print(
            json.dumps(
                {
                    "vote_flood_names_tried": rounds,
                    "vote_flood_votes_accepted": accepted,
                    "distinct_voters_stored": voters,
                    "concurrent_duplicates_stored_of_6": stored,
                    "shadow_run_started_with_pool_full": started,
                    "live_places_in_use_max_2": in_use,
                },
                indent=2,
            )
        )
    finally:
        app.close()


if __name__ == "__main__":
    main()
