"""The parser's quick "no prefix here" test (logparse._NO_PREFIX) never hides a prefix that the full
alternation of prefixes (logparse._ANY_PREFIX) would take off: on every line of every example log of
the KB and the held-out sets, on the prefixes each alternative exists for, and on random lines built
from the characters prefixes are made of.  Were it to, a line's rank, host or timestamp would be lost."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from faultline.matching import logparse
from faultline.matching.logparse import _ANY_PREFIX, _NO_PREFIX, parse_log

ROOT = Path(__file__).resolve().parent.parent


def _suffixes(raw: str):
    """The line, and what is left of it after each prefix the full alternation takes off."""
    text = raw.rstrip("\r\n").lstrip("\x00")
    for _ in range(8):
        yield text
        m = _ANY_PREFIX.match(text) if text else None
        if not m or not m.end():
            return
        text = text[m.end():]


def _corpus_lines():
    for base in (ROOT / "kb" / "examples", ROOT / "bench"):
        for p in sorted(base.rglob("*.log")):
            yield from p.read_text(encoding="utf-8", errors="replace").splitlines()


def test_the_quick_test_agrees_with_the_full_alternation_on_every_real_line():
    checked = 0
    for raw in _corpus_lines():
        for text in _suffixes(raw):
            if text and _NO_PREFIX.match(text):
                assert _ANY_PREFIX.match(text) is None, text
                checked += 1
    assert checked > 5000  # the corpus is real: thousands of its lines take the quick path


@pytest.mark.parametrize("line", [
    "gpu-node-3: Traceback (most recent call last):",
    "worker-1: [rank0]: RuntimeError: x",
    "train-ddp-7c9f-0 [rank1]: RuntimeError: x",
    "gpu-node-3 [stderr] [rank1]: x",
    "stdout F RuntimeError: x",
    "stderr P partial",
    "trainer-1  | RuntimeError: x",
    "trainer_2\t| x",
    "root - ERROR - boom",
    "my.logger - WARNING - x",
    "INFO:root:hello there",
    "python : Traceback (most recent call last):",
    "rank3: RuntimeError: x",
    "E1203 12:00:00.123456 123 api.py:12] x",
    "W1203 12:00:00.123000 123 api.py:12] x",
    "stderr: Traceback (most recent call last):",
])
def test_a_line_with_a_prefix_never_takes_the_quick_path(line):
    assert _ANY_PREFIX.match(line) is not None, "the example must hold a prefix"
    assert _NO_PREFIX.match(line) is None


def test_random_lines_of_prefix_characters():
    rng = random.Random(2026)
    pieces = ["a", "Z", "rank", "3", "E12", "I0", "stdout", "stderr", "F", ":", ": ", " ", "  ", "\t", "-", " - ",
              "|", " | ", "[", "]", "(", "pid=1", ".", "_1", "INFO", "ERROR", "Traceback", "x.cpp:12]", "12:00:00"]
    for _ in range(60000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 9)))
        if _NO_PREFIX.match(text):
            assert _ANY_PREFIX.match(text) is None, repr(text)


def test_ranks_and_times_are_read_with_and_without_the_quick_path(monkeypatch):
    text = ("[rank3]:step 12 | loss 2.5\n[rank3]:2026-12-04 08:00:01,123 - trainer - INFO - saved\n"
            "gpu-node-1: [rank5]: RuntimeError: CUDA error: out of memory\nstep 13 | loss 2.4\n")
    fast = [(ln.text, ln.rank, ln.ts) for ln in parse_log(text).lines]
    monkeypatch.setattr(logparse, "_NO_PREFIX", logparse.re.compile(r"(?!)"))  # never takes the quick path
    slow = [(ln.text, ln.rank, ln.ts) for ln in parse_log(text).lines]
    assert fast == slow
    assert [r for _, r, _ in fast] == [3, 3, 5, None]
    assert fast[1][0] == "saved" and fast[1][2] is not None


def test_a_learnt_rank_prefix_reads_every_line_as_the_full_strip_does():
    """_make_lines learns a "[rankN]: " prefix from one line and reads the lines after it that start with it
    without _strip: each line must come out as _strip alone reads it (text, rank, time, indented), whatever
    follows the prefix (blanks, a second prefix, a timestamp, nothing) and whether the learnt prefix took a
    blank after its colon or not."""
    rng = random.Random(20261206)
    heads = ["[rank3]:", "[rank3]: ", "[rank3]:\t", "[rank 3]:", "[rank12]: ", "", "[rank3]:[rank4]: ", "[rank3]:  "]
    bodies = ["File \"a.py\", line 1, in f", " File \"a.py\"", "  x = 1", "\tx", "x y", "step 1 | loss 2", "",
              "2026-12-04 08:00:01,123 - t - INFO - m", "INFO:root:x", "[W 123] x", "\x00x", ":x", "x: y",
              "rank3: x", "E1203 12:00:00.123456 123 a.py:1] x", "stdout F x", "[rank5]: y", " ", "RuntimeError: z"]
    lines = [rng.choice(heads) + rng.choice(bodies) for _ in range(20000)]
    made, _split, _skipped, _timed = logparse._make_lines(list(enumerate(lines, 1)))
    assert len(made) == len(lines)  # short lines: nothing is joined or split
    learnt = 0
    for raw, ln in zip(lines, made):
        stripped, rank, ts = logparse._strip(raw)
        assert (ln.text, ln.rank, ln.ts, ln.indented) == (stripped.strip(), rank, ts, stripped[:1] in (" ", "\t")), raw
        learnt += raw.startswith("[rank") and rank is not None
    assert learnt > 10000


def test_strip_told_the_quick_test_failed_reads_as_without_being_told():
    """_make_lines asks _NO_PREFIX of a line before it calls _strip, and tells _strip so (``cleared``): the answer
    must be the one _strip gives when it asks again itself."""
    rng = random.Random(7)
    pieces = ["[rank3]: ", "[rank3]:", "\x00", "I1203 12:00:00.123456 123 a.py:1] ", "2026-12-04 08:00:01,123 ",
              "INFO ", "gpu-node-1: ", "stdout F ", "E1203 ", "x y", "RuntimeError: z", " ", ":", "W "]
    for _ in range(20000):
        raw = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        if raw[:1] == "\x00" or not _NO_PREFIX.match(raw):
            assert logparse._strip(raw, cleared=raw[:1] != "\x00") == logparse._strip(raw), repr(raw)


def _strip_by_alternation(raw: str):
    """What _strip is defined to give: the full alternation taken off again and again (at most eight times),
    the first rank and the first time it names kept.  No shortcut of _strip's is used."""
    text = raw.rstrip("\r\n").lstrip("\x00")
    rank = ts = None
    for _ in range(8):
        m = _ANY_PREFIX.match(text) if text else None
        if not m:
            break
        kind, groups = logparse._GROUPS_OF[m.lastgroup]
        if kind == "rank" and rank is None:
            rank = int(next(g for g in m.group(*groups) if g is not None))
        elif kind in ("ts0", "ts1") and ts is None:
            vals = [int(g) if g else 0 for g in m.group(*groups)]
            frac = m.group(*groups)[-1] or "0"
            month, day, hh, mm, ss = vals[1:6] if kind == "ts0" else vals[:5]
            ts = ((month * 31 + day) * 86400) + hh * 3600 + mm * 60 + ss + float("0." + frac)
        text = text[m.end():]
    return text, rank, ts


