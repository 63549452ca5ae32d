#!/usr/bin/env bash
# Fuzzes Sift against ICU usearch with libFuzzer for a while (default 120 s).
#   scripts/fuzz.sh [SECONDS] [--grow-corpus]
# New inputs go to a scratch corpus; with --grow-corpus, inputs that add coverage are merged into
# Fuzz/Corpus (commit them: the tests replay that corpus). Crashes land in fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-120}"
grow="${2:-}"
swift build --package-path Fuzz -c release --scratch-path .build-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address
fuzzer=".build-fuzz/release/SiftFuzzer"
scratch="$(mktemp -d)"
mkdir -p fuzz-artifacts
"$fuzzer" -max_total_time="$seconds" -max_len=512 -timeout=20 -rss_limit_mb=4096 \
  -artifact_prefix=fuzz-artifacts/ "$scratch" Fuzz/Corpus
if [ "$grow" = "--grow-corpus" ]; then
  "$fuzzer" -merge=1 Fuzz/Corpus "$scratch"
fi
rm -rf "$scratch"
echo "fuzz: no disagreement with ICU usearch in ${seconds} s"
