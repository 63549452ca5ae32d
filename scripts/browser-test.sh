#!/usr/bin/env bash
# The browser test of `sift serve`: a million made-up people, a real server, headless Chromium.
#
# Usage: scripts/browser-test.sh [SIFT]       (default .build/debug/sift)
#   SIFT_SCREENSHOTS=DIR  where the screenshots go (default: a new temporary folder, kept)
#   SIFT_README_IMAGE=1   also copy the desktop screenshot to docs/images/sift-serve.png
# Needs python3 with playwright (PyPI) and Debian's chromium; downloads nothing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
sift=${1:-.build/debug/sift}
[[ -x $sift ]] || { echo "browser-test: no sift binary at $sift (build it first)" >&2; exit 2; }
sift=$(cd "$(dirname "$sift")" && pwd)/$(basename "$sift")
chromium=${CHROMIUM:-/usr/bin/chromium}
[[ -x $chromium ]] || { echo "browser-test: no Chromium at $chromium (apt-get install chromium)" >&2; exit 2; }
python3 -c 'import playwright' 2>/dev/null || { echo "browser-test: python3 lacks playwright (pip install playwright)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/sift-browser-test.XXXXXX")
shots=${SIFT_SCREENSHOTS:-$(mktemp -d "${TMPDIR:-/tmp}/sift-screenshots.XXXXXX")}
mkdir -p "$shots"
server=
cleanup() {
    if [[ -n $server ]] && kill -0 "$server" 2>/dev/null; then kill -KILL "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

started=$SECONDS
echo "browser-test: writing 1,000,000 made-up people"
python3 "$root/Tests/Browser/make_data.py" "$work"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
admin_key=admin-$RANDOM$RANDOM
search_key=search-$RANDOM$RANDOM
url=http://127.0.0.1:$port
echo "browser-test: starting $sift serve on port $port"
"$sift" serve "$work/people.tsv" --port "$port" --admin-key "$admin_key" --search-key "$search_key" \
    --data-dir "$work/data" >"$work/server.log" 2>&1 &
server=$!

# A debug build takes about a minute to load a million rows.
for _ in $(seq 600); do
    if curl -fsS "$url/health" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$server" 2>/dev/null; then
        echo "browser-test: the server exited while starting:" >&2; cat "$work/server.log" >&2; exit 1
    fi
    sleep 1
done
curl -fsS "$url/health" >/dev/null || { echo "browser-test: no /health after 600 s" >&2; cat "$work/server.log" >&2; exit 1; }
echo "browser-test: server up after $((SECONDS - started)) s"

status=0
python3 "$root/Tests/Browser/test_page.py" --url "$url" --admin-key "$admin_key" --search-key "$search_key" \
    --screenshots "$shots" --chromium "$chromium" || status=$?

kill -TERM "$server"
(sleep 60; kill -KILL "$server") >/dev/null 2>&1 &   # a server that ignores SIGTERM fails the test
watchdog=$!
server_status=0
wait "$server" || server_status=$?
kill "$watchdog" 2>/dev/null || true
server=
if [[ $server_status -ne 0 ]]; then
    echo "browser-test: the server exited with status $server_status after SIGTERM" >&2
    status=1
fi
if [[ $status -ne 0 ]]; then
    echo "browser-test: FAILED; screenshots in $shots; the server's log ends:" >&2
    tail -20 "$work/server.log" >&2
    exit 1
fi
if [[ ${SIFT_README_IMAGE:-0} == 1 ]]; then
    mkdir -p "$root/docs/images"
    cp "$shots/desktop.png" "$root/docs/images/sift-serve.png"
    echo "browser-test: copied the desktop screenshot to docs/images/sift-serve.png"
fi
echo "browser-test: passed in $((SECONDS - started)) s; screenshots in $shots"
