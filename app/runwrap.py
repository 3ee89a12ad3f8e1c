"""Run a command for `faultline run`: its output passes through unchanged and live, a bounded
tail of both streams is kept (in the order the bytes arrived) for the diagnosis, and the
signals that stop a job (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT) reach the command's process group.

The command runs in a process group of its own, so that a signal reaches every process it
started (torchrun's workers, a DataLoader's workers), not only the first one.  When standard
input is a terminal and faultline is in the foreground, the terminal is handed to that group for
the duration of the run (as a shell does for a job), so Ctrl-C and interactive debuggers reach
the command directly; faultline forwards the signals it receives itself (e.g. `kill <pid>`).
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass

TAIL_BYTES = 512 * 1024  # well under the API's 1 MiB body limit
DRAIN_S = 2.0  # after the command exits, how long quiet inherited pipes are still read
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


class Tail:
    """The last ``limit`` bytes written to it, in order."""

    def __init__(self, limit: int = TAIL_BYTES):
        self.limit = limit
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.dropped = 0

    def add(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        while self.size - len(self.chunks[0]) >= self.limit:
            old = self.chunks.popleft()
            self.size -= len(old)
            self.dropped += len(old)

    def text(self) -> str:
        data = b"".join(self.chunks)
        if len(data) > self.limit:
            self.dropped += len(data) - self.limit
            data = data[-self.limit:]
        if self.dropped:  # the first line is cut: start at the next whole line
            nl = data.find(b"\n")
            data = data[nl + 1:] if nl >= 0 else data
        return data.decode("utf-8", errors="replace")


@dataclass
class RunResult:
    returncode: int  # as a shell reports it: 128 + N when the command was killed by signal N
    signal: int | None  # the signal that ended the command, if one did
    tail: str  # the end of stdout and stderr together, in arrival order
    interrupted: bool  # faultline forwarded a signal to the command (the user stopped it)


class CommandNotFound(Exception):
    pass


def _write_all(fd: int, data: bytes, broken: set[int]) -> None:
    if fd in broken:
        return
    try:
        while data:
            n = os.write(fd, data)
            data = data[n:]
    except (BrokenPipeError, OSError):
        broken.add(fd)  # our reader went away; keep draining the command so it is not blocked


@contextmanager
def _foreground(pgid: int):
    """Give the terminal to process group ``pgid`` when we own it; give it back afterwards."""
    fd = None
    try:
        if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
            fd = 0
    except OSError:
        fd = None
    old_ttou = None
    if fd is not None:
        old_ttou = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(fd, pgid)
        except OSError:
            fd = None
    try:
        yield
    finally:
        if fd is not None:
            try:
                os.tcsetpgrp(fd, os.getpgrp())
            except OSError:
                pass
        if old_ttou is not None:
            signal.signal(signal.SIGTTOU, old_ttou)


def run_command(argv: list[str], tail_bytes: int = TAIL_BYTES, env: dict[str, str] | None = None) -> RunResult:
    """Run ``argv`` to completion, passing its output through; raise CommandNotFound if it cannot start."""
    child_env = dict(os.environ if env is None else env)
    # a Python command writing to a pipe would buffer its stdout: keep it live, as on a terminal
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env,
                                process_group=0)
    except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
        raise CommandNotFound(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from None

    forwarded: list[int] = []

    def forward(signum, _frame):
        forwarded.append(signum)
        try:
            os.killpg(proc.pid, signum)
        except ProcessLookupError:
            pass

    previous = {s: signal.signal(s, forward) for s in FORWARDED}
    tail = Tail(tail_bytes)
    out_fd, err_fd = sys.stdout.fileno(), sys.stderr.fileno()
    sys.stdout.flush()
    sys.stderr.flush()
    targets = {proc.stdout.fileno(): out_fd, proc.stderr.fileno(): err_fd}
    broken: set[int] = set()
    try:
        with _foreground(proc.pid):
            sel = selectors.DefaultSelector()
            for src in targets:
                os.set_blocking(src, False)
                sel.register(src, selectors.EVENT_READ)
            open_fds = set(targets)
            exited_at = None
            while open_fds:
                events = sel.select(timeout=0.25)
                if proc.poll() is not None:
                    # the command ended; a process it left behind may hold the pipes open: drain
                    # what is there, and stop once they stay quiet for a moment
                    if exited_at is None:
                        exited_at = time.monotonic()
                    elif not events and time.monotonic() - exited_at > DRAIN_S:
                        break
                for key, _ in events:
                    src = key.fd
                    try:
                        data = os.read(src, 65536)
                    except BlockingIOError:
                        continue
                    if not data:
                        sel.unregister(src)
                        open_fds.discard(src)
                        continue
                    _write_all(targets[src], data, broken)
                    tail.add(data)
            sel.close()
            rc = proc.wait()
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        proc.stdout.close()
        proc.stderr.close()
        if proc.poll() is None:  # faultline itself is failing: do not leave the command behind
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            proc.wait()
    sig = -rc if rc < 0 else None
    return RunResult(returncode=128 + sig if sig else rc, signal=sig, tail=tail.text(), interrupted=bool(forwarded))
