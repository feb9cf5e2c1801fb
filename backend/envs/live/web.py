"""The live web environment: MiniWoB++ task pages in a sandboxed Debian Chromium, via BrowserGym.

Observations are BrowserGym's flattened accessibility tree with bids, in the form of the recorded
web data; actions are the web domain's BrowserGym calls; the MiniWoB reward (1.0 on success) and
the end of the episode come back with each step. The task pages ship in the `miniwob` wheel and load
from `file://`, so nothing needs a network, and nothing but those pages may load.

Task names are BrowserGym's (`miniwob.click-button`). Each start draws a fresh random instance;
`miniwob.click-button@7` starts instance 7 again, and `WebEnvironment.task` names the instance
that runs, so a session can be replayed.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import re
import secrets
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from backend.domains.base import PromptContext
from backend.envs.live.base import LIVE, Check, LiveConfig, LiveKind, LiveStep, LiveTask
from backend.envs.live.browser import (
    SandboxedChromium,
    browser_missing,
    chromium_version,
    hidden_from_sandbox,
)
from backend.envs.live.miniwob import Episode, one_call_per_line
from backend.errors import LiveEnvironmentError, UnknownNameError

DEFAULT_TASK = "miniwob.click-button"
START_TIMEOUT_S = 90.0
"""Bound on launching the browser and setting up a task page (seconds here; more under load)."""
SCREENSHOT_MAX = (800, 600)
"""Largest screenshot in CSS pixels (MiniWoB's viewport is 332 x 214): a PNG of at most ~1 MB."""
INSTALL = (
    "pip install --no-deps browsergym-core==0.14.3 browsergym-miniwob==0.14.3 miniwob==1.1.0 "
    "(as scripts/setup.sh does)"
)
_PACKAGES = ("browsergym-core", "browsergym-miniwob", "miniwob", "playwright")
MINIWOB_CHECK = Check(
    "MiniWoB's own validation of the page (its reward); goto may not leave the task's pages"
)


def miniwob_pages() -> Path | None:
    """The `html` folder of the `miniwob` wheel (found without importing it), or None."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        return None
    pages = Path(next(iter(spec.submodule_search_locations))) / "html"
    return pages if (pages / "miniwob").is_dir() else None


@functools.cache
def _task_classes() -> dict[str, Any]:
    """BrowserGym's MiniWoB task classes by task name (importing BrowserGym takes ~0.5 s)."""
    from browsergym.miniwob import ALL_MINIWOB_TASKS

    return {task.get_task_id(): task for task in ALL_MINIWOB_TASKS}


def _title(pages: Path, task: Any) -> str:
    page = pages / "miniwob" / f"{task.subdomain}.html"
    found = re.search(r"<title>([^<]*)</title>", page.read_text(encoding="utf-8", errors="replace"))
    return f"MiniWoB++: {found.group(1).strip() if found else task.subdomain}"


def web_tasks() -> list[LiveTask]:
    """Every MiniWoB++ task BrowserGym defines (125 of the 130 pages: not 5 real-time ones)."""
    pages = miniwob_pages()
    if pages is None or web_missing():
        return []
    return [
        LiveTask(name, _title(pages, task), check=MINIWOB_CHECK)
        for name, task in _task_classes().items()
    ]


def web_missing() -> str:
    """What this machine lacks for the live web environment ("" when it can run)."""
    missing = browser_missing()
    if missing:
        return missing
    if importlib.util.find_spec("playwright") is None:
        return "pip install playwright (no browser download: Debian's Chromium is used)"
    pages = miniwob_pages()
    if importlib.util.find_spec("browsergym.miniwob") is None or pages is None:
        return INSTALL
    if hidden_from_sandbox(pages):
        return f"let others read {pages} (chmod o+rx it and o+x the folders above it)"
    return ""


def _parse_task(task: str) -> tuple[str, int]:
    """Split `name[@seed]`; a missing seed draws a random one.

    Raises:
        UnknownNameError: no such task, or a seed that is not a whole number.
    """
    name, _, seed = task.partition("@")
    if name not in _task_classes():
        close = difflib.get_close_matches(name, list(_task_classes()), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownNameError(f"Unknown web task {name!r}.{hint} Example: {DEFAULT_TASK!r}.")
    if seed and not seed.isdigit():
        raise UnknownNameError(f"The instance after '@' must be a whole number, not {seed!r}.")
    return name, int(seed) if seed else secrets.randbelow(1_000_000)


class WebEnvironment:
    """A MiniWoB++ task in a sandboxed Chromium; one browser, a fresh context at each start."""

    domain = "web"

    def __init__(self, config: LiveConfig) -> None:
        self._config = config
        self._browser: SandboxedChromium | None = None
        self._episode: Episode | None = None
        self._task: LiveTask | None = None
        self._pages = Path()  # the MiniWoB folder, set with the browser that may read it

    @property
    def version(self) -> str:
        """BrowserGym, MiniWoB, Playwright and Chromium versions, and the sandbox."""
        packages = ", ".join(f"{name} {metadata.version(name)}" for name in _PACKAGES)
        return f"{packages}; {chromium_version()} in bubblewrap"

    @property
    def task(self) -> LiveTask | None:
        """The running task: its name with the instance (`miniwob.x@7`) and the agent's goal."""
        return self._task

    def start(self, task: str | None = None) -> str:
        """Start a fresh instance of `task` (default: click-button); returns the first page."""
        if self._browser is None or not self._browser.alive:
            self.close()
            self._browser = self._new_browser()
        name, seed = _parse_task(task or DEFAULT_TASK)
        task_class, pages = _task_classes()[name], self._pages
        self._task = None

        def begin(browser: Any) -> tuple[Episode, str]:
            if self._episode is not None:
                self._episode.close()
                self._episode = None
            instance = task_class(seed=seed, base_url=f"{pages.as_uri()}/miniwob/")
            episode = Episode(browser, instance, pages)
            return episode, episode.observe()

        self._episode, observation = self._browser.run(begin, START_TIMEOUT_S)
        self._task = LiveTask(
            f"{name}@{seed}", _title(pages, task_class), self._episode.goal, MINIWOB_CHECK
        )
        return observation

    def _new_browser(self) -> SandboxedChromium:
        """A browser (launched on first use) that may read the MiniWoB pages and nothing else."""
        missing, pages = web_missing(), miniwob_pages()
        if missing or pages is None:
            raise LiveEnvironmentError(
                f"The live web environment cannot run here: {missing or INSTALL}."
            )
        self._pages = pages
        config = self._config
        return SandboxedChromium(
            config.work_dir,
            [pages],
            config.disk_mb,
            config.action_timeout_s,
            memory_mb=config.memory_mb,
            cpu_share=config.cpu_share,
            use_cgroups=config.cgroups,
        )

    def _running(self) -> tuple[SandboxedChromium, Episode]:
        if self._browser is None or self._episode is None:
            raise LiveEnvironmentError("The web environment is not started; start a task first.")
        return self._browser, self._episode

    def observe(self) -> str:
        """The current page's accessibility tree."""
        browser, episode = self._running()
        return browser.run(lambda _: episode.observe())

    def screenshot(self) -> bytes:
        """The active page's viewport as a PNG, clipped to `SCREENSHOT_MAX`.

        Taken on the browser's thread like every Playwright call; only the viewport, so a long
        page cannot make a large picture.
        """
        browser, episode = self._running()
        width, height = SCREENSHOT_MAX

        def take(_: Any) -> bytes:
            size = episode.page.viewport_size or {"width": width, "height": height}
            clip = {"x": 0, "y": 0, "width": min(size["width"], width)}
            clip["height"] = min(size["height"], height)
            picture: bytes = episode.page.screenshot(type="png", clip=clip, animations="disabled")
            return picture

        return browser.run(take)

    def act(self, action: str) -> LiveStep:
        """Run BrowserGym action calls; a failing action is reported in `info["error"]`.

        A failing action (a missing bid, a refused URL, text that is not an action call) leaves the
        page as it is, as in BrowserGym, whose error text (`last_action_error`) comes back in
        `info["error"]`; the observation is the page afterwards, in the recorded form.
        """
        browser, episode = self._running()
        code = one_call_per_line(action)
        started = time.monotonic()

        def step(_: Any) -> tuple[str, float, bool, str]:
            error, reward, done = episode.act(code)
            return episode.observe(), reward, done, error

        observation, reward, done, error = browser.run(step)
        info = {"error": error, "elapsed_s": round(time.monotonic() - started, 3)}
        return LiveStep(observation, reward=reward, done=done, info=info)

    def prompt_context(self) -> PromptContext:
        """The agent's goal (the MiniWoB utterance) as the prompt's task."""
        return PromptContext(task=self._task.goal if self._task else None)

    def close(self) -> None:
        """Stop the browser and its driver; safe to call twice."""
        if self._browser is not None:
            self._browser.close()
        self._browser = None
        self._episode = None
        self._task = None


LIVE.register(
    "web",
    LiveKind(domain="web", build=WebEnvironment, tasks=web_tasks, missing=web_missing),
)
