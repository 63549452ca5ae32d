#!/usr/bin/env bash
# How soon `sift serve` answers: starts `SIFT serve TSV --port P` and prints the seconds from the
# start until GET /health first answers 200, then stops the server.
#
#     scripts/serve-startup.sh SIFT_BINARY TSV [PORT]
#     scripts/serve-startup.sh SIFT_BINARY --table NAME [PORT]   # a PostgreSQL table (SIFT_POSTGRES_URL)
#
# A 1,000,000-row TSV: `servebench --records 1000000 --write-tsv FILE` (Benchmarks package).
# Target (issue 28): the first answer within 4 s on 1,000,000 rows.
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 SIFT_BINARY TSV [PORT]" >&2
    exit 2
fi
sift=$1
shift
if [[ $1 == --table ]]; then
    source_args=(--table "$2")
    shift 2
else
    source_args=("$1")
    shift
fi
port=${1:-7791}
command -v curl >/dev/null || { echo "$0: needs curl" >&2; exit 2; }

start=$(date +%s.%N)
"$sift" serve "${source_args[@]}" --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

while true; do
    if ! kill -0 "$server" 2>/dev/null; then
        echo "$0: sift serve exited before answering" >&2
        exit 1
    fi
    status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health" || true)
    if [[ $status == 200 ]]; then
        break
    fi
    sleep 0.02
done
end=$(date +%s.%N)
rows=$(curl -s "http://127.0.0.1:$port/health" | sed -n 's/.*"records":\([0-9]*\).*/\1/p')
awk -v s="$start" -v e="$end" -v rows="$rows" -v source="${source_args[*]}" \
    'BEGIN { printf "first GET /health 200 after %.2f s (%s, %s records)\n", e - s, source, rows }'
