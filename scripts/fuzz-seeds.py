#!/usr/bin/env python3
"""Writes the fuzzers' multilingual seed inputs from the curated datasets.

    scripts/fuzz-seeds.py [DATA_DIR]     # default: ../shared/data beside the repository

Index target (Fuzz/Corpus/seed-ml-*): a collation byte and an edit byte, then records (one a
line), U+0001 and a query; the formats are in Sources/Sift/Testing/_SiftFuzzing.swift and
_SiftControllerFuzzing.swift. Controller target (Fuzz/ControllerCorpus/seed-*): four option
bytes, records as `name<TAB>code<TAB>continent`, U+0001, then a script of keystrokes, scope
changes, settles and edits.

The records are small slices of real multilingual names (GeoNames cities, ISO 3166 country
names in 42 languages, ISO 639-3 language names, Unicode letters with decompositions), chosen
with a fixed random seed, so the output is the same on every run. Each seed is a few hundred
bytes to about 2 KB; all of them together stay well under 100 KB.
"""

import csv
import os
import random
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(ROOT), "shared", "data")
INDEX_CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")
CONTROLLER_CORPUS = os.path.join(ROOT, "Fuzz", "ControllerCorpus")

# The collations of _SiftFuzzing.collations, by position.
ROOT_PRIMARY, DE, DA, ES_SECONDARY, TH, SHIFTED, CS, JA, SV, ES_TRADITIONAL = range(10)


def rows(name):
    with open(os.path.join(DATA, name), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def folded(text):
    """Lower case without accents: what a user types for an accented name."""
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if not unicodedata.combining(c))


def query_from(name, rng, fold):
    words = [w for w in name.replace("-", " ").split() if len(w) >= 2] or [name]
    word = rng.choice(words)
    start = rng.randrange(0, max(1, len(word) - 3)) if rng.random() < 0.3 else 0
    query = word[start : start + rng.randint(3, 8)]
    return folded(query) if fold else query.lower()


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def index_seed(name, collation, edit, records, query):
    body = "\n".join(records) + "\u0001" + query
    write(INDEX_CORPUS, "seed-ml-" + name, bytes([collation, edit]) + body.encode("utf-8"))


