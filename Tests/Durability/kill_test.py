#!/usr/bin/env python3
"""The kill -9 durability test of `sift serve`.

Starts `sift serve DATA --admin-key K --data-dir DIR` and, round after round, streams edits from
several client threads, kills the server with SIGKILL at a random moment, starts it again on the
same data directory and checks, over the HTTP API, that:

- every acknowledged (2xx) edit is there with its latest acknowledged value, and every
  acknowledged delete is absent;
- an edit that was sent but not acknowledged (the server died first) is either wholly there or
  wholly absent: never part of a batch;
- no record exists that was never sent;
- GET /health's `sequence` never goes backwards, and equals the sequence before the round plus
  the edits acknowledged plus the unacknowledged batches found applied (each batch is one log
  entry).

Each record is edited by one client thread per round (threads own ids by a hash), one request at
a time, so a thread's acknowledged order is the order the server applied them in, and each thread
has at most one unacknowledged request when the server dies. State carries over from round to
round. Some rounds also push the edit log past the compaction
threshold (64 MiB, which `sift serve` has no flag to lower) with large values in a field that is
stored but not searched, so that the kill may land while the background snapshot is written or
the log is compacted. A round 0 kills the very first start as soon as it listens, while its first
snapshot (written in the background at start) may not be in place yet.

At the end the server is stopped with SIGTERM, started once more (everything must be there) and
stopped again; both stops must exit 0.

Any violation prints what was expected and what was found, the edit log's entries for the
records at fault, keeps the work folder (the data directory, the server's output) and exits 1.

Usage: kill_test.py --sift PATH [--rounds 20] [--threads 4] [--seed N] [--compaction-rounds 4,10,16]
                    [--work DIR] [--keep]

Plain Python 3 (http.client); nothing to install.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

ADMIN_KEY = "durability-admin-key"
FIELDS = ("name", "country", "notes")
DATA_ROWS = 2000
# The edit log is compacted once it holds this many bytes (ServerConfiguration.compactionBytes).
COMPACTION_BYTES = 64 << 20
# Each bulk record carries a value this large in `notes`, which is stored but not searched.
BULK_VALUE_BYTES = 1 << 20
# Bulk records per request: 7 MiB, under the default 8 MiB body limit.
BULK_BATCH = 7
BULK_IDS = [f"bulk-{i}" for i in range(BULK_BATCH * 2)]


class Violation(Exception):
    """A broken durability promise (or a server that misbehaves): the test fails. `ids` names the
    records at fault, whose entries in the edit log the report lists."""

    def __init__(self, message: str, ids: list[str] | None = None):
        super().__init__(message)
        self.ids = ids or []


def log(message: str) -> None:
    print(message, flush=True)


# MARK: The server


class Server:
    """One `sift serve` process on the shared data directory."""

    def __init__(self, sift: str, data_file: str, data_dir: str, output_dir: str, start_number: int):
        self.output_path = os.path.join(output_dir, f"server-{start_number:02d}.out")
        self.error_path = os.path.join(output_dir, f"server-{start_number:02d}.err")
        self.out = open(self.output_path, "wb")
        self.err = open(self.error_path, "wb")
        command = [sift, "serve", data_file, "--port", "0", "--admin-key", ADMIN_KEY, "--data-dir", data_dir]
        self.process = subprocess.Popen(command, stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL)
        self.port: int | None = None

    def wait_ready(self, timeout: float = 120.0, listening_only: bool = False) -> None:
        """Waits for the address line on stdout, then (unless `listening_only`) for GET /health to
        answer 200."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise Violation(
                    f"sift serve exited with {self.process.returncode} while starting; "
                    f"its output: {self.error_path}:\n{read_tail(self.error_path)}"
                )
            if self.port is None:
                with open(self.output_path, "rb") as output:
                    for line in output.read().decode("utf-8", "replace").splitlines():
                        marker = "listening on http://127.0.0.1:"
                        if marker in line:
                            self.port = int(line.split(marker, 1)[1].rstrip("/"))
            if self.port is not None and listening_only:
                return
            if self.port is not None:
                try:
                    status, _ = request(self.port, "GET", "/health", timeout=5)
                    if status == 200:
                        return
                except OSError:
                    pass
            time.sleep(0.02)
        raise Violation(f"sift serve did not answer GET /health within {timeout:.0f} s ({self.error_path})")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.close_files()

    def terminate(self, timeout: float = 60.0) -> int:
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise Violation(f"sift serve did not exit within {timeout:.0f} s of SIGTERM")
        self.close_files()
        return code

    def close_files(self) -> None:
        self.out.close()
        self.err.close()


