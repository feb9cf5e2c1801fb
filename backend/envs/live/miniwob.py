"""One MiniWoB++ episode in a browser context, run and observed exactly as BrowserGym does it.

BrowserGym's `BrowserEnv` would launch Playwright's own Chromium for its chat window (it ignores a
custom executable there and has no option to turn the chat off), use one process-wide Playwright
(bound to one thread), wait 0.5 s before every observation and take a screenshot each step. So
this module drives the same pieces itself: BrowserGym's MiniWoB task classes (setup, goal,
validation), its action parser and action functions, and its observation extraction. Everything
here runs on the browser's own thread (see `browser.SandboxedChromium`).
"""

from __future__ import annotations

import ast
import functools
import time
from pathlib import Path
from typing import Any

from backend.envs.live.browser import allow_only

EXTRACT_RETRIES = 5
_RETRYABLE = (
    "Frame was detached",
    "Frame with the given frameId is not found",
    "Execution context was destroyed",
    "Frame has been detached",
    "Cannot mark a child frame without a bid",
    "Cannot read properties of undefined",
)
_ACTIVATION_SCRIPT = """
window.browsergym_page_activated();
for (const name of ["focus", "focusin", "load", "pageshow", "mousemove", "mouseup", "mousedown",
                    "wheel", "keyup", "keydown", "input", "touchstart", "touchend"]) {
  window.addEventListener(name, () => window.browsergym_page_activated(), {capture: true});
}
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") window.browsergym_page_activated();
}, {capture: true});
"""
"""BrowserGym's active-page tracking: the page the agent last touched is the one observed."""


@functools.cache
def action_set() -> Any:
    """BrowserGym's high-level actions, strictly parsed, without the two file-upload actions.

    Strict parsing refuses anything that is not a sequence of action calls with literal arguments
    (the lenient default skips unparsable text between calls). Uploads are left out because they
    would read files of the host, outside the browser's sandbox.
    """
    from browsergym.core.action.highlevel import ACTION_SUBSETS, HighLevelActionSet

    wanted = ("chat", "infeas", "bid", "coord", "nav", "tab")
    actions = [action for subset in wanted for action in ACTION_SUBSETS[subset]]
    allowed = [action for action in actions if "upload" not in action.__name__]
    return HighLevelActionSet(subsets=["custom"], custom_actions=allowed, strict=True)


def one_call_per_line(action: str) -> str:
    """Put `;`-separated calls on lines of their own (the web domain allows `;`, BrowserGym not)."""
    try:
        module = ast.parse(action)
    except SyntaxError:
        return action
    parts = [ast.get_source_segment(action, statement) for statement in module.body]
    return "\n".join(part for part in parts if part) if all(parts) else action


def refused_navigation(action: str, prefix: str) -> str:
    """Why `action` may not run ("" when it may): a `goto` to a URL that is not a task page.

    The route allow-list stops requests, but a `javascript:` URL is no request: it runs script in
    the task page, which can end the episode with any reward (`core.endEpisode(1.0, true)`), so
    the only URLs `goto` may open are the task pages under `prefix`, written out literally.
    """
    try:
        module = ast.parse(action)
    except SyntaxError:
        return ""  # not calls at all: BrowserGym's strict parser reports it
    for node in ast.walk(module):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "goto"):
            continue
        given = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "url")]
        url = given[0].value if given and isinstance(given[0], ast.Constant) else None
        if not (isinstance(url, str) and url.startswith(prefix)):
            return "ValueError: goto may only open this task's own pages, written out as a URL."
    return ""


def flatten(axtree: dict[str, Any], extra: dict[str, Any]) -> str:
    """The accessibility tree as text, in the form of the recorded BrowserGym (AgentLab) data.

    Chromium 13x and later add `InlineTextBox` children and a `url` property (on the root and on
    links) that the Chromium of the recordings did not report; both are left out, so observations
    match the recorded ones line for line and carry no host paths.
    """
    from browsergym.utils.obs import (
        IGNORED_AXTREE_PROPERTIES,
        IGNORED_AXTREE_ROLES,
        flatten_axtree_to_str,
    )

    text: str = flatten_axtree_to_str(
        axtree,
        extra_properties=extra,
        with_visible=True,
        with_clickable=True,
        ignored_roles=[*IGNORED_AXTREE_ROLES, "InlineTextBox"],
        ignored_properties=(*IGNORED_AXTREE_PROPERTIES, "url"),
    )
    return text


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"Forbidden value: {value} is not a string")
    return value


