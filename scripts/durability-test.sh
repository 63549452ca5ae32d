#!/usr/bin/env bash
# The kill -9 durability test of `sift serve` (Tests/Durability/kill_test.py): 20 rounds of
# concurrent edits, each ended by SIGKILL at a random moment, then a restart on the same data
# directory and a check that every acknowledged edit survived, no unacknowledged batch is half
# applied and nothing that was never sent appeared.
#
#     scripts/durability-test.sh [SIFT] [kill_test.py options: --rounds N --threads N --seed N --keep]
#
# SIFT defaults to .build/debug/sift (build it first: swift build --product sift). The binary is
# copied into the test's work folder first, so that a rebuild does not replace it mid-run. On a
# violation the work folder (data directory, server output) is kept and its path printed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
sift=$root/.build/debug/sift
if [[ $# -gt 0 && $1 != -* ]]; then
    sift=$1
    shift
fi
if [[ ! -x $sift ]]; then
    echo "$0: no sift binary at $sift (swift build --product sift, or give its path)" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "$0: needs python3" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/sift-durability.XXXXXX")
cp "$sift" "$work/sift"
status=0
python3 "$root/Tests/Durability/kill_test.py" --sift "$work/sift" --work "$work/run" "$@" || status=$?
if [[ $status -eq 0 && " $* " != *" --keep "* ]]; then
    rm -rf "$work"
fi
exit $status
