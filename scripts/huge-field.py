#!/usr/bin/env python3
"""Writes a TSV of a few short rows and one huge field, to measure peak memory (issue 14 item 7).

    scripts/huge-field.py MEGABYTES OUT.tsv [--no-spaces] [--rows=N]

Columns `id`, `name`, `body`. Rows 1-5 and 7-9 (or 7-N) are short; row 6's body is MEGABYTES million
bytes of random words from Data/country_names_i18n.tsv (country names in many languages and
scripts), separated by spaces, with `København` among them. With --no-spaces the words are joined
by nothing, so the field has no space at all. A fixed random seed makes the output the same on
every run. Measure with, for example:

    /usr/bin/time -v .build/release/sift index OUT.tsv -o OUT.sift --field name --field body --force
    /usr/bin/time -v .build/release/sift query OUT.tsv København --field name --field body
"""

import csv
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def words():
    with open(os.path.join(ROOT, "Data", "country_names_i18n.tsv"), newline="", encoding="utf-8") as f:
        result = set()
        for row in csv.DictReader(f, delimiter="\t"):
            result.update(w for w in row["value"].split() if "\t" not in w and '"' not in w)
    return sorted(result)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    size = int(float(args[0]) * 1_000_000)
    separator = "" if "--no-spaces" in sys.argv else " "
    vocabulary = words()
    rng = random.Random(14)
    with open(args[1], "w", encoding="utf-8", newline="") as out:
        out.write("id\tname\tbody\n")
        rows = next((int(a[7:]) for a in sys.argv if a.startswith("--rows=")), 9)
        for row in range(1, rows + 1):
            if row != 6:
                out.write(f"{row}\tRow {row} København\tshort body {row} Zürich\n")
                continue
            out.write(f"{row}\tHuge\t")
            written = 0
            chunk = []
            while written < size:
                word = "København" if rng.random() < 0.001 else rng.choice(vocabulary)
                chunk.append(word)
                written += len(word.encode("utf-8")) + len(separator)
                if len(chunk) >= 10000:
                    out.write(separator.join(chunk) + separator)
                    chunk = []
            out.write(separator.join(chunk) + "\n")


if __name__ == "__main__":
    main()
