"""A CPU budget for one match, and a way to stop it when nobody waits for the answer.

Every step of the matcher is linear in its input, but a 1 MiB paste of hostile lines still costs
about a second of CPU.  ``with budget(ms, cancel):`` around a match sets a deadline in *thread* CPU
time (time spent waiting for the GIL or for other requests does not count, so a busy server does not
cut ordinary logs short).  The steps that loop over lines ask ``spent(share)`` every few hundred
lines and stop early when it says so; the result then says what was left out
(``log.dropped["time_budget_ms"]``).  ``cancel`` is an event the HTTP edge sets when the client
has gone away: every check then says "stop".
"""
from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

DEFAULT_MS = 250


@dataclass
class Deadline:
    limit_s: float
    cancel: threading.Event | None = None
    start: float = field(default_factory=time.thread_time)
    cut: set[str] = field(default_factory=set)  # the steps that stopped early

    def spent(self, share: float = 1.0) -> bool:
        """True when ``share`` of the budget is used up (or the client went away)."""
        if self.cancel is not None and self.cancel.is_set():
            return True
        return time.thread_time() - self.start >= self.limit_s * share


_current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("faultline_deadline", default=None)


def current() -> Deadline | None:
    return _current.get()


def spent(share: float = 1.0, step: str | None = None) -> bool:
    """Whether the running match must stop ``step`` now; no budget set means never."""
    d = _current.get()
    if d is None or not d.spent(share):
        return False
    if step:
        d.cut.add(step)
    return True


@contextlib.contextmanager
def budget(ms: float | None = DEFAULT_MS, cancel: threading.Event | None = None) -> Iterator[Deadline | None]:
    """Run the block under a CPU budget of ``ms`` milliseconds (None or <= 0: no limit)."""
    if not ms or ms <= 0:
        ms = float("inf")
    d = Deadline(ms / 1000.0, cancel)
    token = _current.set(d)
    try:
        yield d
    finally:
        _current.reset(token)
