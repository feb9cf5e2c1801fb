.PHONY: serve test lint fix migrate bench

serve:  ## install everything and start the app on the embedded model
	bash scripts/setup.sh app
	.venv/bin/awp serve

test:  ## install what the tests need and run the whole suite
	bash scripts/setup.sh test
	bash scripts/run_tests.sh

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
