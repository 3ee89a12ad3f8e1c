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
import select
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass

TAIL_BYTES = 256 * 1024  # thousands of lines; under the API's 1 MiB body limit even when escaped as JSON
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
    output_closed: bool = False  # faultline's stdout was closed by its reader (`| head`): nobody reads on
    stopped_by: int | None = None  # the first signal faultline received and passed on (SIGINT: Ctrl-C)


class CommandNotFound(Exception):
    pass


def _write_all(fd: int, data: bytes, broken: set[int]) -> None:
    if fd in broken:
        return
    try:
        while data:
            try:
                n = os.write(fd, data)
            except BlockingIOError:  # our output is non-blocking and full: wait until it drains
                select.select([], [fd], [], 1.0)
                continue
            data = data[n:]
    except OSError:  # e.g. a closed pipe: our reader went away (the caller passes that on to the command)
        broken.add(fd)


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


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    """The command in a process group of its own (``process_group`` needs Python 3.11)."""
    group = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
    try:
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, **group)
    except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
        raise CommandNotFound(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from None


def run_command(argv: list[str], tail_bytes: int = TAIL_BYTES, env: dict[str, str] | None = None) -> RunResult:
    """Run ``argv`` to completion, passing its output through; raise CommandNotFound if it cannot start."""
    child_env = dict(os.environ if env is None else env)
    # a Python command writing to a pipe would buffer its stdout: keep it live, as on a terminal
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    received: list[int] = []
    child: list[subprocess.Popen] = []

    def forward(signum, _frame):
        received.append(signum)
        if child:
            try:
                os.killpg(child[0].pid, signum)
            except ProcessLookupError:
                pass

    # the handlers go in before the command starts, so that no signal is lost in between
    previous = {s: signal.signal(s, forward) for s in FORWARDED}
    try:
        proc = _start(argv, child_env)
        child.append(proc)
        for signum in received:  # arrived while it was starting
            os.killpg(proc.pid, signum)
        return _supervise(proc, tail_bytes, received)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _supervise(proc: subprocess.Popen, tail_bytes: int, received: list[int]) -> RunResult:
    tail = Tail(tail_bytes)
    sys.stdout.flush()
    sys.stderr.flush()
    targets = {proc.stdout.fileno(): sys.stdout.fileno(), proc.stderr.fileno(): sys.stderr.fileno()}
    pipes = {proc.stdout.fileno(): proc.stdout, proc.stderr.fileno(): proc.stderr}
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
                    if targets[src] in broken:
                        # our reader went away (`faultline run -- yes | head -1`): pass the closed pipe
                        # on, as a shell pipeline would, so the command's next write ends it (SIGPIPE)
                        sel.unregister(src)
                        open_fds.discard(src)
                        pipes[src].close()
            sel.close()
            rc = proc.wait()
    finally:
        proc.stdout.close()
        proc.stderr.close()
        if proc.poll() is None:  # faultline itself is failing: do not leave the command behind
            _stop(proc)
    sig = -rc if rc < 0 else None
    return RunResult(returncode=128 + sig if sig else rc, signal=sig, tail=tail.text(), interrupted=bool(received),
                     output_closed=sys.stdout.fileno() in broken, stopped_by=received[0] if received else None)


def _stop(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue
