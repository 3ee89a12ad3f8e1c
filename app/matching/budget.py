"""A CPU safety net for one match, and a way to stop it when nobody waits for the answer.

The answer to a paste depends on the paste alone, never on the machine's load: what a match reads is
bounded by the input's size, deterministically (the 1 MiB body limit, at most 20,000 lines with the
middle of a longer log dropped, lines cut into 4,000-character pieces, a fixed look-ahead for
tracebacks: app/matching/logparse.py and tracebacks.py), and within those bounds no step is cut.
A paste at those bounds costs a few hundred milliseconds of CPU (bench/adversarial.py).

``with budget(ms, cancel):`` around a match sets a last-resort deadline in *thread* CPU time, never
tighter than ``MIN_NET_MS`` (a multiple of the worst in-bound paste), so that it is not reached by any
paste within the bounds, however loaded the machine.  The steps that loop over lines ask
``spent(share)`` every few hundred lines and stop early when it says so; the result then says what was
left out (``log.dropped["time_budget_ms"]``).  ``cancel`` is an event the HTTP edge sets when the
client has gone away: every check then says "stop".
"""
from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

DEFAULT_MS = 250
# The net is never tighter than this.  The worst paste within the size bounds costs about 0.3 s of CPU
# on a 2024 server core (0.8 s on the review's shared 2-vCPU machine): a net at several times that is
# reached only by a defect (or a machine many times slower), never by load, so that the same paste gets
# the same answer at any load and with any FAULTLINE_MATCH_BUDGET_MS.
MIN_NET_MS = 4000.0


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
    """Run the block under a CPU safety net of ``ms`` milliseconds, at least MIN_NET_MS (None or <= 0: none)."""
    if not ms or ms <= 0:
        ms = float("inf")
    else:
        ms = max(float(ms), MIN_NET_MS)
    d = Deadline(ms / 1000.0, cancel)
    token = _current.set(d)
    try:
        yield d
    finally:
        _current.reset(token)
