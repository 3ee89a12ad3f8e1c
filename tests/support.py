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
