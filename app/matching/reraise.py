"""The DataLoader's re-raise of a worker's exception, recognised by its frames when the message is cut.

When a DataLoader worker raises, the main process re-raises it through ``ExceptionWrapper.reraise``
(torch/_utils.py: ``data.reraise()``, ``raise self.exc_type(msg)``, ``raise exception``; before torch
1.2 ``_process_next_batch``: ``raise batch.exc_type(batch.exc_msg)``).  Pastes are often cut right
after those frames, or end in an exception that says nothing of the worker: the re-raise failed
("TypeError: __init__() missing 1 required positional argument") or the old wrapper's message starts
with the worker's own traceback ("TypeError: Traceback (most recent call last):").  The frames are
torch's own text: the KB's entry for "Caught X in DataLoader worker process N" explains them, at
the lower confidence of a form standing for a message.
"""
from __future__ import annotations

import math

from faultline.matching.config import DEFAULT, RankConfig
from faultline.matching.index import Hit, MatchIndex, SigSpec
from faultline.matching.logparse import Line, ParsedLog, parse_log

SIG_NAME = "dataloader-reraise"
_PROBE = "RuntimeError: Caught RuntimeError in DataLoader worker process 0."
# the source lines torch prints for the re-raise (code lines of the traceback)
_RERAISE_CODE = ("data.reraise()", "raise self.exc_type(msg)", "raise batch.exc_type(batch.exc_msg)",
                 "raise self.exc_type(message=msg)")


def _reraise_frame(ln: Line) -> bool:
    t = ln.text
    return t.endswith(", in reraise") and ("torch/_utils.py" in t or "torch\\_utils.py" in t)


def _torch_frame(ln: Line) -> bool:
    return "torch/" in ln.text or "torch\\" in ln.text


def reraise_line(parsed: ParsedLog) -> Line | None:
    """The line to hang the re-raise on: the exception after the frames when the paste has one, else the
    last re-raise frame or source line; None when the log shows no DataLoader re-raise (a source line
    counts under a frame of torch's only: a user's own ``reraise`` is not the DataLoader's)."""
    if parsed.joined and "reraise" not in parsed.joined and "exc_type" not in parsed.joined:
        return None  # every re-raise frame and source line holds one of these words
    last = None
    frame: Line | None = None
    for i, ln in enumerate(parsed.lines):
        if ln.kind == "frame":
            frame = ln
            if _reraise_frame(ln):
                last = i
        elif ln.kind == "code" and frame is not None and ln.text.strip() in _RERAISE_CODE and _torch_frame(frame):
            last = i
    if last is None:
        return None
    for ln in parsed.lines[last + 1:last + 4]:
        if ln.kind == "exception":
            return ln
    return parsed.lines[last]


def reraise_hits(index: MatchIndex, parsed: ParsedLog, already: set[str], cfg: RankConfig = DEFAULT) -> list[Hit]:
    ln = reraise_line(parsed)
    if ln is None:
        return []
    cache = index.signal_entries
    if ("reraise", None) not in cache:
        cache[("reraise", None)] = list(dict.fromkeys(h.sig.entry_id for h in index.hits(parse_log(_PROBE))))[:1]
    spec = int(-math.log(1 - cfg.killed_confidence) * cfg.spec_scale) + 1
    out = [Hit(SigSpec(eid, SIG_NAME, "", True, None, (), spec), ln) for eid in cache[("reraise", None)]
           if eid not in already]
    already.update(h.sig.entry_id for h in out)
    return out


__all__ = ["reraise_hits", "reraise_line", "SIG_NAME"]
