"""The browser test of `sift serve`'s search page, run by scripts/browser-test.sh.

Drives Debian's headless Chromium (playwright, sync API; nothing is downloaded) against a running
server over the 1,000,000 people that make_data.py writes, and checks what a person would see:
highlights, badges, a scope switch, folding, the too-short state, scrolling to row 500,000,
keyboard navigation, an edit over HTTP showing up live, and the page at 360 px wide.

Usage: python3 test_page.py --url http://127.0.0.1:PORT --admin-key K --search-key K --screenshots DIR
Exits non-zero with a message naming the failed check.
"""

import argparse
import json
import sys
import time
import unicodedata
import urllib.parse
import urllib.request

from playwright.sync_api import Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

WAIT_MS = 120_000  # a debug build over a million rows is slow; no check depends on speed


class CheckFailed(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def fold(text: str) -> str:
    """Case and accents folded, as the index's primary strength compares."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)).casefold()


class Server:
    """The server's HTTP API, for the answers the page must agree with and for edits."""

    def __init__(self, url: str, admin_key: str, search_key: str):
        self.url, self.admin_key, self.search_key = url, admin_key, search_key

    def call(self, method: str, path: str, body=None, admin=False):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.admin_key if admin else self.search_key}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=120) as answer:
            return json.loads(answer.read())

    def search(self, q: str, scope: str, **params):
        query = urllib.parse.urlencode({"q": q, "scope": scope, **params})
        return self.call("GET", f"/search?{query}")


# What the page shows: every rendered row (only visible rows are in the DOM), the badges, the state.
SHOWN_ROWS = """() => [...document.querySelectorAll('#layer .row')].map(r => ({
    row: Number(r.dataset.row), id: r.dataset.id || null, text: r.textContent,
    num: r.querySelector('.num')?.textContent || null,
    title: r.querySelector('.title')?.textContent || '',
    titleMarks: [...r.querySelectorAll('.title mark')].map(m => m.textContent),
    marks: [...r.querySelectorAll('mark')].map(m => m.textContent),
    top: r.getBoundingClientRect().top, selected: r.getAttribute('aria-selected')}))"""
BADGES = """() => Object.fromEntries([...document.querySelectorAll('#scopes button')].map(b =>
    [b.dataset.scope, b.querySelector('.badge').textContent]))"""


def wait(page: Page, script: str, what: str, arg=None) -> None:
    """Waits until `script` is true in the page; on a timeout, fails naming `what` and the page's state."""
    try:
        page.wait_for_function(script, arg=arg, timeout=WAIT_MS)
    except PlaywrightTimeout:
        shown = page.evaluate("() => ({...document.body.dataset, status: document.getElementById('status')?.textContent})")
        raise CheckFailed(f"waited {WAIT_MS // 1000} s for {what}; the page shows {shown}") from None


def settled(page: Page, state: str, query: str, scope: str) -> dict:
    """Waits until the page shows a settled `state` for `query` in `scope`, its visible rows loaded."""
    wait(
        page,
        """([state, query, scope]) => {
            const d = document.body.dataset;
            if (d.state !== state || d.query !== query || d.scope !== scope) return false;
            const rows = document.querySelectorAll('#layer .row');
            return [...rows].every(r => r.dataset.id) && (rows.length > 0 || d.total === '0');
        }""",
        f"state {state} for '{query}' in scope {scope}, its rows loaded",
        arg=[state, query, scope],
    )
    return dict(page.evaluate("() => ({...document.body.dataset})"))


def type_query(page: Page, text: str) -> None:
    """Clears the box, then types `text` one keystroke at a time, as a person does."""
    box = page.locator("#box")
    box.fill("")
    box.press_sequentially(text, delay=60)


def count(badge: str) -> int:
    return int(badge.replace(",", "")) if badge else -1


