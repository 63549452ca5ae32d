#!/usr/bin/env bash
# Fuzzes Sift with libFuzzer (one process each, one target after the other).
#   scripts/fuzz.sh [SECONDS] [--target index|controller|query|all] [--grow-corpus]
#
# SECONDS (default 120) is per target; --target picks the targets (default all):
#   index       SiftIndexFuzzer: records and typed queries; every keystroke against ICU usearch,
#               and as a words query with operators against a brute-force evaluation, before
#               and after an edit. Corpus: Fuzz/Corpus.
#   controller  SiftControllerFuzzer: keystrokes, backspaces, scopes, submits, cancels and edits
#               through either table, racing the answers; the updates' generations and change
#               sets, and the tables against a fresh index and usearch. Corpus: Fuzz/ControllerCorpus.
#   query       SiftQueryFuzzer: a query text grown into operator expressions of many terms with
#               repeats, negations and phrases; answers against a brute-force evaluation, and
#               QueryLimits refusing cleanly (SiftError.queryTooLarge naming a limit the query is
#               past). Corpus: Fuzz/QueryCorpus.
# New inputs go to a scratch corpus; with --grow-corpus, inputs that add coverage are merged into
# the target's corpus (commit them: the tests replay both corpora). Crashes and disagreements land
# in fuzz-artifacts/ (index-*, controller-* and query-*). Each target ends with one line: its final
# coverage (cov, ft), execs per second, libFuzzer's input length limit at the end and the largest
# input it added.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=120
target=all
grow=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="${2:?--target needs index, controller, query or all}"; shift 2 ;;
    --target=*) target="${1#--target=}"; shift ;;
    --grow-corpus) grow=1; shift ;;
    [0-9]*) seconds="$1"; shift ;;
    *) echo "usage: scripts/fuzz.sh [SECONDS] [--target index|controller|query|all] [--grow-corpus]" >&2; exit 2 ;;
  esac
done
case "$target" in
  index) targets=(index) ;;
  controller) targets=(controller) ;;
  query) targets=(query) ;;
  all) targets=(index controller query) ;;
  *) echo "fuzz: unknown target '$target' (index, controller, query or all)" >&2; exit 2 ;;
esac

swift build --package-path Fuzz -c release --scratch-path .build-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address
mkdir -p fuzz-artifacts
# libFuzzer reports crashes itself; Swift's backtracer, started on a fatalError, can outlive the
# fuzzer holding its output (and any lock the caller holds) open.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

for name in "${targets[@]}"; do
  if [ "$name" = index ]; then
    fuzzer=.build-fuzz/release/SiftIndexFuzzer corpus=Fuzz/Corpus max_len=8192
  elif [ "$name" = query ]; then
    fuzzer=.build-fuzz/release/SiftQueryFuzzer corpus=Fuzz/QueryCorpus max_len=4096
  else
    fuzzer=.build-fuzz/release/SiftControllerFuzzer corpus=Fuzz/ControllerCorpus max_len=4096
  fi
  scratch="$(mktemp -d)"
  log="$(mktemp)"
  # -len_control=20: grow the length limit five times faster than libFuzzer's default, so that
  # inputs longer than the seeds get tried within minutes.
  status=0
  "$fuzzer" -max_total_time="$seconds" -max_len="$max_len" -len_control=20 -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="fuzz-artifacts/$name-" \
    "$scratch" "$corpus" 2>&1 | tee "$log" || status=$?
  if [ "$status" -ne 0 ]; then
    rm -rf "$scratch" "$log"
    echo "fuzz: $name found a problem (see fuzz-artifacts/)" >&2
    exit "$status"
  fi
  if [ -n "$grow" ]; then
    "$fuzzer" -merge=1 -max_len="$max_len" "$corpus" "$scratch"
  fi
  done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$log" | tail -n 1 || true)
  largest=$(find "$scratch" -type f -printf '%s\n' | sort -n | tail -n 1)
  echo "fuzz: $name: no problem in ${seconds} s · $(echo "$done_line" | grep -oE 'cov: [0-9]+ ft: [0-9]+') ·" \
    "$(echo "$done_line" | grep -oE 'exec/s: [0-9]+') · length limit $(echo "$done_line" | grep -oE 'lim: [0-9]+' | cut -c6-)" \
    "· largest new input ${largest:-0} bytes"
  rm -rf "$scratch" "$log"
done