def read_tail(path: str, size: int = 4000) -> str:
    with open(path, "rb") as file:
        data = file.read()
    return data[-size:].decode("utf-8", "replace")


def request(port: int, method: str, path: str, body=None, timeout: float = 60.0, connection=None):
    """One request; returns (status, parsed JSON or None). Raises OSError/HTTPException."""
    own = connection is None
    if own:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode("utf-8", "replace")
        return response.status, parsed
    finally:
        if own:
            connection.close()


# MARK: Edits


class Edit:
    """One request: its method, body and the state it gives each record it touches."""

    def __init__(self, method: str, body, effect: dict[str, dict | None], label: str):
        self.method = method
        self.body = body
        # id -> the record's fields once the edit is applied, or None when it deletes the record.
        self.effect = effect
        self.label = label

    def describe(self) -> str:
        parts = []
        for record_id, fields in self.effect.items():
            parts.append(f"{record_id}=" + ("<deleted>" if fields is None else short(fields)))
        return f"{self.method} {self.label} [{', '.join(parts)}]"


def short(fields: dict | None) -> str:
    if fields is None:
        return "<absent>"
    shown = {}
    for key, value in fields.items():
        shown[key] = value if len(value) <= 60 else f"<{len(value)} chars, crc32 {zlib.crc32(value.encode()):08x}>"
    return json.dumps(shown, ensure_ascii=False)


