"""The live web environment: real MiniWoB++ pages in a sandboxed Debian Chromium via BrowserGym."""

from __future__ import annotations

import importlib.util
import os
import re
import threading
import tomllib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from backend.data.bundled import load_bundled
from backend.envs.live.base import LiveConfig, live_kind
from backend.envs.live.browser import (
    BWRAP,
    CHROMIUM,
    NOBODY,
    SandboxedChromium,
    hidden_from_sandbox,
)
from backend.envs.live.instance import sandboxes_left
from backend.envs.live.miniwob import action_set
from backend.envs.live.web import WebEnvironment, miniwob_pages
from backend.errors import LiveEnvironmentError, UnknownNameError
from tests.support.processes import descendants, status

ROOT = Path(__file__).resolve().parents[2]
REFUSED = "ValueError: goto may only open this task's own pages"

if not os.access(CHROMIUM, os.X_OK):
    pytest.skip(f"Debian's Chromium is not installed ({CHROMIUM})", allow_module_level=True)
if importlib.util.find_spec("browsergym.miniwob") is None:
    pytest.skip("browsergym is not installed (scripts/setup.sh)", allow_module_level=True)


def _env(tmp_path: Path, action_timeout_s: float = 60.0) -> WebEnvironment:
    config = LiveConfig(work_dir=tmp_path / "live", action_timeout_s=action_timeout_s)
    environment = live_kind("web").build(config)
    assert isinstance(environment, WebEnvironment)
    return environment


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebEnvironment]:
    """One browser for the module; each test starts its own task in a fresh context."""
    environment = _env(tmp_path_factory.mktemp("web"))
    yield environment
    environment.close()


def _bid(observation: str, pattern: str) -> str:
    found = re.search(r"\[(\w+)\] " + pattern, observation)
    assert found, f"{pattern!r} not in\n{observation}"
    return found.group(1)


def _descendants(programs: tuple[str, ...]) -> list[int]:
    return [pid for pid, program in descendants().items() if program in programs]


def test_the_no_deps_install_kept_the_versions_the_app_needs() -> None:
    """browsergym-core pins playwright 1.44 and lxml<6: installed --no-deps, ours must stay."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = {Requirement(line).name: Requirement(line) for line in project["dependencies"]}
    for name in ("playwright", "lxml", "gymnasium", "beautifulsoup4", "pyparsing"):
        installed = metadata.version(name)
        assert requirements[name].specifier.contains(installed), (name, installed)
    browsergym = Requirement(
        next(r for r in metadata.requires("browsergym-core") or [] if r.startswith("playwright"))
    )
    assert not browsergym.specifier.contains(metadata.version("playwright"))
    assert metadata.version("browsergym-core") == metadata.version("browsergym-miniwob")


def test_registered_with_every_browsergym_miniwob_task() -> None:
    kind = live_kind("web")
    assert kind.missing() == ""
    names = [task.name for task in kind.tasks()]
    assert len(names) == 125
    assert "miniwob.click-button" in names
    pages = miniwob_pages()
    assert pages is not None
    assert all((pages / "miniwob" / f"{name.split('.', 1)[1]}.html").is_file() for name in names)


def test_replays_the_recorded_miniwob_episodes_line_for_line(env: WebEnvironment) -> None:
    """Same task and instance as the bundled AgentLab recordings: the same observations."""
    episodes = [t for t in load_bundled() if t.domain == "web" and t.id.startswith("miniwob/")]
    assert len(episodes) == 4
    for episode in episodes:
        name, seed = episode.id.split("/", 1)[1].rsplit("_", 1)
        assert env.start(f"miniwob.{name}@{seed}") == episode.initial_state
        assert env.task is not None
        assert env.task.goal == episode.task
        assert env.prompt_context().task == episode.task
        for turn in episode.turns:
            step = env.act(turn.action)
            assert step.info["error"] == ""
            assert step.observation == turn.observation, turn.action


def test_fill_then_click_solves_a_task(env: WebEnvironment) -> None:
    first = env.start("miniwob.enter-text")
    assert env.task is not None
    assert re.fullmatch(r"miniwob\.enter-text@\d+", env.task.name)
    word = re.search(r'"([^"]+)"', env.task.goal)
    assert word, env.task.goal
    box, submit = _bid(first, "textbox"), _bid(first, "button 'Submit'")
    filled = env.act(f"fill('{box}', {word.group(1)!r})")
    assert f"[{box}] textbox '' value={word.group(1)!r}" in filled.observation
    assert (filled.reward, filled.done) == (0.0, False)
    solved = env.act(f"click('{submit}')")
    assert (solved.reward, solved.done, solved.info["error"]) == (1.0, True, "")


def _png_size(picture: bytes) -> tuple[int, int]:
    assert picture.startswith(b"\x89PNG\r\n\x1a\n"), picture[:8]
    return int.from_bytes(picture[16:20], "big"), int.from_bytes(picture[20:24], "big")


def test_the_page_is_pictured_at_its_viewport_and_the_picture_follows_the_page(
    env: WebEnvironment,
) -> None:
    first = env.start("miniwob.enter-text@3")
    before = env.screenshot()
    assert _png_size(before) == (332, 214)  # MiniWoB's viewport, whatever the page's length
    env.act(f"fill('{_bid(first, 'textbox')}', 'pictured')")
    after = env.screenshot()
    assert _png_size(after) == (332, 214) and after != before


def test_the_same_instance_comes_back_and_calls_may_share_a_line(env: WebEnvironment) -> None:
    first = env.start("miniwob.click-checkboxes@7")
    goal = env.task.goal if env.task else ""
    assert env.start("miniwob.click-checkboxes@7") == first
    assert env.task is not None and env.task.goal == goal
    step = env.act("noop(0); click('18')")
    assert step.info["error"] == ""
    assert step.observation != first


def test_a_bad_bid_is_an_error_not_a_crash(env: WebEnvironment) -> None:
    before = env.start("miniwob.click-button@1")
    step = env.act("click('999')")
    assert step.info["error"] == 'ValueError: Could not find element with bid "999"'
    assert step.observation == before
    assert env.observe() == before
    assert env.act("noop(0)").info["error"] == ""


@pytest.fixture
def host_service() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on the host's loopback and the paths it was asked for."""
    seen: list[str] = []

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<title>host service</title>")

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/", seen
    server.shutdown()
    server.server_close()


