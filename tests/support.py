"""Helpers shared by tests (imported explicitly, never through conftest)."""
from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")


def wait_until(probe: Callable[[], T], timeout: float = 15.0, interval: float = 0.05) -> T:
    """Call ``probe`` until it returns something truthy (returned) or ``timeout`` seconds pass (AssertionError).

    The service picks up a new knowledge-base generation from a watcher thread, so a test that
    loads a KB waits for it the way a user would: by asking again.
    """
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout} s: last value {got!r}")
        time.sleep(interval)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """`faultline serve` as a real process on a free loopback port (a context manager).

    ``base`` is its URL; ``log()`` is what it printed so far (stdout and stderr).
    """

    def __init__(self, db, kb, workers: int = 1, env: dict | None = None, extra: tuple = (),
                 start_timeout: float = 120.0):
        import os
        import sys
        from pathlib import Path

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.repo = Path(__file__).resolve().parent.parent
        self.argv = [sys.executable, "-m", "faultline.cli", "--kb", str(kb), "serve", "--db", str(db),
                     "--host", "127.0.0.1", "--port", str(self.port), "--workers", str(workers), *extra]
        self.env = {**os.environ, "FAULTLINE_RELOAD_POLL": "0.2", **(env or {})}
        self.start_timeout = start_timeout
        self.proc = None
        self._log_path = None

    def __enter__(self) -> "Service":
        import subprocess
        import tempfile

        import httpx

        fd, self._log_path = tempfile.mkstemp(prefix="faultline-serve-", suffix=".log")
        self.proc = subprocess.Popen(self.argv, cwd=self.repo, env=self.env, stdout=fd, stderr=subprocess.STDOUT,
                                     start_new_session=True)

        def up():
            if self.proc.poll() is not None:
                raise AssertionError(f"the service exited with {self.proc.returncode}:\n{self.log()}")
            try:
                return httpx.get(f"{self.base}/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(up, timeout=self.start_timeout, interval=0.2)
        return self

    def log(self) -> str:
        from pathlib import Path

        return Path(self._log_path).read_text(errors="replace") if self._log_path else ""

    def kill(self, sig=None) -> None:
        import os
        import signal

        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig or signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except Exception:  # noqa: BLE001
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)

    def __exit__(self, *exc) -> None:
        import os

        self.kill()
        if self._log_path:
            os.unlink(self._log_path)
