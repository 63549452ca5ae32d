"""Writes a deterministic TSV of made-up people (id, name, country, notes) and its description.

Usage: python3 make_data.py FOLDER [ROWS]   (default 1,000,000 rows)
Writes FOLDER/people.tsv and FOLDER/people.sift.json. The same ROWS give the same file.
"""

import json
import random
import sys

FIRST = [
    "Ada", "Alba", "Amir", "Ana", "Anders", "Aoife", "Björn", "Carmen", "Chloé", "Dmitri", "Émile",
    "Eva", "Farah", "François", "Greta", "Hana", "Hugo", "Inés", "Ivan", "Jonas", "José", "Jürgen",
    "Kai", "Léa", "Lena", "Łukasz", "Maja", "Mateo", "Nadia", "Noah", "Ólafur", "Omar", "Paula",
    "Priya", "Quentin", "Rosa", "Sofía", "Søren", "Tomás", "Uma", "Vera", "Wei", "Xavier", "Yara",
    "Yusuf", "Zoë",
]
LAST = [
    "Abara", "Bauer", "Costa", "Dvořák", "Eriksen", "Fischer", "García", "Horváth", "Ibáñez", "Jansen",
    "Kowalski", "Lefèvre", "Müller", "Nakamura", "Novák", "Núñez", "O'Brien", "Öztürk", "Petrov",
    "Quispe", "Rossi", "Santos", "Schröder", "Tanaka", "Umarov", "Varga", "Weiß", "Xu", "Yilmaz",
    "Zürcher",
]
COUNTRIES = [
    "Argentina", "Brasil", "Canada", "Česko", "Danmark", "Deutschland", "España", "France", "Ísland",
    "Italia", "Japan", "México", "Nederland", "Norge", "Österreich", "Polska", "Portugal", "Schweiz",
    "Suomi", "Sverige", "Türkiye", "United Kingdom",
]
PLACES = ["Zürich", "Hauptstraße", "São Paulo", "Kraków", "Reykjavík", "Malmö", "Córdoba", "Genève", "Tromsø"]
WORDS = (
    "likes quiet mornings long walks strong coffee old maps cold rivers small boats "
    "green tea loud music fresh bread late trains tall trees warm rain"
).split()


def note(rnd: random.Random) -> str:
    """A short note, and now and then one longer than 160 characters (the server snippets those)."""
    parts = [f"Lives near {rnd.choice(PLACES)}", f"{rnd.choice(WORDS)} {rnd.choice(WORDS)}"]
    if rnd.random() < 0.3:
        parts.append(f"knows {rnd.choice(FIRST)} from {rnd.choice(PLACES)}")
    if rnd.random() < 0.05:
        parts += [" ".join(rnd.choice(WORDS) for _ in range(24)), f"moved to {rnd.choice(PLACES)}"]
    return "; ".join(parts)


def main() -> None:
    folder = sys.argv[1]
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    rnd = random.Random(28)
    with open(f"{folder}/people.tsv", "w", encoding="utf-8") as out:
        out.write("id\tname\tcountry\tnotes\n")
        for i in range(1, rows + 1):
            name = f"{rnd.choice(FIRST)} {rnd.choice('ABCDEFGHJKLMNPRSTVW')}. {rnd.choice(LAST)}"
            out.write(f"p{i}\t{name}\t{rnd.choice(COUNTRIES)}\t{note(rnd)}\n")
    description = {
        "fields": ["name", "country", "notes"],
        "id": "id",
        "sort": "name",
        "order": "ranked",
        "scopes": [
            {"name": "All"},
            {"name": "Name", "fields": ["name"]},
            {"name": "Country", "fields": ["country"], "minLength": 3},
            {"name": "Notes", "fields": ["notes"]},
        ],
    }
    with open(f"{folder}/people.sift.json", "w", encoding="utf-8") as out:
        json.dump(description, out, indent=2)


if __name__ == "__main__":
    main()