def bulk_value(token: str) -> str:
    """A value of about BULK_VALUE_BYTES that encodes `token` throughout (so a mix of two would show)."""
    unit = f"{token};"
    return (unit * (BULK_VALUE_BYTES // len(unit) + 1))[:BULK_VALUE_BYTES]


class Client(threading.Thread):
    """A client thread: sends edits one at a time on a keep-alive connection until it is told to
    stop or the server goes away, recording which were acknowledged."""

    def __init__(self, port: int, round_number: int, number: int, owned: list[str], state: dict, rng: random.Random,
                 stop: threading.Event, bulk: bool):
        super().__init__(name=f"client-{number}", daemon=True)
        self.port = port
        self.round = round_number
        self.number = number
        self.state = state  # the acknowledged state at the round's start (read only here)
        self.rng = rng
        self.stop = stop
        self.bulk = bulk
        # Ids this thread alone edits this round: existing ones it owns, and those it inserts.
        self.owned = list(owned)
        # id -> fields or None: what this thread's acknowledged edits did.
        self.acknowledged: dict[str, dict | None] = {}
        self.acknowledged_edits = 0
        self.acknowledged_records = 0
        self.sequences: list[int] = []
        self.pending: Edit | None = None
        self.pending_error = ""
        self.violations: list[str] = []
        self.counter = 0
        self.bulk_bytes = 0
        self.bulk_crossed_at: float | None = None

    def current(self, record_id: str) -> dict | None:
        if record_id in self.acknowledged:
            return self.acknowledged[record_id]
        return self.state.get(record_id)

    def value(self) -> dict:
        self.counter += 1
        tag = f"r{self.round}-t{self.number}-n{self.counter}"
        return {"name": f"Edited {tag}", "country": f"Land {tag}"}

    def new_id(self) -> str:
        self.counter += 1
        return f"e{self.round}-{self.number * 100000 + self.counter}"

    def next_edit(self) -> Edit:
        if self.bulk:
            return self.next_bulk_edit()
        live = [i for i in self.owned if self.current(i) is not None]
        deletable = [i for i in live if i.startswith("e")]
        roll = self.rng.random()
        if roll < 0.45 or not live:
            # Upsert new ids: mostly one, sometimes a batch.
            count = 1 if self.rng.random() < 0.7 else self.rng.randint(2, 6)
            effect = {self.new_id(): self.value() for _ in range(count)}
            return Edit("PUT", records(effect), effect, "upsert new")
        if roll < 0.60:
            count = 1 if self.rng.random() < 0.5 else self.rng.randint(2, 5)
            effect = {self.new_id(): self.value() for _ in range(count)}
            return Edit("POST", records(effect), effect, "insert new")
        if roll < 0.85:
            # Update earlier records (of this round or before), sometimes with a new one in the batch.
            targets = self.rng.sample(live, min(len(live), self.rng.randint(1, 3)))
            effect = {i: self.value() for i in targets}
            if self.rng.random() < 0.3:
                effect[self.new_id()] = self.value()
            return Edit("PUT", records(effect), effect, "update")
        if deletable:
            targets = self.rng.sample(deletable, min(len(deletable), self.rng.randint(1, 3)))
            effect = {i: None for i in targets}
            return Edit("DELETE", list(effect), effect, "delete")
        effect = {self.new_id(): self.value()}
        return Edit("PUT", records(effect), effect, "upsert new")

    def next_bulk_edit(self) -> Edit:
        """Large values for the same few ids, until the log is past the compaction threshold."""
        self.counter += 1
        start = (self.counter % 2) * BULK_BATCH
        effect = {}
        for record_id in BULK_IDS[start:start + BULK_BATCH]:
            token = f"r{self.round}-bulk-n{self.counter}-{record_id}"
            effect[record_id] = {"name": f"Bulk {token}", "notes": bulk_value(token)}
        return Edit("PUT", records(effect), effect, "bulk upsert")

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            while not self.stop.is_set():
                if self.bulk and self.bulk_crossed_at is not None:
                    time.sleep(0.01)
                    continue
                edit = self.next_edit()
                for record_id in edit.effect:
                    if record_id not in self.owned:
                        self.owned.append(record_id)
                self.pending = edit
                try:
                    status, answer = request(self.port, edit.method, "/records", edit.body, connection=connection)
                except (OSError, http.client.HTTPException) as error:
                    self.pending_error = f"{type(error).__name__}: {error}"
                    return  # the server is gone: this edit stays unacknowledged
                if not 200 <= status < 300:
                    self.violations.append(
                        f"{self.name}: {edit.describe()} answered {status} {answer} "
                        "(the test's model and the server disagree)"
                    )
                    self.pending = None
                    return
                expected_key = {"PUT": "upserted", "POST": "inserted", "DELETE": "deleted"}[edit.method]
                if not isinstance(answer, dict) or answer.get(expected_key) != len(edit.effect) \
                        or not isinstance(answer.get("sequence"), int):
                    self.violations.append(f"{self.name}: {edit.describe()} answered {status} {answer}")
                    self.pending = None
                    return
                self.pending = None
                self.sequences.append(answer["sequence"])
                self.acknowledged.update(edit.effect)
                self.acknowledged_edits += 1
                self.acknowledged_records += len(edit.effect)
                if self.bulk:
                    self.bulk_bytes += len(json.dumps(edit.body))
        finally:
            connection.close()


def records(effect: dict[str, dict | None]) -> list:
    return [{"id": record_id, "fields": fields} for record_id, fields in effect.items()]


def owner(record_id: str, threads: int) -> int:
    return zlib.crc32(record_id.encode()) % threads


# MARK: Checks


def read_all(port: int) -> dict[str, dict]:
    """Every record the server holds, by id, with the fields the test writes."""
    found: dict[str, dict] = {}
    offset = 0
    total = None
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        while True:
            path = f"/search?q=&order=original&offset={offset}&limit=500&fields={','.join(FIELDS)}"
            status, answer = request(port, "GET", path, connection=connection)
            if status != 200:
                raise Violation(f"GET {path} answered {status} {answer}")
            if total is None:
                total = answer["total"]
            elif answer["total"] != total:
                raise Violation(f"GET /search: total changed from {total} to {answer['total']} while idle")
            rows = answer["rows"]
            for row in rows:
                if row["id"] in found:
                    raise Violation(f"GET /search: id {row['id']} appears twice")
                found[row["id"]] = row["fields"]
            offset += len(rows)
            if not rows or offset >= total:
                break
    finally:
        connection.close()
    if len(found) != total:
        raise Violation(f"GET /search: total {total} but {len(found)} rows")
    return found


def health(port: int) -> dict:
    status, answer = request(port, "GET", "/health")
    if status != 200:
        raise Violation(f"GET /health answered {status} {answer}")
    return answer


def check_round(port: int, state: dict[str, dict], pending: list[tuple[str, Edit]], sent_ids: set[str],
                round_label: str) -> tuple[dict[str, dict], int, int]:
    """Checks the restarted server against the acknowledged state `state` (edits applied) and the
    unacknowledged edits `pending`; returns the new state and how many pending edits were found
    present and absent."""
    found = read_all(port)
    problems: list[str] = []
    expected = dict(state)
    present = absent = 0
    pending_ids: set[str] = set()
    for thread_name, edit in pending:
        applied = []
        for record_id, fields in edit.effect.items():
            pending_ids.add(record_id)
            actual = found.get(record_id)
            if actual == fields:
                applied.append(True)
            elif actual == state.get(record_id):
                applied.append(False)
            else:
                problems.append(
                    f"{thread_name}'s unacknowledged {edit.describe()}: {record_id} is {short(actual)}, "
                    f"neither the acknowledged {short(state.get(record_id))} nor the edit's {short(fields)}"
                )
                applied.append(None)
        if None in applied:
            continue
        if all(applied):
            present += 1
            for record_id, fields in edit.effect.items():
                if fields is None:
                    expected.pop(record_id, None)
                else:
                    expected[record_id] = fields
        elif not any(applied):
            absent += 1
        else:
            problems.append(
                f"{thread_name}'s unacknowledged {edit.describe()} is half applied: "
                + ", ".join(f"{i} {'applied' if a else 'not applied'} ({short(found.get(i))})"
                            for i, a in zip(edit.effect, applied))
            )
    for record_id, fields in expected.items():
        if record_id in pending_ids:
            continue
        actual = found.get(record_id)
        if actual is None:
            problems.append(f"acknowledged record {record_id} is missing (expected {short(fields)})")
        elif actual != fields:
            problems.append(f"acknowledged record {record_id} is {short(actual)}, expected {short(fields)}")
    for record_id, fields in found.items():
        if record_id in expected or record_id in pending_ids:
            continue
        if record_id in sent_ids:
            problems.append(f"record {record_id} exists ({short(fields)}) but its acknowledged delete said otherwise")
        else:
            problems.append(f"record {record_id} exists ({short(fields)}) but was never sent")
    # Spot-check GET /records/{id} as well: a few records, deleted ids and a bulk record.
    sample = random.Random(len(found)).sample(sorted(expected), min(25, len(expected)))
    gone = [i for i in sent_ids if i not in expected and i not in pending_ids][:10]
    for record_id in sample + gone:
        status, answer = request(port, "GET", "/records/" + record_id)
        want = expected.get(record_id)
        if want is None:
            if status != 404:
                problems.append(f"GET /records/{record_id}: {status}, expected 404 (deleted)")
        elif status != 200:
            problems.append(f"GET /records/{record_id}: {status}, expected 200 {short(want)}")
        else:
            fields = {k: v for k, v in answer["fields"].items() if k in FIELDS}
            if fields != want:
                problems.append(f"GET /records/{record_id}: {short(fields)}, expected {short(want)}")
    if problems:
        suspects = [i for i in list(found) + list(expected) + list(pending_ids)
                    if any(f"{i} " in p or f"{i}=" in p for p in problems)]
        shown = problems[:30]
        more = f"\n  … and {len(problems) - 30} more" if len(problems) > 30 else ""
        raise Violation(f"{round_label}: {len(problems)} problems after the restart:\n  " + "\n  ".join(shown) + more,
                        sorted(set(suspects))[:20])
    return expected, present, absent


# MARK: The test


def make_data(folder: str) -> str:
    path = os.path.join(folder, "data.tsv")
    rng = random.Random(7)
    countries = ["Norway", "Chile", "Japan", "Kenya", "Peru", "Spain", "Viet Nam", "Ísland", "Österreich", "Côte d'Ivoire"]
    with open(path, "w", encoding="utf-8") as file:
        file.write("id\tname\tcountry\tnotes\n")
        for i in range(1, DATA_ROWS + 1):
            file.write(f"d{i}\tPlace {i} {rng.choice(['Nord', 'Süd', 'Øst', 'West'])}\t{rng.choice(countries)}\tnote {i}\n")
    # The description file: which fields are searched (notes is stored only) and the id field.
    # (A description file rather than --field/--id: the server starts from DIR/index.sift once it
    # exists, and refuses index options that would change a snapshot.)
    with open(os.path.join(folder, "data.sift.json"), "w") as file:
        json.dump({"fields": ["name", "country"], "id": "id"}, file)
    return path


def initial_state(data_file: str) -> dict[str, dict]:
    state = {}
    with open(data_file, encoding="utf-8") as file:
        next(file)
        for line in file:
            record_id, name, country, notes = line.rstrip("\n").split("\t")
            state[record_id] = {"name": name, "country": country, "notes": notes}
    return state


def read_log(data_dir: str):
    """The entries of the edit log's segments, oldest first: (file, sequence, position in its
    write, entries in its write, payload as JSON), per the format in EditLogFormat.swift (a
    32-byte little-endian header: magic, CRC-32C, sequence, length, position, count, flags)."""
    for name in sorted(os.listdir(data_dir)):
        if not (name.startswith("edits-") and name.endswith(".log")):
            continue
        with open(os.path.join(data_dir, name), "rb") as file:
            data = file.read()
        offset = 0
        while offset + 32 <= len(data):
            magic, _, sequence, length, position, count, _ = struct.unpack_from("<4sIQIIII", data, offset)
            if magic != b"\xf5SL1" or offset + 32 + length > len(data):
                yield name, None, offset, None, f"<{len(data) - offset} bytes that are not a whole entry>"
                break
            payload = data[offset + 32:offset + 32 + length]
            try:
                entry = json.loads(payload)
            except ValueError:
                entry = f"<{length} bytes that are not JSON>"
            yield name, sequence, position, count, entry
            offset += 32 + length


def describe_log(data_dir: str, ids: list[str]) -> str:
    """What the edit log holds: its segments' sequence ranges, and every entry that names one of
    `ids` (to see whether a lost or unexpected edit was ever logged)."""
    lines = []
    ranges: dict[str, list] = {}
    wanted = set(ids)
    try:
        for name, sequence, position, count, entry in read_log(data_dir):
            if sequence is None:
                lines.append(f"  {name}: {entry} at byte {position}")
                continue
            span = ranges.setdefault(name, [sequence, sequence, 0])
            span[1] = sequence
            span[2] += 1
            if not isinstance(entry, dict):
                lines.append(f"  {name} #{sequence}: {entry}")
                continue
            named = [r.get("id") for r in entry.get("records", [])] + list(entry.get("ids", []))
            if wanted & set(named):
                values = {r["id"]: r.get("fields") for r in entry.get("records", []) if r.get("id") in wanted}
                lines.append(f"  {name} #{sequence} (write position {position} of {count}): {entry.get('op')} "
                             f"{named[:8]}{' …' if len(named) > 8 else ''} "
                             + " ".join(f"{i}={short(v)}" for i, v in values.items()))
    except OSError as error:
        lines.append(f"  cannot read the log: {error}")
    head = [f"  {name}: sequences {a}…{b} ({n} entries)" for name, (a, b, n) in ranges.items()]
    return "\n".join(head + lines)


def data_files(data_dir: str) -> dict[str, tuple[int, int, int]]:
    """The snapshot and the log segments: name -> (inode, size, modification time in ns)."""
    files = {}
    for name in os.listdir(data_dir):
        if name == "index.sift" or (name.startswith("edits-") and name.endswith(".log")):
            info = os.stat(os.path.join(data_dir, name))
            files[name] = (info.st_ino, info.st_size, info.st_mtime_ns)
    return files


def compaction_stage(before: dict, after: dict) -> str:
    """Where the background compaction was when the server was killed, from the files."""
    snapshot_replaced = before.get("index.sift", (None,))[0] != after.get("index.sift", (None,))[0]
    old_segments = [n for n in before if n.startswith("edits-")]
    dropped = [n for n in old_segments if n not in after]
    if not snapshot_replaced:
        return "before the new snapshot was in place"
    if not dropped:
        return "after the new snapshot was in place, before the log was compacted"
    return f"after the new snapshot and the log's compaction ({len(dropped)} segments dropped)"


def log_files(data_dir: str) -> str:
    entries = []
    for name in sorted(os.listdir(data_dir)):
        if name.startswith("edits-") or name == "index.sift":
            entries.append(f"{name} {os.path.getsize(os.path.join(data_dir, name))} B")
    return ", ".join(entries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sift", required=True, help="the sift binary")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--threads", type=int, default=4, help="client threads streaming edits")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    parser.add_argument("--compaction-rounds", default="4,10,16",
                        help="rounds (1-based, comma-separated) that push the log past the compaction threshold")
    parser.add_argument("--work", default=None, help="the work folder (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder even when the test passes")
    options = parser.parse_args()

    seed = options.seed if options.seed is not None else int(time.time() * 1000) % 1_000_000
    rng = random.Random(seed)
    compaction_rounds = {int(r) for r in options.compaction_rounds.split(",") if r.strip()}
    work = options.work or tempfile.mkdtemp(prefix="sift-durability-")
    os.makedirs(work, exist_ok=True)
    data_dir = os.path.join(work, "data")
    output_dir = os.path.join(work, "server-output")
    os.makedirs(output_dir, exist_ok=True)
    data_file = make_data(work)
    state = initial_state(data_file)
    sent_ids: set[str] = set()
    log(f"durability: seed {seed}, {options.rounds} rounds, {options.threads} client threads, work folder {work}")

    started = time.monotonic()
    starts = 0
    totals = {"acknowledged edits": 0, "acknowledged records": 0, "present": 0, "absent": 0, "compactions": 0}
    server = None
    try:
        # Round 0: kill the very first start as soon as it listens, when its first snapshot
        # (written in the background at start) may not be in place yet.
        server = Server(options.sift, data_file, data_dir, output_dir, starts)
        starts += 1
        server.wait_ready(listening_only=True)
        server.kill()
        first_snapshot = "in place" if os.path.exists(os.path.join(data_dir, "index.sift")) else "not written yet"
        server = Server(options.sift, data_file, data_dir, output_dir, starts)
        starts += 1
        server.wait_ready()
        state, _, _ = check_round(server.port, state, [], sent_ids, "round 0")
        log(f"round 0: killed the first start as soon as it listened (its first snapshot {first_snapshot}); "
            f"restart: {replayed_line(server.error_path)}; {len(state)} records")
        sequence = health(server.port)["sequence"]
        for round_number in range(1, options.rounds + 1):
            bulk = round_number in compaction_rounds
            label = f"round {round_number}"
            stop = threading.Event()
            by_owner: dict[int, list[str]] = {t: [] for t in range(options.threads)}
            for record_id in state:
                if not record_id.startswith("bulk-"):
                    by_owner[owner(record_id, options.threads)].append(record_id)
            clients = [
                Client(server.port, round_number, t, by_owner[t], state, random.Random(rng.random()), stop, False)
                for t in range(options.threads)
            ]
            if bulk:
                clients.append(Client(server.port, round_number, options.threads, [], state,
                                      random.Random(rng.random()), stop, True))
            files_before = data_files(data_dir)
            round_start = time.monotonic()
            for client in clients:
                client.start()
            if bulk:
                # Kill after the log has grown past the threshold: at once (the snapshot is likely
                # being written) or a little later (the log is likely being compacted, or done).
                bulk_client = clients[-1]
                log_before = stats_log_bytes(server.port)
                while bulk_client.is_alive() and log_before + bulk_client.bulk_bytes < COMPACTION_BYTES + (1 << 20):
                    time.sleep(0.005)
                bulk_client.bulk_crossed_at = time.monotonic()
                delay = rng.uniform(0.0, 0.5)
            else:
                delay = rng.uniform(0.2, 3.0)
            time.sleep(delay)
            killed_after = time.monotonic() - round_start
            server.kill()
            files_after_kill = data_files(data_dir)
            stop.set()
            for client in clients:
                client.join(120)
                if client.is_alive():
                    raise Violation(f"{label}: {client.name} still waits for an answer 120 s after the kill")
            violations = [v for c in clients for v in c.violations]
            if violations:
                raise Violation(f"{label}: answers that break the test's model:\n  " + "\n  ".join(violations))

            acknowledged_state = dict(state)
            for client in clients:
                for record_id, fields in client.acknowledged.items():
                    if fields is None:
                        acknowledged_state.pop(record_id, None)
                    else:
                        acknowledged_state[record_id] = fields
                for record_id in client.owned:
                    sent_ids.add(record_id)
            pending = [(c.name, c.pending) for c in clients if c.pending is not None]
            sequences = sorted(s for c in clients for s in c.sequences)
            acknowledged_edits = sum(c.acknowledged_edits for c in clients)
            if len(set(sequences)) != len(sequences):
                raise Violation(f"{label}: two acknowledged edits got the same sequence: {sequences}")
            if sequences and (sequences[0] <= sequence):
                raise Violation(f"{label}: an acknowledged sequence {sequences[0]} is not after {sequence}, "
                                "the sequence before the round")

            server = Server(options.sift, data_file, data_dir, output_dir, starts)
            starts += 1
            server.wait_ready()
            after = health(server.port)
            state, present, absent = check_round(server.port, acknowledged_state, pending, sent_ids, label)
            want = sequence + acknowledged_edits + present
            if after["sequence"] != want:
                raise Violation(
                    f"{label}: GET /health sequence {after['sequence']} after the restart, expected {want} "
                    f"({sequence} before the round + {acknowledged_edits} acknowledged + {present} "
                    f"unacknowledged found applied); acknowledged sequences {sequences[:5]}…{sequences[-5:]}"
                )
            if after["sequence"] < sequence or (sequences and after["sequence"] < sequences[-1]):
                raise Violation(f"{label}: GET /health sequence went back to {after['sequence']}")
            if after["records"] != len(state):
                raise Violation(f"{label}: GET /health says {after['records']} records, expected {len(state)}")
            sequence = after["sequence"]
            replayed = replayed_line(server.error_path)
            litter = sorted(set(os.listdir(data_dir)) - set(data_files(data_dir)) - {"lock"})
            if litter:
                extra_litter = f"; other files in the data directory: {litter}"
            else:
                extra_litter = ""
            extra = ""
            if bulk:
                crossed = clients[-1].bulk_crossed_at
                extra = (f"; bulk {clients[-1].bulk_bytes >> 20} MiB, killed {killed_after - (crossed - round_start):.2f} s "
                         f"after the log grew past 65 MiB, {compaction_stage(files_before, files_after_kill)}; "
                         f"after the restart {log_files(data_dir)}")
                totals["compactions"] += 1
            log(f"{label}: killed after {killed_after:.2f} s; {acknowledged_edits} edits acknowledged "
                f"({sum(c.acknowledged_records for c in clients)} records), {len(pending)} unacknowledged "
                f"({present} present, {absent} absent); restart: {replayed}; sequence {sequence}, "
                f"{len(state)} records{extra}{extra_litter}")
            totals["acknowledged edits"] += acknowledged_edits
            totals["acknowledged records"] += sum(c.acknowledged_records for c in clients)
            totals["present"] += present
            totals["absent"] += absent

        # A clean stop: SIGTERM must exit 0, and a start after it must find everything as well.
        for last in (False, True):
            code = server.terminate()
            if code != 0:
                raise Violation(f"sift serve exited with {code} after SIGTERM ({server.error_path})")
            server = None
            if last:
                break
            server = Server(options.sift, data_file, data_dir, output_dir, starts)
            starts += 1
            server.wait_ready()
            after = health(server.port)
            state, _, _ = check_round(server.port, state, [], sent_ids, "after SIGTERM")
            if after["sequence"] != sequence:
                raise Violation(f"after SIGTERM: GET /health sequence {after['sequence']}, expected {sequence}")
    except Violation as violation:
        log(f"durability: VIOLATION: {violation}")
        if os.path.isdir(data_dir):
            log(f"durability: the edit log, and its entries that name {violation.ids}:\n"
                + describe_log(data_dir, violation.ids))
        if server is not None and server.process.poll() is None:
            server.kill()
        log(f"durability: kept the work folder for inspection: {work} "
            f"(data directory {data_dir}: {log_files(data_dir) if os.path.isdir(data_dir) else 'missing'}; "
            f"server output in {output_dir})")
        return 1
    except BaseException:
        if server is not None and server.process.poll() is None:
            server.kill()
        log(f"durability: kept the work folder: {work}")
        raise
    elapsed = time.monotonic() - started
    log(
        f"durability: passed: {options.rounds} rounds (seed {seed}), {totals['acknowledged edits']} acknowledged "
        f"edits ({totals['acknowledged records']} records) checked, unacknowledged edits seen present "
        f"{totals['present']} / absent {totals['absent']}, {totals['compactions']} rounds past the compaction "
        f"threshold, SIGTERM exit 0 and a clean restart, {starts} starts, {elapsed:.1f} s"
    )
    if options.keep:
        log(f"durability: kept the work folder: {work}")
    elif not options.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def stats_log_bytes(port: int) -> int:
    status, answer = request(port, "GET", "/stats")
    if status != 200:
        raise Violation(f"GET /stats answered {status} {answer}")
    return answer["edits"]["logBytes"]


def replayed_line(error_path: str) -> str:
    text = read_tail(error_path)
    for line in text.splitlines():
        if "ready in" in line:
            return line.split("records ready in ", 1)[-1]
    return "?"


if __name__ == "__main__":
    sys.exit(main())
