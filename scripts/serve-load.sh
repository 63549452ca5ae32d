#!/usr/bin/env bash
# Load test of `sift serve`'s GET /search with wrk (Debian's package).
#   scripts/serve-load.sh SIFT_BINARY [ROWS] [-- WRK_OPTIONS...]
#
# Writes ROWS (default 1,000,000) made-up records to a temporary TSV (id; name: two made-up
# words of 2 to 4 syllables; place: one; region: one of 8, a category scope), starts SIFT_BINARY
# serve on it on a free loopback port without keys (build it with -c release), and prints how long
# the first search took to answer after the start. Then it runs
#   wrk -t2 -c64 -d20s --timeout 10s --latency -s scripts/serve-load.lua
# against GET /search?q=QUERY&limit=50, rotating over the 50 queries of 3 to 6 letters in
# serve-load.lua, and prints requests/s and the latency percentiles (wrk's own report, then one
# summary line), the matches per query, the server's memory and /stats. WRK_OPTIONS replace the
# -t2 -c64 -d20s --timeout 10s (wrk leaves requests that time out out of its percentiles, so the
# timeout is long). Fails if any request failed, timed out or answered other than 2xx.
# Needs: wrk, curl, python3.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '3,3p' "$0" | sed 's/^# *//' >&2; exit 2; }
[ $# -ge 1 ] || usage
sift=$(realpath "$1")
shift
rows=1000000
if [ $# -gt 0 ] && [ "$1" != "--" ]; then rows="$1"; shift; fi
wrk_options=(-t2 -c64 -d20s --timeout 10s)
if [ $# -gt 0 ]; then
  [ "$1" = "--" ] || usage
  shift
  wrk_options=("$@")
fi
[ -x "$sift" ] || { echo "serve-load: $sift is not an executable" >&2; exit 2; }
command -v wrk >/dev/null || { echo "serve-load: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
case "$sift" in *debug*) echo "serve-load: warning: $sift looks like a debug build; figures need -c release" >&2 ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/sift-serve-load.XXXXXX")
server=""
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The records: the syllables of Benchmarks' SyllableNames, so serve-load.lua's queries match.
python3 - "$work/records.tsv" "$rows" <<'EOF'
import random, sys
path, rows = sys.argv[1], int(sys.argv[2])
rng = random.Random(28)
syllables = ["ka", "lo", "mi", "ra", "sen", "tu", "vo", "zan", "pel", "dor", "qui", "bra"]
regions = ["North", "South", "East", "West", "Coast", "Hills", "Plains", "Islands"]
lengths = [2, 3, 3, 4]  # 22,000 possible words
choice = rng.choice
def word():
    return "".join(choice(syllables) for _ in range(choice(lengths))).capitalize()
with open(path, "w", buffering=1 << 20) as out:
    out.write("id\tname\tplace\tregion\n")
    for i in range(1, rows + 1):
        out.write(f"{i}\t{word()} {word()}\t{word()}\t{choice(regions)}\n")
EOF
cat >"$work/records.sift.json" <<'EOF'
{
  "fields": ["name", "place"],
  "id": "id",
  "mode": "contains",
  "sort": "name",
  "order": "ranked",
  "show": ["name", "place", "region"],
  "scopes": [
    {"name": "All"},
    {"name": "Name", "fields": ["name"]},
    {"name": "Place", "fields": ["place"]},
    {"name": "North", "category": {"field": "region", "values": ["North"]}},
    {"name": "Coast", "category": {"field": "region", "values": ["Coast"]}}
  ]
}
EOF
echo "serve-load: $rows records, $(du -h "$work/records.tsv" | cut -f1) of TSV"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
started=$(date +%s%N)
"$sift" serve "$work/records.tsv" --port "$port" >"$work/server.log" 2>&1 &
server=$!
until curl -fsS -o /dev/null "$base/search?q=kal&limit=50" 2>/dev/null; do
  if ! kill -0 "$server" 2>/dev/null; then
    echo "serve-load: the server exited before answering:" >&2
    cat "$work/server.log" >&2
    server=""
    exit 1
  fi
  if [ $(($(date +%s%N) - started)) -gt 600000000000 ]; then
    echo "serve-load: no answer after 600 s" >&2
    exit 1
  fi
  sleep 0.05
done
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
printf 'serve-load: first search answered %d.%03d s after the start\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000))

# What the queries match, and that a page has 50 rows.
python3 - "$base" scripts/serve-load.lua <<'EOF'
import json, re, statistics, sys, urllib.parse, urllib.request
base, lua = sys.argv[1], open(sys.argv[2]).read()
queries = re.findall(r'"([^"]+)"', re.search(r"local queries = \{(.*?)\}", lua, re.S).group(1))
totals = []
for query in queries:
    with urllib.request.urlopen(f"{base}/search?q={urllib.parse.quote(query)}&limit=50") as answer:
        body = json.load(answer)
    if body["total"] >= 50 and len(body["rows"]) != 50:
        sys.exit(f"serve-load: {query!r}: {len(body['rows'])} rows of {body['total']}, not 50")
    totals.append(body["total"])
print(f"serve-load: {len(queries)} queries match {min(totals):,} to {max(totals):,} records "
      f"(median {int(statistics.median(totals)):,})")
EOF

wrk "${wrk_options[@]}" --latency -s scripts/serve-load.lua "$base" | tee "$work/wrk.log"

rss=$(ps -o rss= -p "$server" | tr -d ' ')
echo "serve-load: server resident memory $((rss / 1024)) MiB"
echo "serve-load: /stats $(curl -fsS "$base/stats" || echo unavailable)"
kill -TERM "$server"
wait "$server" || { echo "serve-load: the server exited with status $? after SIGTERM" >&2; server=""; exit 1; }
server=""
if grep -qE "Non-2xx|Socket errors" "$work/wrk.log"; then
  echo "serve-load: FAILED: some requests failed (see wrk's report above)" >&2
  exit 1
fi