_TIMES = ["2026-12-04 08:00:01,123 ", "2026-12-04 08:00:01 ", "[2026-12-04 08:00:01.5] ", "2026/12/04 08:00:01 ",
          "2026-12-04T08:00:01Z ", "2026-12-04T08:00:01.123+02:00 ", "2026-12-04_08:00:01 ", "1999-01-02 03:04:05,6",
          "I1203 12:00:00.123456 123 a.py:12] ", "[W1203 12:00:00.123456789 ProcessGroupNCCL.cpp:1234] ",
          "E1203 12:00:00.123000 api.py:12] ", "[E1203 12:00:00 x.cc:1] ", "F1203 ", "W12 ", "2026-12-04 ", "12345: ",
          "3: ", "10.0.0.1: ", "2026-12-04 08:00:01 - t - INFO - ", "2026-12-04 08:00:01 | x", "2026-12-04 08 | "]


def test_strip_reads_every_line_as_the_full_alternation_does():
    """_strip's shortcuts (a learnt "[rankN]:", the quick test, a timestamp taken by its own pattern) change
    nothing: every real line, and random lines of prefixes, timestamps and their near misses, come out as the
    full alternation taken off repeatedly gives them (text, rank, time)."""
    checked = timed = 0
    for raw in _corpus_lines():
        assert logparse._strip(raw) == _strip_by_alternation(raw), raw
        checked += 1
    rng = random.Random(20261207)
    pieces = _TIMES + ["[rank3]: ", "[rank3]:", "gpu-node-1: ", "stdout F ", "x y", "RuntimeError: z", " ", ":", "W ",
                       "- t - INFO - ", "trainer-1  | ", "INFO:root:", "5", "-", "[", "E1", "W1203"]
    for _ in range(40000):
        raw = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        got = logparse._strip(raw)
        assert got == _strip_by_alternation(raw), repr(raw)
        timed += got[2] is not None
    assert checked > 5000 and timed > 10000
