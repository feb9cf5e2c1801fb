"""Browser-test fixtures: Debian's Chromium under Playwright, the app, screenshots to artifacts.

Chromium comes from apt (`/usr/bin/chromium`), never from `playwright install`; when it is
missing, the first browser test tries `apt-get install -y chromium` and skips if that fails.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.app_server import RunningApp, start_app

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
]
VIEWPORT = {"width": 1440, "height": 1000}
SETTLED = "() => document.querySelectorAll('.pending, .generating').length === 0"
SETTLE_TIMEOUT_MS = 15_000


def ensure_chromium() -> Path:
    """Return Chromium's path, installing the Debian package first when it is missing."""
    if not CHROMIUM.exists() and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "chromium"], capture_output=True, check=False)
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed and could not be installed with apt-get")
    return CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Chromium for one test module.

    Playwright's sync API keeps its asyncio loop marked running while it is open, so a
    session-wide browser made every later test on the same xdist worker that calls
    `asyncio.run` (Inspect's `eval`) fail with "cannot be called from a running event loop".
    """
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = ensure_chromium()
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(executable), headless=True, args=ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(tmp_path_factory.mktemp("browser-app"))
    yield running
    running.close()


@pytest.fixture(scope="module")
def model_app(
    request: pytest.FixtureRequest, tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningApp]:
    """The app on the real transformers engine with the tiny random model, for a job to cancel.

    The model never says end-of-sequence, so every prediction decodes the module's whole
    `BUDGET` of tokens: the work is still going when the test reloads or presses Cancel.
    """
    running = start_app(
        tmp_path_factory.mktemp("model-app"),
        engine="transformers",
        settings={"model": str(tiny_model_dir), "max_new_tokens": request.module.BUDGET},
    )
    yield running
    running.close()


@pytest.fixture
def tab(browser, model_app: RunningApp) -> Iterator:
    """A fresh page of `model_app`'s browser (the app is started first)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()


@pytest.fixture
def page(browser, app: RunningApp) -> Iterator:
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    yield tab
    context.close()


@pytest.fixture
def shot() -> callable:
    """Save a full-page screenshot under tests/artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)

    def save(page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        # Gradio fades a component while an event that updates it still runs; a screenshot
        # taken then shows a washed-out page. Wait for the page to settle (but take the
        # screenshot anyway: a page that never settles is itself worth looking at).
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(SETTLED, timeout=SETTLE_TIMEOUT_MS)
        page.screenshot(path=str(path), full_page=True)
        return path

    return save