def test_only_the_task_pages_load(env: WebEnvironment, host_service: tuple[str, list[str]]) -> None:
    service, seen = host_service
    pages = miniwob_pages()
    assert pages is not None
    hostname = Path("/etc/hostname").read_text().strip()
    before = env.start("miniwob.click-button@2")
    for url, error in (
        ("file:///etc/hostname", REFUSED),
        (service, REFUSED),
        (f"{pages.as_uri()}/../../../../../../etc/hostname", "net::ERR_ABORTED"),
        (
            f"{pages.as_uri()}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/hostname",
            "net::ERR_ABORTED",
        ),
    ):
        step = env.act(f"goto({url!r})")
        assert error in step.info["error"], url
        assert step.observation == before
        assert hostname not in step.observation
    button = _bid(before, "button")
    assert env.act(f"click('{button}')").done
    assert seen == []


@pytest.mark.parametrize(
    "url",
    [
        "javascript:void(core.endEpisode(1.0, true))",
        " JavaScript:core.endEpisode(1.0, true)",
        "java\tscript:core.endEpisode(1.0, true)",
        "data:text/html,<script>opener.core.endEpisode(1.0, true)</script>",
    ],
)
def test_a_script_url_cannot_set_the_reward(env: WebEnvironment, url: str) -> None:
    """The known hack: a `javascript:` navigation ended any task with reward 1.0."""
    before = env.start("miniwob.click-button@3")
    step = env.act(f"goto({url!r})")
    assert (step.reward, step.done, step.observation) == (0.0, False, before)
    assert step.info["error"].startswith(REFUSED)


def test_leaving_the_task_page_ends_the_episode(env: WebEnvironment) -> None:
    pages = miniwob_pages()
    assert pages is not None
    env.start("miniwob.click-button@5")
    missing = env.act(f"goto('{pages.as_uri()}/miniwob/no-such-task.html')")
    assert "ERR_FILE_NOT_FOUND" in missing.info["error"]
    assert (missing.reward, missing.done) == (0.0, True)
    env.start("miniwob.click-button@5")
    other = env.act(f"goto('{pages.as_uri()}/miniwob/click-dialog.html')")
    assert (other.info["error"], other.reward, other.done) == ("", 0.0, True)