def main():
    rng = random.Random(14)
    cities = rows("cities.tsv")
    countries = rows("countries.tsv")
    languages = rows("languages.tsv")
    letters = rows("unicode_letters.tsv")
    subdivisions = rows("subdivisions.tsv")

    def country_names(column, count=24):
        names = [r[column] for r in countries if r[column]]
        return rng.sample(names, count)

    # Index target: one seed per collation, with names in its language, plus other scripts.
    seeds = [
        ("de-countries", DE, country_names("name_de"), True),
        ("da-countries", DA, country_names("name_da"), False),
        ("es-countries", ES_SECONDARY, country_names("name_es"), True),
        ("th-countries", TH, country_names("name_th"), False),
        ("cs-countries", CS, country_names("name_cs"), False),
        ("ja-countries", JA, country_names("name_ja"), False),
        ("sv-countries", SV, country_names("name_sv"), False),
        ("es-traditional", ES_TRADITIONAL, country_names("name_es"), False),
        ("ru-countries", ROOT_PRIMARY, country_names("name_ru"), False),
        ("el-countries", ROOT_PRIMARY, country_names("name_el"), True),
        ("ar-countries", ROOT_PRIMARY, country_names("name_ar"), False),
        ("he-countries", ROOT_PRIMARY, country_names("name_he"), False),
        ("hi-countries", ROOT_PRIMARY, country_names("name_hi"), False),
        ("ko-countries", ROOT_PRIMARY, country_names("name_ko"), False),
        ("zh-countries", ROOT_PRIMARY, country_names("name_zh_CN"), False),
        ("vi-countries", ROOT_PRIMARY, country_names("name_vi"), True),
        ("tr-countries", ROOT_PRIMARY, country_names("name_tr"), True),
    ]
    accented = [r["name"] for r in cities if any(ord(c) > 127 for c in r["name"])]
    seeds.append(("root-cities", ROOT_PRIMARY, rng.sample(accented, 24), True))
    punctuated = [r["name"] for r in cities if any(c in r["name"] for c in "'-‘’ ")]
    seeds.append(("shifted-cities", SHIFTED, rng.sample(punctuated, 24), True))
    language_names = [r[c] for r in rng.sample(languages, 12) for c in ("name_en", "name_de", "name_ru") if r[c]]
    seeds.append(("languages", ROOT_PRIMARY, language_names[:24], True))
    subdivision_names = [r["name"] for r in subdivisions if r["country_code"] in ("DE", "AT", "CH", "PL", "CZ")]
    seeds.append(("de-subdivisions", DE, rng.sample(subdivision_names, 24), True))
    decomposed = [
        unicodedata.normalize("NFD", r["char"]) + " " + r["name"].title()
        for r in letters
        if r["decomposition"] and not r["decomposition"].startswith("<")
    ]
    seeds.append(("nfd-letters", ROOT_PRIMARY, rng.sample(decomposed, 20), False))
    for number, (name, collation, records, fold) in enumerate(seeds):
        index_seed(name, collation, number % 6, records, query_from(rng.choice(records), rng, fold))

    # Controller target: cities with their country code and continent, in varied layouts.
    by_country = {}
    for r in cities:
        by_country.setdefault(r["country_code"], []).append(r)

    def city_lines(codes, count):
        pool = [r for code in codes for r in by_country.get(code, [])[:40]]
        return [f'{r["name"]}\t{r["country_code"]}\t{r["continent_code"]}' for r in rng.sample(pool, count)]

    settle, back, scope, submit, cancel = "\u0010", "\u0002", "\u0003", "\u0004", "\u0005"

    def insert(p, line):
        return "\u0006" + chr(p) + line + "\n"

    def delete(p):
        return "\u0007" + chr(p)

    def update(p, line):
        return "\u0008" + chr(p) + line + "\n"

    def move(p, q):
        return "\u000e" + chr(p) + chr(q)

    def table_edit(choice, row, extra=""):
        return "\u000f" + chr(choice) + chr(row) + extra

    def yields(n):
        return "\u0011" + chr(n)

    controller_seeds = [
        # name, collation, options bytes 1..3, countries, word typed
        ("es-sorted-sectioned", ES_SECONDARY, (0x00, 0x03 | 0x10 | (1 << 2), 0x00), ["ES", "MX", "AR", "CO"], "san"),
        ("de-ranked", DE, (0x08, 0x00 | (2 << 2), 0x01), ["DE", "AT", "CH"], "munch"),
        ("sv-keep-previous", SV, (0x10 | 0x20, 0x01 | (1 << 2) | 0x10, 0x02 | (1 << 2)), ["SE", "NO", "DK"], "gote"),
        ("da-on-submit", DA, (0x07, 0x02, 0x00 | (2 << 2)), ["DK", "NO"], "aarh"),
        ("cs-words", CS, (0x20, 0x03, 0x02 | (3 << 2)), ["CZ", "SK", "PL"], "ces bu"),
        ("th-prefix", TH, (0x00, 0x01 | (2 << 2) | 0x10, 0x01), ["TH"], "ban"),
        ("ja-overtaken", JA, (0x28, 0x02 | 0x10, 0x00), ["JP"], "to"),
        ("tr-shifted", SHIFTED, (0x00, 0x03 | (1 << 2), 0x00 | (1 << 2)), ["TR", "AZ"], "isk"),
        ("vi-root", ROOT_PRIMARY, (0x20, 0x00 | (2 << 2) | 0x10, 0x00), ["VN", "FR"], "ho chi"),
        ("es-traditional-chars", ES_TRADITIONAL, (0x08, 0x03 | (1 << 2) | 0x10, 0x00 | (2 << 2)), ["ES", "CL"], "ch"),
    ]
    for number, (name, collation, options, codes, word) in enumerate(controller_seeds):
        records = city_lines(codes, 30)
        other = city_lines(codes, 4)
        script = ""
        for i, ch in enumerate(word):
            script += ch
            if i == 1:
                script += yields(3)
        script += settle + back + back + settle + word[1:3] + scope + settle
        script += insert(5 + number, other[0]) + delete(7 + number) + word[:1] + update(11, other[1])
        script += move(3, 20 + number) + settle
        script += table_edit(0x01, 2, other[2] + "\n") + table_edit(0x03, 1) + table_edit(0x05, 0, other[3] + "\n")
        script += table_edit(0x06, 4) + chr(9) + table_edit(0x02, 6)
        script += scope + scope + "e" + submit + yields(5) + settle + cancel + word[-2:] + settle
        header = bytes([collation, *options])
        body = "\n".join(records) + "\u0001" + script
        write(CONTROLLER_CORPUS, "seed-" + name, header + body.encode("utf-8"))


if __name__ == "__main__":
    main()
