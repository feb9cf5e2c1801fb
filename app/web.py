"""Wires settings into services and the Gradio app, and launches it.

`build_app` is what `awp serve`, the tests and the Space's entry command share: it takes the
process's `AppContext`, whose one database (opened, and when empty migrated, on first use) and
stores every page shares, loads the bundled recordings into it once, and builds the UI. The
caller owns the context and closes it when the server stops.
"""

from __future__ import annotations

import logging
from functools import partial

import gradio as gr
from huggingface_hub import get_token
from starlette.middleware import Middleware

from app.auth import Auth
from app.context import AppContext, simulate_concurrency
from app.identity import IdentityCookie
from backend.compare.contenders import parse_contenders
from backend.data.bundled import load_bundled
from backend.engines import load_builtin_engines
from backend.engines.base import ENGINES
from backend.export.records import ExportContext
from backend.fair_use import MAX_WAITING
from backend.training.config import TrainConfig
from storage.agreement import agreement
from storage.annotations import annotator_progress, domain_progress
from storage.export_source import iter_export_records
from storage.judging import judge_item
from storage.trajectories import TrajectoryStore
from ui.app import build_blocks
from ui.services import EngineChoice, Progress, Services
from ui.shortcuts import SCRIPT
from ui.theme import CSS, theme

logger = logging.getLogger(__name__)

QUEUE_MAX_SIZE = 64
DEFAULT_CONCURRENCY = 8


def seed_bundled(store: TrajectoryStore) -> int:
    """Store the bundled recordings that are not stored yet; returns how many were added."""
    missing = [t for t in load_bundled() if not store.exists(t.id)]
    return store.upsert_many(missing) if missing else 0


def build_services(context: AppContext, auth: Auth) -> Services:
    """Bundle everything the pages call over the context's one database and engine cache."""
    settings = context.settings
    factory = context.database.session_factory
    added = seed_bundled(context.trajectories)
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
        world_spec=context.world_spec,
        simulator=context.simulator,
        engine=context.engine,
        data_dir=settings.data_dir,
        defaults=defaults,
        engines=tuple(ENGINES.names()),
        trajectories=context.trajectories,
        sessions=context.sessions,
        runs=context.runs,
        queue=context.annotation_queue,
        annotations=context.annotations,
        progress=Progress(partial(annotator_progress, factory), partial(domain_progress, factory)),
        export_records=partial(iter_export_records, factory, trust=context.trust),
        export_context=ExportContext(system_prompt=context.prompts.system_prompt),
        can_push=bool(get_token()),
        identify=auth.identify,
        arena=context.arena,
        agreement=partial(agreement, factory),
        contenders=tuple(parse_contenders(settings.arena_contenders)),
        judge=context.judge,
        judge_spec=context.judge_spec,
        judge_item=partial(judge_item, factory),
        jobs=context.jobs,
        bootstrap_rounds=settings.arena_bootstrap_rounds,
        simulate_concurrency=simulate_concurrency(settings),
        hf_login=auth.hf_login,
        live=context.live_pool,
        prompts=context.prompts,
        train=partial(train_model, context),
        fair=context.fair_use,
    )


def train_model(context: AppContext, config: TrainConfig, owner: str | None) -> None:
    """Train to the end in the calling thread (the Train page's job), recorded in the run store.

    A failure or a Cancel is recorded on the run (`failed` and why, or `interrupted`) by
    `run_training`'s run record and raised for the job to end the same way.
    """
    from app.training import run_training

    run_training(context, config, show_progress=False, owner=owner)


def build_app(context: AppContext, auth: Auth | None = None) -> gr.Blocks:
    """Build the queued Gradio app over `context` (not launched)."""
    auth = auth or Auth(context.settings)
    services = build_services(context, auth)
    blocks = build_blocks(services)
    return blocks.queue(max_size=QUEUE_MAX_SIZE, default_concurrency_limit=DEFAULT_CONCURRENCY)


def launch(context: AppContext, auth: Auth | None = None, *, block: bool = True) -> gr.Blocks:
    """Build and serve the app on the context's `host:port`.

    Args:
        context: the process's context; the caller closes it once the server has stopped.
        auth: logins and roles; read from the settings when None.
        block: wait until the server stops (the CLI); False returns once it listens (tests).
    """
    settings = context.settings
    auth = auth or Auth(settings)
    blocks = build_app(context, auth)
    blocks.launch(
        server_name=settings.host,
        server_port=settings.port,
        auth=auth.check if auth.requires_login else None,
        auth_message="Sign in with the name and password you were given.",
        theme=theme(),
        css=CSS,
        head=SCRIPT,
        ssr_mode=False,
        max_threads=2 * MAX_WAITING,  # waiting steps poll in threads; new visitors get the rest
        show_error=False,
        # Gradio's own check that localhost answers gives up after one 3 s HEAD request, and
        # then refuses to start ("a shareable link must be created") on a busy CPU; this app
        # never makes share links, so the check only ever stops a working server.
        _frontend=False,
        prevent_thread_lock=not block,
        quiet=not block,
        app_kwargs={"middleware": [Middleware(IdentityCookie, identities=auth.identities)]},
    )
    return blocks