def run(page: Page, server: Server, shots: str) -> None:
    step = lambda name: print(f"  · {name}", flush=True)

    step("the page loads every record, inactive")
    page.goto(f"{server.url}/?key={server.search_key}")
    shown = settled(page, "inactive", "", "All")
    check(shown["total"] == "1000000", f"inactive total is {shown['total']}, not 1000000")
    page.evaluate("() => { window.__marker = 'no reload' }")
    check(page.get_attribute("#box", "role") == "combobox", "the box is not a combobox")
    check(page.get_attribute("#viewport", "role") == "listbox", "the list is not a listbox")

    step("typing 'jose' keystroke by keystroke: rows with José highlighted")
    type_query(page, "jose")
    shown = settled(page, "results", "jose", "All")
    rows = page.evaluate(SHOWN_ROWS)
    check(len(rows) >= 5, f"only {len(rows)} rows shown for 'jose'")
    for row in rows:
        check(row["marks"], f"row {row['row']} ({row['title']}) has no highlight")
        for mark in row["marks"]:
            check(fold(mark) == "jose", f"row {row['row']} highlights '{mark}', not a folded 'jose'")
    check(any("José" in r["titleMarks"] for r in rows), "no title highlights 'José' (accent folding)")
    check(int(shown["total"]) > 20_000, f"'jose' found only {shown['total']} rows")

    step("scope badges agree with GET /search")
    badges = page.evaluate(BADGES)
    expected = {s["name"]: s["count"] for s in server.search("jose", "All", limit=1)["scopes"]}
    check(set(badges) == set(expected), f"badges {sorted(badges)} are not the scopes {sorted(expected)}")
    for name, value in expected.items():
        if value is not None:
            check(count(badges[name]) == value, f"badge {name} shows '{badges[name]}', the API says {value}")
    check(count(badges["All"]) == int(shown["total"]), "the All badge is not the total shown")

    step("a scope switch changes the results")
    page.click("#scopes button[data-scope='Name']")
    shown = settled(page, "results", "jose", "Name")
    check(int(shown["total"]) == count(badges["Name"]), f"Name shows {shown['total']}, its badge said {badges['Name']}")
    check(int(shown["total"]) < count(badges["All"]), "the Name scope did not narrow the results")
    for row in page.evaluate(SHOWN_ROWS):
        check(row["titleMarks"] and len(row["marks"]) == len(row["titleMarks"]), f"Name scope row {row['row']} matched outside the name")

    step("the too-short state in the Country scope (3 characters)")
    page.click("#scopes button[data-scope='Country']")
    type_query(page, "sv")
    settled(page, "tooShort", "sv", "Country")
    status = page.text_content("#status")
    check(status == "Type 1 more character", f"too-short status reads '{status}'")
    page.locator("#box").press_sequentially("e", delay=60)
    shown = settled(page, "results", "sve", "Country")
    check(int(shown["total"]) > 0, "'sve' in Country found nothing (Sverige)")

    step("Escape clears the box; scrolling to row 500,000 of the million")
    page.click("#scopes button[data-scope='All']")
    page.locator("#box").press("Escape")
    settled(page, "inactive", "", "All")
    check(page.input_value("#box") == "", "Escape did not clear the box")
    page.evaluate("() => { const v = document.getElementById('viewport'); v.scrollTop = (v.scrollHeight - v.clientHeight) / 2 }")
    wait(  # the scroll event comes a frame later; then the rows' pages
        page,
        "() => { const r = [...document.querySelectorAll('#layer .row')];"
        " return r.length && r.every(x => x.dataset.id && +x.dataset.row > 400000) }",
        "the rows around 500,000, loaded",
    )
    rows = page.evaluate(SHOWN_ROWS)
    numbers = sorted(r["row"] for r in rows)
    check(abs(numbers[0] - 500_000) < 100, f"scrolled to half, the first row shown is {numbers[0]}")
    check(numbers == list(range(numbers[0], numbers[0] + len(numbers))), "the rows shown are not consecutive")
    row = min(rows, key=lambda r: r["row"])
    check(row["num"] == f"{row['row'] + 1:,}", f"row {row['row']} is labelled {row['num']}: {row}")
    api = server.search("", "All", offset=row["row"], limit=1, order="sorted")["rows"][0]  # the original table is sorted by name
    check(api["id"] == row["id"], f"row {row['row']} shows id {row['id']}, GET /search says {api['id']}")
    page.mouse.move(300, 500)
    page.mouse.wheel(0, 3000)
    wait(
        page,
        "(n) => { const r = [...document.querySelectorAll('#layer .row')];"
        " return r.length && r.every(x => x.dataset.id) && Math.min(...r.map(x => +x.dataset.row)) > n }",
        "the rows below after scrolling with the mouse wheel, loaded",
        arg=numbers[0],
    )

    step("desktop screenshots (light and dark)")
    page.locator("#box").focus()
    type_query(page, "zür")
    settled(page, "results", "zür", "All")
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    wait(page, "() => !document.getElementById('detail').hidden", "the record panel")
    page.mouse.move(1000, 700)  # no hover on a row
    page.wait_for_timeout(300)
    page.screenshot(path=f"{shots}/desktop.png")
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=f"{shots}/desktop-dark.png")
    page.emulate_media(color_scheme="light")
    page.keyboard.press("Escape")
    check(page.is_hidden("#detail"), "Escape did not close the record panel")

    step("keyboard navigation moves aria-activedescendant")
    type_query(page, "jose")
    shown = settled(page, "results", "jose", "All")
    total = int(shown["total"])
    active = lambda: page.get_attribute("#box", "aria-activedescendant")

    def expect_active(row: int, what: str) -> None:
        wait(
            page,
            "(id) => { const b = document.getElementById('box'); const e = document.getElementById(id);"
            " return b.getAttribute('aria-activedescendant') === id && e && e.dataset.id && e.getAttribute('aria-selected') === 'true' }",
            f"row {row} to be active after {what}",
            arg=f"opt-{row}",
        )
        check(active() == f"opt-{row}", f"after {what} the active row is {active()}, not opt-{row}")

    page.keyboard.press("ArrowDown")
    expect_active(0, "ArrowDown")
    page.keyboard.press("ArrowDown")
    expect_active(1, "ArrowDown twice")
    page.keyboard.press("PageDown")
    after_page_down = int(active().removeprefix("opt-"))
    check(after_page_down > 3, f"PageDown moved only to row {after_page_down}")
    page.keyboard.press("End")
    expect_active(total - 1, "End")
    page.keyboard.press("Home")
    expect_active(0, "Home")
    first = page.evaluate(SHOWN_ROWS)[0]
    page.keyboard.press("Enter")
    wait(page, f"() => document.getElementById('detail').dataset.id === {json.dumps(first['id'])}", "Enter to open the record")
    page.keyboard.press("Escape")

    step("an edit over HTTP shows up in the open page, flashed, without a reload")
    record = server.call("GET", f"/records/{first['id']}")
    edited = f"Edited Land {int(time.time() * 1000) % 100_000}"  # new on every run
    fields = dict(record["fields"], country=edited)
    answer = server.call("PUT", "/records", [{"id": first["id"], "fields": fields}], admin=True)
    check(answer.get("upserted") == 1, f"PUT /records answered {answer}")
    wait(
        page,
        f"() => [...document.querySelectorAll('#layer .row')].some(r => r.dataset.id === {json.dumps(first['id'])}"
        f" && r.textContent.includes({json.dumps(edited)}) && r.classList.contains('flash'))",
        f"record {first['id']} to show '{edited}', flashed",
    )
    new_id = "browser-test-1"
    server.call("POST", "/records", [{"id": new_id, "fields": {"name": "José Q. Nuevo", "country": "España", "notes": "added by the browser test"}}], admin=True)
    wait(page, f"() => document.body.dataset.total === '{total + 1}'", "the total to count an inserted record")
    server.call("DELETE", "/records", [new_id], admin=True)
    wait(page, f"() => document.body.dataset.total === '{total}'", "the total to drop a deleted record")
    check(page.evaluate("() => window.__marker") == "no reload", "the page was reloaded by an edit")

    step("at 360 px wide nothing overflows")
    page.set_viewport_size({"width": 360, "height": 740})
    type_query(page, "zür")
    settled(page, "results", "zür", "All")
    widths = page.evaluate("() => [document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]")
    check(max(widths[:2]) <= widths[2], f"the page is {max(widths[:2])} px wide at {widths[2]} px")
    overflowing = page.evaluate(
        "() => [...document.querySelectorAll('header *, #index, #viewport')].filter(e => e.getBoundingClientRect().right > innerWidth + 0.5).map(e => e.id || e.className || e.tagName)"
    )
    check(not overflowing, f"elements past the right edge at 360 px: {overflowing[:5]}")
    page.screenshot(path=f"{shots}/narrow.png")
    page.emulate_media(color_scheme="dark")
    page.screenshot(path=f"{shots}/narrow-dark.png")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--admin-key", required=True)
    parser.add_argument("--search-key", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    server = Server(args.url, args.admin_key, args.search_key)
    errors: list[str] = []
    started = time.monotonic()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 800}, device_scale_factor=1)
        page.on("pageerror", lambda error: errors.append(str(error)))
        try:
            run(page, server, args.screenshots)
            check(not errors, f"the page threw: {errors}")
        except CheckFailed as failure:
            page.screenshot(path=f"{args.screenshots}/failure.png")
            print(f"browser test FAILED: {failure}", file=sys.stderr)
            return 1
        except Exception as error:  # a timeout names what it waited for
            page.screenshot(path=f"{args.screenshots}/failure.png")
            print(f"browser test FAILED: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        finally:
            browser.close()
    print(f"browser test passed in {time.monotonic() - started:.1f} s; screenshots in {args.screenshots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
