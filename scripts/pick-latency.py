#!/usr/bin/env python3
"""Times `sift pick` over piped lines, on a pseudo-terminal that is its controlling terminal.

    seq 1 1000000 > lines.txt
    swift build -c release --product sift
    scripts/pick-latency.py .build/release/sift lines.txt 5

Runs `cat LINES | sift pick` with standard output to /dev/null, types KEY (default "5") at
once, as someone who starts typing before the list appears, and prints the seconds from the
start to the first frame, and to the first frame that answers KEY (its match count shown as
"N/TOTAL" after the prompt "> KEY"). Run it a few times: the first run also reads the file
from disk.
"""
import os
import pty
import re
import select
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sift, lines = sys.argv[1], sys.argv[2]
    key = sys.argv[3] if len(sys.argv) > 3 else "5"
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv("/bin/sh", ["sh", "-c", 'cat "$1" | "$2" pick > /dev/null', "sh", lines, sift])
    os.write(fd, key.encode())
    output = b""
    first_frame = answered = None
    deadline = start + 120
    while answered is None and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            output += os.read(fd, 1 << 16)
        except OSError:
            break
        text = output.decode("utf-8", "replace")
        if first_frame is None and re.search(r"\d+/\d+ ·", text):
            first_frame = time.monotonic() - start
        # The frame with the typed key: the prompt, then the info line with its count.
        if re.search(re.escape("> \x1b[0m" + key + "\x1b[7m") + r".*?\x1b\[2m  \d+/\d+", text, re.S):
            answered = time.monotonic() - start
    os.write(fd, b"\x1b")  # Esc: quit
    os.waitpid(pid, 0)
    if answered is None:
        sys.exit("no answer for %r within 120 s" % key)
    print("first frame %.2f s, answer to %r %.2f s after the start" % (first_frame, key, answered))


if __name__ == "__main__":
    main()
