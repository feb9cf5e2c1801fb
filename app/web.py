"""Wires settings into services and the Gradio app, and launches it.

`build_app` is what `awp serve`, the tests and the Space's entry command share: it opens (and when
empty, migrates) the database, loads the bundled recordings into it once, and builds the UI.
"""

from __future__ import annotations

import logging
import threading
from functools import partial

import gradio as gr
from huggingface_hub import get_token

from app.auth import Auth
from app.context import AppContext
from app.settings import Settings
from backend.compare.contenders import parse_contenders
from backend.data.bundled import load_bundled
from backend.engines import load_builtin_engines
from backend.engines.base import ENGINES
from backend.envs.live.pool import LivePool
from backend.export.records import ExportContext
from backend.scoring.judge import JUDGE_PARAMS, Judge
from backend.training.config import TrainConfig
from storage.agreement import agreement
from storage.annotations import (
    AnnotationQueue,
    AnnotationStore,
    annotator_progress,
    domain_progress,
)
from storage.arena import ArenaStore
from storage.bench_runs import BenchRunStore
from storage.export_source import iter_export_records
from storage.judging import judge_item
from storage.migrate import open_database
from storage.sessions import SessionStore
from storage.train_runs import TrainRunStore
from storage.trajectories import TrajectoryStore
from ui.app import build_blocks
from ui.services import IN_PROCESS_ENGINES, EngineChoice, Progress, Services
from ui.shortcuts import SCRIPT
from ui.theme import CSS, theme

logger = logging.getLogger(__name__)

QUEUE_MAX_SIZE = 64
DEFAULT_CONCURRENCY = 8


def seed_bundled(store: TrajectoryStore) -> int:
    """Store the bundled recordings that are not stored yet; returns how many were added."""
    missing = [t for t in load_bundled() if not store.exists(t.id)]
    return store.upsert_many(missing) if missing else 0


def simulate_concurrency(settings: Settings) -> int:
    """Engine calls the queue runs at once.

    An in-process engine generates one request at a time (the transformers engine holds a lock),
    so running more in parallel only hides the queue position from waiting users; a server
    (vLLM, SGLang) batches concurrent requests, so it gets `settings.concurrency`.
    """
    return 1 if settings.engine in IN_PROCESS_ENGINES else max(1, settings.concurrency)


def build_services(settings: Settings, context: AppContext, auth: Auth) -> Services:
    """Open the stores and bundle everything the pages call."""
    database = open_database(settings.resolved_database_url())
    factory = database.session_factory
    trajectories = TrajectoryStore(factory)
    added = seed_bundled(trajectories)
    if added:
        logger.info("loaded %d bundled trajectories into the database", added)
    load_builtin_engines()
    defaults = EngineChoice(
        settings.engine,
        settings.model,
        settings.base_url,
        settings.history_mode,
        settings.sampling(),
    )
    return Services(
        simulator=context.simulator,
        engine=context.engine,
        data_dir=settings.data_dir,
        defaults=defaults,
        engines=tuple(ENGINES.names()),
        trajectories=trajectories,
        sessions=SessionStore(factory),
        bench_runs=BenchRunStore(factory),
        queue=AnnotationQueue(factory, overlap=settings.annotation_overlap),
        annotations=AnnotationStore(factory),
        progress=Progress(partial(annotator_progress, factory), partial(domain_progress, factory)),
        export_records=partial(iter_export_records, factory),
        export_context=ExportContext(system_prompt=context.prompts.system_prompt),
        can_push=bool(get_token()),
        identify=auth.identify,
        arena=ArenaStore(factory, settings.annotation_overlap),
        agreement=partial(agreement, factory),
        contenders=tuple(parse_contenders(settings.arena_contenders)),
        judge=partial(build_judge, settings, context),
        judge_item=partial(judge_item, factory),
        bootstrap_rounds=settings.arena_bootstrap_rounds,
        simulate_concurrency=simulate_concurrency(settings),
        hf_login=auth.hf_login,
        live=live_pool(settings),
        train_runs=TrainRunStore(factory),
        start_training=partial(start_training, context),
    )


def start_training(context: AppContext, config: TrainConfig, owner: str | None) -> None:
    """Train in a background thread; the run's row in SQL tells the Train page how it goes.

    A failure is recorded on the row (`failed` and why) by `run_training`, and logged here.
    """
    from app.training import run_training

    def work() -> None:
        try:
            run_training(context, config, show_progress=False, owner=owner)
        except Exception:
            logger.exception("training run in %s failed", config.out)

    threading.Thread(target=work, name=f"train-{config.out.name}", daemon=True).start()


def build_judge(settings: Settings, context: AppContext) -> Judge:
    """The rubric judge of the "Judge this" buttons (`AWP_JUDGE_*`; the default engine if unset)."""
    name = settings.judge_engine or settings.engine
    model = settings.judge_model if settings.judge_engine else (settings.judge_model or None)
    params = JUDGE_PARAMS.model_copy(update={"max_new_tokens": settings.judge_max_new_tokens})
    return Judge(context.engine(name, model), params=params)


def live_pool(settings: Settings) -> LivePool | None:
    """The live environments browser sessions may start (None when switched off)."""
    if not settings.live_enabled:
        return None
    return LivePool(settings.live_config(), settings.live_max, settings.live_idle_timeout_s)


def build_app(settings: Settings, auth: Auth | None = None) -> gr.Blocks:
    """Build the queued Gradio app for `settings` (not launched)."""
    auth = auth or Auth(settings)
    services = build_services(settings, AppContext(settings), auth)
    blocks = build_blocks(services)
    return blocks.queue(max_size=QUEUE_MAX_SIZE, default_concurrency_limit=DEFAULT_CONCURRENCY)


def launch(settings: Settings, auth: Auth | None = None, *, block: bool = True) -> gr.Blocks:
    """Build and serve the app on `settings.host:settings.port`.

    Args:
        settings: the process settings.
        auth: logins and roles; read from the environment when None.
        block: wait until the server stops (the CLI); False returns once it listens (tests).
    """
    auth = auth or Auth(settings)
    blocks = build_app(settings, auth)
    blocks.launch(
        server_name=settings.host,
        server_port=settings.port,
        auth=auth.check if auth.requires_login else None,
        auth_message="Sign in with the name and password you were given.",
        theme=theme(),
        css=CSS,
        head=SCRIPT,
        ssr_mode=False,
        show_error=False,
        prevent_thread_lock=not block,
        quiet=not block,
    )
    return blocks
