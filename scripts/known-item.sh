#!/usr/bin/env bash
# Known-item check of ranked search over this Debian machine's package lists (issue 29).
#
# Builds a packages TSV (package, section, summary) from `apt-cache dumpavail` in a temporary
# folder (removed at exit; nothing is committed), indexes it, and measures on a sample of package
# names drawn with a fixed seed:
#   exact   the name typed exactly: the fraction where the package is first;
#   swapped the name with one adjacent pair of letters swapped, with --typos auto: the fraction
#           where the package is in the top 3. Only names with a word (split at - . + _) of
#           5 letters or more can take a swap that --typos auto forgives (4 letters or fewer
#           allow no edit); the swap goes inside such a word.
# Queries run with --mode words --order ranked over the fields package and summary.
#
# Usage: scripts/known-item.sh            (after `swift build -c release`)
#   SIFT=path/to/sift  SAMPLE=1000  SEED=29  KEEP=folder (keep the TSV and the misses there)
set -euo pipefail
SIFT=${SIFT:-.build/release/sift}
SAMPLE=${SAMPLE:-1000}
SEED=${SEED:-29}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v apt-cache >/dev/null || { echo "known-item.sh: needs apt-cache (Debian or Ubuntu)" >&2; exit 2; }
[ -x "$SIFT" ] || { echo "known-item.sh: no $SIFT (swift build -c release, or set SIFT)" >&2; exit 2; }

# One row per package name (the first stanza of each).
apt-cache dumpavail | awk -F': ' -v OFS='\t' '
    BEGIN { print "package", "section", "summary" }
    /^Package: / { p = substr($0, 10) }
    /^Section: / { s = substr($0, 10) }
    /^Description: / { d = substr($0, 14) }
    /^$/ { if (p != "" && !(p in seen)) { seen[p] = 1; print p, s, field(d) }; p = s = d = "" }
    END { if (p != "" && !(p in seen)) print p, s, field(d) }
    # Tabs made spaces; a field with a quote quoted, its quotes doubled.
    function field(text) {
        gsub(/\t/, " ", text)
        if (text ~ /"/) { gsub(/"/, "\"\"", text); text = "\"" text "\"" }
        return text
    }' >"$work/packages.tsv"
rows=$(($(wc -l <"$work/packages.tsv") - 1))

"$SIFT" index "$work/packages.tsv" --field package --field summary --output "$work/packages.sift" >/dev/null

# The sample: names ordered by a seeded random key; each with a swap (or "-" where none applies).
tail -n +2 "$work/packages.tsv" | cut -f1 | awk -v seed="$SEED" 'BEGIN { srand(seed) } { print rand() "\t" $0 }' \
    | sort -k1,1 | awk -v n="$SAMPLE" 'NR <= n' | cut -f2 | awk -v seed="$SEED" '
    BEGIN { srand(seed + 1) }
    {
        name = $0; n = length(name); count = 0
        # Positions i where name[i] and name[i+1] are two different letters inside a word of 5+.
        start = 1
        for (i = 1; i <= n + 1; i++) {
            c = substr(name, i, 1)
            if (i > n || c ~ /[-.+_]/) {
                if (i - start >= 5)
                    for (j = start; j < i - 1; j++) {
                        a = substr(name, j, 1); b = substr(name, j + 1, 1)
                        if (a != b && a ~ /[a-z]/ && b ~ /[a-z]/) candidates[++count] = j
                    }
                start = i + 1
            }
        }
        swapped = "-"
        if (count > 0) {
            j = candidates[int(rand() * count) + 1]
            swapped = substr(name, 1, j - 1) substr(name, j + 1, 1) substr(name, j, 1) substr(name, j + 2)
        }
        print name "\t" swapped
    }' >"$work/sample.tsv"

# The packages a query ranks first (up to three), one per line.
top() {
    "$SIFT" query "$work/packages.sift" --mode words --order ranked --format json --limit 3 "$@" 2>/dev/null \
        | sed -n 's/.*"package": "\([^"]*\)".*/\1/p'
}
exact=0 swapHits=0 swaps=0
: >"$work/misses.txt"
while IFS=$'\t' read -r name swapped; do
    if [ "$(top -- "$name" | awk 'NR == 1')" = "$name" ]; then
        exact=$((exact + 1))
    else
        echo "exact   $name -> $(top -- "$name" | awk 'NR == 1')" >>"$work/misses.txt"
    fi
    if [ "$swapped" != "-" ]; then
        swaps=$((swaps + 1))
        if top --typos auto -- "$swapped" | grep -xF -- "$name" >/dev/null; then
            swapHits=$((swapHits + 1))
        else
            echo "swapped $swapped ($name) -> $(top --typos auto -- "$swapped" | tr '\n' ' ')" >>"$work/misses.txt"
        fi
    fi
done <"$work/sample.tsv"
sampled=$(wc -l <"$work/sample.tsv")
awk -v e="$exact" -v n="$sampled" -v s="$swapHits" -v m="$swaps" -v rows="$rows" 'BEGIN {
    printf "packages: %d, sample: %d names (seed '"$SEED"')\n", rows, n
    printf "exact name first:          %d / %d = %.3f\n", e, n, e / n
    printf "one swap (--typos auto) top 3: %d / %d = %.3f\n", s, m, (m ? s / m : 0)
}'
if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    cp "$work/packages.tsv" "$work/sample.tsv" "$work/misses.txt" "$KEEP/"
fi
