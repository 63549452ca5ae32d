#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks: a new data folder, reachable only
# through a Unix socket in that folder, trusting local connections, gone when stopped.
#
#   scripts/postgres-cluster.sh start DIR      # prints the URL to use (postgres://…?host=DIR…)
#   scripts/postgres-cluster.sh restart DIR    # stops the server (fast) and starts it again
#   scripts/postgres-cluster.sh stop DIR       # stops the server and deletes DIR
#   scripts/postgres-cluster.sh run CMD ARGS…  # start, run CMD with SIFT_POSTGRES_URL set, stop
#
# Needs PostgreSQL's server programs (Debian: apt-get install postgresql). Run as root, the
# server runs as the user `postgres` (initdb refuses root).
set -euo pipefail

bindir() {
    if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
        dirname "$(command -v initdb)"
        return
    fi
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    if [[ -z "$dir" ]]; then
        echo "postgres-cluster.sh: PostgreSQL's server programs (initdb, pg_ctl) are not installed" >&2
        exit 3
    fi
    echo "$dir"
}

as_server_user() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

start() {
    local dir=$1 bin port=${SIFT_POSTGRES_PORT:-5432}
    bin=$(bindir)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ $(id -u) -eq 0 ]]; then chown postgres "$dir"; chmod 755 "$dir"; fi
    as_server_user "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -p $port -c fsync=off -c max_connections=200" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres@/postgres?host=$dir&port=$port"
}

stop() {
    local dir=$1 bin
    bin=$(bindir)
    [[ -d "$dir/data" ]] && as_server_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}

restart() {
    local dir=$1 bin
    bin=$(bindir)
    as_server_user "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 restart >/dev/null
}

# The server must not inherit the caller's descriptors (a test process's client sockets, say):
# a server that holds one keeps that connection from ever being seen as closed.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [[ $fd =~ ^[0-9]+$ ]] && ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
done

case "${1:-}" in
    start) start "$2" ;;
    restart) restart "$2" ;;
    stop) stop "$2" ;;
    run)
        shift
        dir=$(mktemp -d "${TMPDIR:-/tmp}/sift-postgres.XXXXXX")
        trap 'stop "$dir"' EXIT
        SIFT_POSTGRES_URL=$(start "$dir")
        export SIFT_POSTGRES_URL
        "$@"
        ;;
    *)
        echo "usage: $0 start DIR | restart DIR | stop DIR | run CMD [ARGS…]" >&2
        exit 2
        ;;
esac