class Episode:
    """A MiniWoB task running in its own browser context, with BrowserGym's page bookkeeping."""

    def __init__(self, browser: Any, task: Any, pages: Path) -> None:
        self.task = task
        self.chat: list[dict[str, str]] = []
        self.infeasible = False
        self.context = browser.new_context(viewport=task.viewport)
        self.context.set_default_timeout(task.timeout)
        self.prefix = pages.as_uri() + "/"
        allow_only(self.context, self.prefix)
        self.history: dict[Any, None] = {}
        self.context.expose_binding(
            "browsergym_page_activated", lambda source: self._activate(source["page"])
        )
        self.context.add_init_script(_ACTIVATION_SCRIPT)
        self.page = self.context.new_page()
        self.goal: str = task.setup(page=self.page)[0]

    def _activate(self, page: Any) -> None:
        self.history.pop(page, None)
        self.history[page] = None
        self.page = page

    def observe(self) -> str:
        """Mark the page's elements with bids, read the accessibility tree, flatten it."""
        from browsergym.core import observation as bgo
        from playwright.sync_api import Error

        for left in reversed(range(EXTRACT_RETRIES)):
            try:
                bgo._pre_extract(self.page, tags_to_mark="standard_html", lenient=left == 0)
                dom = bgo.extract_dom_snapshot(self.page)
                axtree = bgo.extract_merged_axtree(self.page)
                scale = getattr(self.page, "_bgym_scale_factor", 1.0)
                extra = bgo.extract_dom_extra_properties(dom, scale_factor=scale)
            except (Error, bgo.MarkingError) as error:
                if left == 0 or not any(text in str(error) for text in _RETRYABLE):
                    raise
                bgo._post_extract(self.page)
                time.sleep(0.5)
                continue
            break
        bgo._post_extract(self.page)
        return flatten(axtree, extra)

    def act(self, action: str) -> tuple[str, float, bool]:
        """Parse and run BrowserGym action calls; returns (error or "", reward, done).

        As in BrowserGym, an action that cannot be parsed or fails is an error text, not an
        exception, and the task is checked afterwards all the same. A `goto` that leaves the
        task's pages does not run at all (`refused_navigation`).
        """
        from browsergym.core.action.base import execute_python_code

        def tell_user(text: str) -> None:
            self.chat.append({"role": "assistant", "message": _text(text)})

        def infeasible(reason: str) -> None:
            self.chat.append({"role": "infeasible", "message": _text(reason)})
            self.infeasible = True

        error = refused_navigation(action, self.prefix)
        if error:
            return (error, *self._check())
        try:
            code = action_set().to_python_code(action)
            execute_python_code(code, self.page, tell_user, infeasible)
        except Exception as failure:  # BrowserGym reports every action failure this way.
            error = f"{type(failure).__name__}: {failure}"
        self._settle()
        return (error, *self._check())

    def _check(self) -> tuple[float, bool]:
        """The task's reward and end; a page that is no task page any more ends the episode.

        BrowserGym's check ends it when the address changed; a failed load (an error page at the
        same address) makes the check itself fail, which ends the episode the same way.
        """
        from playwright.sync_api import Error

        try:
            reward, done, _, _ = self.task.validate(self.page, self.chat)
        except Error:
            return 0.0, True
        return float(reward), bool(done) or self.infeasible

    def _settle(self) -> None:
        """Let page callbacks run, wait for loading pages, and keep an open page active."""
        from playwright.sync_api import Error

        self.context.cookies()  # flushes Playwright's pending callbacks (BrowserGym does this too)
        for page in self.context.pages:
            for frame in page.frames:
                try:
                    frame.wait_for_load_state("domcontentloaded", timeout=3000)
                except Error:
                    continue
        if not self.context.pages:
            self.page = self.context.new_page()
        while self.page.is_closed() or self.page not in self.context.pages:
            self.history.pop(self.page, None)
            self.page = next(reversed(self.history), self.context.pages[-1])

    def close(self) -> None:
        """Close the context and every page in it."""
        self.task.teardown()
        self.context.close()
