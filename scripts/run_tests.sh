#!/usr/bin/env bash
# Runs the whole suite: lint, types, schema check, then pytest against SQLite and a throwaway
# PostgreSQL cluster started here and stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"

printf '\n== ruff\n'
ruff check .
ruff format --check .
printf '\n== mypy\n'
mypy

printf '\n== alembic: one head, models match the migrations\n'
scratch=$(mktemp -d)
[ "$(alembic heads | wc -l)" -eq 1 ] || { alembic heads; echo "more than one head" >&2; exit 1; }
alembic -x "url=sqlite:///$scratch/check.db" upgrade head
alembic -x "url=sqlite:///$scratch/check.db" check
rm -rf "$scratch"

printf '\n== postgresql\n'
AWP_TEST_POSTGRES_URL=$(bash scripts/pg_test_cluster.sh start)
export AWP_TEST_POSTGRES_URL
trap 'bash scripts/pg_test_cluster.sh stop' EXIT

printf '\n== pytest\n'
status=0
python -m pytest -p no:cacheprovider -q "$@" || status=$?
if [ "$status" = 5 ]; then
    echo "pytest collected no tests: failing on purpose." >&2
fi
exit "$status"
