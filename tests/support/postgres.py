"""Database fixtures for storage tests: real SQLite always, real PostgreSQL when a URL is given.

Set AWP_TEST_POSTGRES_URL (for example the URL `scripts/pg_test_cluster.sh start` prints) to run
every test that uses `database_url` against PostgreSQL too; each test gets its own database,
dropped afterwards. Without it the PostgreSQL variants are skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy.engine import make_url

from backend.parsing import parse_output
from backend.types import Prediction
from storage.db import Database
from storage.migrate import upgrade

POSTGRES_ENV = "AWP_TEST_POSTGRES_URL"


def postgres_admin_url() -> str | None:
    """The PostgreSQL server URL tests may create databases on, if configured."""
    return os.environ.get(POSTGRES_ENV) or None


@contextmanager
def fresh_postgres_database(admin_url: str) -> Iterator[str]:
    """Create an empty database on the server, yield its URL, drop it afterwards."""
    import psycopg

    admin = make_url(admin_url).set(drivername="postgresql")
    name = f"awp_test_{uuid.uuid4().hex[:12]}"
    conninfo = admin.render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """An empty database URL: a SQLite file, then (when configured) a PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'awp.db'}"
        return
    admin = postgres_admin_url()
    if admin is None:
        pytest.skip(f"set {POSTGRES_ENV} to run the storage tests against PostgreSQL")
    with fresh_postgres_database(admin) as url:
        yield url


@pytest.fixture
def database(database_url: str) -> Iterator[Database]:
    """A database migrated to head through Alembic (the only source of schema)."""
    upgrade(database_url)
    db = Database(database_url)
    yield db
    db.dispose()


def fake_prediction(
    observation: str, engine: str = "fake", model: str = "fake-model"
) -> Prediction:
    """A prediction as an engine would return it for `observation`, without any engine."""
    raw = f"<think>looking</think><predicted_observation>{observation}</predicted_observation>"
    parsed = parse_output(raw)
    return Prediction(
        observation=parsed.observation,
        reasoning=parsed.reasoning,
        raw_text=raw,
        finish_reason="stop",
        prompt_tokens=12,
        completion_tokens=len(raw) // 4,
        latency_s=0.01,
        engine=engine,
        model=model,
        diagnostics=parsed.diagnostics,
    )


@pytest.fixture
def make_prediction() -> Callable[..., Prediction]:
    """`fake_prediction` as a fixture, so test modules need not import this plugin module."""
    return fake_prediction
