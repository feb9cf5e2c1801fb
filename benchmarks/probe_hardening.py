"""Rerun issue 20's vote and live-budget probes against a real app; print what got through.

- vote flood: one client votes again and again (arena and Which-one-is-real) under new
  `browser` keys, new sessions and forged `awp_id` cookies; counts the voters stored;
- concurrent duplicates: six threads cast one voter's vote on one battle at once;
- live budget: a Rollouts-page shadow run while every place of `AWP_LIVE_MAX` is held.

With `--limits`, instead, the whole-sandbox limits (item 1) against real sandboxes, figures read
from each sandbox's cgroup (run as root; `tests/integration/test_live_cgroups.py` asserts them):

- memory fan-out: five 400 MB processes in a sandbox of 512 MB (+64 MB tmpfs);
- CPU burners left behind: three endless loops started by one action, on half a core;
- Web Workers: two busy workers on a `data:` page, during and after the step;
- many tabs: 40 tabs of 40 MB each in a browser of 512 MB (+2 x 64 MB /tmp and /dev/shm).

Usage: PYTHONPATH=$PWD .venv/bin/python benchmarks/probe_hardening.py [--rounds 20] [--limits]
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gradio_client import Client
from sqlalchemy import func, select

from app.identity import COOKIE
from backend.envs.live import cgroups
from backend.envs.live.browser import SandboxedChromium
from backend.envs.live.sandbox import Sandbox
from backend.envs.live.terminal import TerminalEnvironment
from backend.envs.live.web import miniwob_pages, web_missing
from backend.errors import ConflictError, LiveEnvironmentError
from storage.db import session_scope
from storage.models import ArenaVoteRow, RealOrNotVoteRow
from tests.support.app_server import follow_job, start_app
from tests.support.live import keys, live_config


def attempt(client: Client, *args: Any, **kwargs: Any) -> bool:
    """Whether the call returned without an error (a refusal may also be a message)."""
    try:
        client.predict(*args, **kwargs)
    except Exception:
        return False
    return True


MIB = 1024 * 1024
HOG = "b = bytearray(400 << 20); b[::4096] = b'x' * (len(b) // 4096); import time; time.sleep(2)"


def probe_limits() -> dict[str, Any]:
    """The four whole-sandbox probes; their figures (MiB, CPU seconds, counts)."""
    if not cgroups.enabled():
        return {"cgroups": cgroups.unavailable()}
    work = Path(tempfile.mkdtemp())
    config = live_config(work, cpu_share=0.5, sandbox_cpu_seconds=30)
    figures: dict[str, Any] = {"cgroup_version": cgroups.hierarchy().version}
    sandbox = Sandbox(config).open()
    try:
        fan_out = f'for i in 1 2 3 4 5; do python -c "{HOG}" & done; wait'
        sandbox.run(["bash", "-c", fan_out], timeout_s=60)
        assert sandbox.group is not None
        usage = sandbox.group.usage()
        figures["fan_out_limit_mib"] = config.memory_mb + config.disk_mb
        figures["fan_out_peak_mib"] = round(usage.memory_peak / MIB)
        figures["fan_out_oom_kills_of_5"] = usage.oom_kills
    finally:
        sandbox.close()
    terminal = TerminalEnvironment(config)
    terminal.start()
    try:
        shell = terminal._sandbox
        assert shell is not None and shell.group is not None
        group = shell.group
        terminal.act(keys(("for i in 1 2 3; do (while :; do :; done) & done\n", 2.0)))
        during = group.usage()
        time.sleep(2.0)
        after = group.usage()
        figures["burners_cpu_s_in_2s_action_on_half_core"] = round(during.cpu_s, 2)
        figures["burners_throttled_periods"] = during.throttled
        figures["burners_cpu_s_in_2s_after_action"] = round(after.cpu_s - during.cpu_s, 3)
    finally:
        terminal.close()
    figures.update(_probe_browser(work))
    return figures


def _probe_browser(work: Path) -> dict[str, Any]:
    pages = miniwob_pages()
    if web_missing() or pages is None:
        return {"browser": web_missing() or "no MiniWoB pages"}
    figures: dict[str, Any] = {}
    workers = "data:text/html,<script>for(let i=0;i<2;i++)new Worker(URL.createObjectURL("
    workers += "new Blob(['while(true){}'])))</script>"
    browser = SandboxedChromium(work, [pages], tmp_mb=64, timeout_s=120, memory_mb=512)
    try:
        tab = browser.run(lambda chromium: chromium.new_page())
        browser.run(lambda _: tab.goto(workers))
        start = browser.usage()
        browser.run(lambda _: tab.wait_for_timeout(2000))
        during = browser.usage()
        time.sleep(2.0)
        after = browser.usage()
        assert start is not None and during is not None and after is not None
        figures["workers_cpu_s_in_2s_step"] = round(during.cpu_s - start.cpu_s, 2)
        figures["workers_cpu_s_in_2s_after_step"] = round(after.cpu_s - during.cpu_s, 3)
    finally:
        browser.close()
    big = "data:text/html,<script>window.b=new Uint8Array(40<<20).fill(1)</script>"

    def open_tabs(chromium: Any) -> int:
        context = chromium.new_context()
        opened = 0
        for _ in range(40):
            try:
                context.new_page().goto(big)
                opened += 1
            except Exception:  # a tab the OOM killer ended
                continue
        return opened

    browser = SandboxedChromium(work, [pages], tmp_mb=64, timeout_s=120, memory_mb=512)
    try:
        try:
            figures["tabs_loaded_of_40"] = browser.run(open_tabs)
        except LiveEnvironmentError as exc:  # the kernel killed the browser itself
            figures["tabs_browser_ended"] = str(exc)[:120]
        usage = browser.usage()
        assert usage is not None
        figures["tabs_limit_mib"] = 512 + 2 * 64
        figures["tabs_peak_mib"] = round(usage.memory_peak / MIB)
        figures["tabs_oom_kills"] = usage.oom_kills
    finally:
        browser.close()
    return figures


def main() -> None:
    """Run the probes; print one JSON object of counts."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--limits", action="store_true", help="run the whole-sandbox probes")
    arguments = parser.parse_args()
    if arguments.limits:
        print(json.dumps(probe_limits(), indent=2))
        return
    rounds = arguments.rounds
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
            follow_job(client, "arena_battle", "terminal", "all", browser=name)
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
            votes = {
                table.__tablename__: session.scalar(select(func.count()).select_from(table))
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
        # A run is a job: its line, once it ended, says whether it ran or was refused.
        line, _ = follow_job(shadow, "rollout_run", "terminal", "replay", "oracle", 8, 3, "shadow")
        in_use = live.count()
        for token in held:
            live.release(token)
        print(
            json.dumps(
                {
                    "vote_flood_names_tried": rounds,
                    "vote_calls_without_error": accepted,
                    "distinct_voters_stored": voters,
                    "votes_stored": votes,
                    "concurrent_duplicates_stored_of_6": stored,
                    "shadow_run_with_pool_full_ended": re.sub(r"<[^>]+>", "", line)[:200],
                    "live_places_in_use_max_2": in_use,
                },
                indent=2,
            )
        )
    finally:
        app.close()


if __name__ == "__main__":
    main()
