#!/usr/bin/env bash
# Start or stop a throwaway PostgreSQL cluster for the storage tests.
#
#   scripts/pg_test_cluster.sh start   # prints the URL to export as AWP_TEST_POSTGRES_URL
#   scripts/pg_test_cluster.sh stop    # stops the cluster and deletes its folder
#
# The cluster lives in a temporary folder, listens on a free loopback port only, trusts local
# connections and runs with fsync off: it is for tests, never for data. PostgreSQL refuses to run
# as root, so as root the server runs as the `postgres` user (Debian's `postgresql` package
# provides both that user and /usr/lib/postgresql/<version>/bin).
set -euo pipefail

# One cluster per checkout, so test runs of two checkouts (a CI clone beside a working copy) never
# meet; a state file left by a run that was killed is cleaned up by the next start.
REPO=$(cd "$(dirname "$0")/.." && pwd)
STATE_FILE="${AWP_PG_STATE:-${TMPDIR:-/tmp}/awp-pg-test-$(printf '%s' "$REPO" | md5sum | cut -c1-12).state}"

pg_bin() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [[ -z "$dir" ]]; then
        command -v pg_ctl >/dev/null 2>&1 && { dirname "$(command -v pg_ctl)"; return; }
        echo "PostgreSQL not found: apt-get install -y postgresql" >&2
        exit 1
    fi
    echo "$dir"
}

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Whether the cluster in data folder $1 has a live server (a killed one may linger as a zombie).
running() {
    local pid
    pid=$(head -n 1 "$1/postmaster.pid" 2>/dev/null) || return 1
    [[ -n "$pid" && -r "/proc/$pid/stat" ]] || return 1
    [[ $(awk '{print $3}' "/proc/$pid/stat") != Z ]]
}

start() {
    if [[ -f "$STATE_FILE" ]]; then
        if running "$(sed -n 1p "$STATE_FILE")/data"; then
            echo "a test cluster is already running (state in $STATE_FILE); stop it first" >&2
            exit 1
        fi
        echo "removing the state of a test cluster that is no longer running ($STATE_FILE)" >&2
        rm -rf "$(sed -n 1p "$STATE_FILE")" "$STATE_FILE"
    fi
    local bin dir port
    bin=$(pg_bin)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/awp-pg.XXXXXX")
    [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
    port=$(free_port)
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync -E UTF8 >"$dir/initdb.log"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start -o \
        "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        >/dev/null
    printf '%s\n%s\n' "$dir" "$bin" >"$STATE_FILE"
    echo "postgresql://postgres@127.0.0.1:$port/postgres"
}

stop() {
    if [[ ! -f "$STATE_FILE" ]]; then
        echo "no test cluster is running" >&2
        return 0
    fi
    local dir bin
    dir=$(sed -n 1p "$STATE_FILE")
    bin=$(sed -n 2p "$STATE_FILE")
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null || true
    rm -rf "$dir" "$STATE_FILE"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
