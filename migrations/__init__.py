"""Alembic migrations: the only source of the database schema (see storage/migrate.py)."""