def test_the_sandbox_alone_hides_host_files_and_network(
    tmp_path: Path, host_service: tuple[str, list[str]]
) -> None:
    """Without the allow-list, bubblewrap still shows no host file and no host service."""
    from playwright.sync_api import Error

    service, seen = host_service
    pages = miniwob_pages()
    assert pages is not None
    task_page = f"{pages.as_uri()}/miniwob/click-button.html"
    urls = (task_page, "file:///etc/hostname", (ROOT / "README.md").as_uri(), service)
    browser = SandboxedChromium(tmp_path, [pages], tmp_mb=64, timeout_s=60)

    def visit(chromium: Any) -> dict[str, str]:
        page = chromium.new_page()
        results = {}
        for url in urls:
            try:
                page.goto(url)
                results[url] = page.title()
            except Error as error:
                results[url] = str(error).splitlines()[0]
        return results

    try:
        results = browser.run(visit)
        # This sandbox's browsers only: the browser tests' own Chromium (root) may be running.
        sandbox = browser._sandbox_pid()
        assert sandbox is not None
        processes = [
            pid for pid, program in descendants(sandbox).items() if program == str(CHROMIUM)
        ]
        uids = {status(pid, "Uid") for pid in processes}
        filtered = [pid for pid in processes if status(pid, "Seccomp") == "2"]
    finally:
        browser.close()
    assert results[task_page] == "Click Button Task"
    assert "ERR_FILE_NOT_FOUND" in results["file:///etc/hostname"]
    assert "ERR_FILE_NOT_FOUND" in results[(ROOT / "README.md").as_uri()]
    assert "ERR_CONNECTION_REFUSED" in results[service]
    assert seen == []
    assert uids == ({str(NOBODY)} if os.geteuid() == 0 else {str(os.geteuid())})
    assert filtered, "Chromium's own sandbox (seccomp) should filter its renderers"


def test_python_code_is_refused(env: WebEnvironment, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    attack = f"__import__('os').system('touch {marker}')"
    with pytest.raises(Exception, match="Expected end of text"):
        action_set().to_python_code(attack)
    before = env.start("miniwob.click-button@3")
    for action in (attack, f"click('1') or {attack}", "upload_file('1', '/etc/passwd')"):
        step = env.act(action)
        assert step.info["error"].startswith(("ParseException", "NameError")), step.info
        assert step.observation == before
    assert not marker.exists()


def test_unknown_task_names_get_a_suggestion(env: WebEnvironment) -> None:
    with pytest.raises(UnknownNameError, match=r"Did you mean 'miniwob\.click-button'"):
        env.start("miniwob.click-buton")
    with pytest.raises(UnknownNameError, match="whole number"):
        env.start("miniwob.click-button@x")


def test_close_leaves_no_process_and_a_hung_action_is_stopped(tmp_path: Path) -> None:
    programs = (str(BWRAP), str(CHROMIUM))
    before = _descendants(programs)
    environment = _env(tmp_path, action_timeout_s=3.0)
    try:
        environment.start("miniwob.click-button@4")
        assert len(_descendants(programs)) > len(before)
        with pytest.raises(LiveEnvironmentError, match="did not answer within 3 s"):
            environment.act("noop(60000)")
        assert _descendants(programs) == before
        with pytest.raises(LiveEnvironmentError, match="stopped"):
            environment.observe()
        environment.start("miniwob.click-button@4")
        assert len(_descendants(programs)) > len(before)
    finally:
        environment.close()
        environment.close()
    assert _descendants(programs) == before
    assert sandboxes_left(tmp_path / "live") == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root drops to nobody")
def test_a_folder_nobody_may_not_read_is_named_in_the_error(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    assert hidden_from_sandbox(secret)
    pages = miniwob_pages()
    assert pages is not None and not hidden_from_sandbox(pages)
    browser = SandboxedChromium(tmp_path / "work", [secret], tmp_mb=64, timeout_s=60)
    try:
        with pytest.raises(LiveEnvironmentError, match=f"{secret}: Permission denied"):
            browser.run(lambda chromium: chromium)
    finally:
        browser.close()
