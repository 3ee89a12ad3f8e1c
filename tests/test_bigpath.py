"""The big-input path gives what the full path gives: a log set read only where merge keeps lines
(app/logsets/filetext.py), the merged text parsed once for the match and the analysis
(logparse.reuse_parse), and the short reading of "[rankN]: " prefixes (logparse._strip)."""
from __future__ import annotations

import codecs
import contextlib
import json
import random
from pathlib import Path

import pytest

import faultline.logsets as ls
from faultline.kbfiles import load_kb
from faultline.logsets import match_files
from faultline.logsets.merge import _bounded as merge_bounded
from faultline.logsets.filetext import FileText
from faultline.logsets.inputs import Limits, read_paths
from faultline.matching import logparse
from faultline.matching.decode import decode_paste
from faultline.matching.index import MatchIndex
from bench.bigjob import EXPECTED_ENTRY, write_job
from tests.conftest import KB

BIG = Limits(max_files=4096, max_file_bytes=1 << 30, max_total_bytes=1 << 31, max_ratio=1000)


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB).entries)


# -- reading a file only where merge keeps lines ------------------------------------------------------
def _reference(data: bytes, cap: int):
    lines = decode_paste(data).text.splitlines()
    kept, nos, left = merge_bounded(lines, cap)
    return kept, nos, left, len(lines), decode_paste(data).text[:2048]


def _random_bytes(rng: random.Random) -> bytes:
    pieces = [b"step 12 | loss 2.31", "\u2588\u258c \u4e2d\u6587".encode(), b"\xff\xfe", b"\xe2\x96", b"\xc3",
              b"Traceback (most recent call last):", b"[rank3]: x", b"\t", b"", b"\x00"]
    seps = [b"\n"] * 12 + [b"\r\n", b"\r", b"\x0c", b"\x1e", "\u2028".encode(), b"\xc2\x85"]
    rare = rng.random() < 0.3
    out = []
    for _ in range(rng.randint(0, 400)):
        out.append(b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 6))))
        out.append(rng.choice(seps) if rare else b"\n")
    data = b"".join(out)
    if rng.random() < 0.3:
        data = data.rstrip(b"\n")
    if rng.random() < 0.1:
        data = rng.choice([codecs.BOM_UTF8, codecs.BOM_UTF16_LE]) + data
    return data


@pytest.mark.parametrize("seed", range(40))
def test_file_text_gives_the_lines_of_the_whole_decode(seed):
    rng = random.Random(seed)
    data = _random_bytes(rng)
    for cap in (40, 57, 281, 10_000):
        ft = FileText(data)
        want = _reference(data, cap)
        assert ft.bounded(cap) == want[:4]
        assert FileText(data).head(2048) == want[4]


def test_file_text_reads_a_big_plain_file_in_pieces():
    # multi-byte characters around the 8,196-byte mark of the head, invalid bytes, no final newline
    lines = [("\u2588" * (k % 7)) + f" step {k} \xe9" + ("\ufffd" if k % 13 == 0 else "") for k in range(20_000)]
    data = "\n".join(lines).encode() + b"\n\xff\xfe tail without newline \xe2\x96"
    ft = FileText(data)
    assert ft.plain
    for cap in (40, 281, 3600):
        assert ft.bounded(cap) == _reference(data, cap)[:4]
    assert ft.head() == _reference(data, 40)[4]
    assert ft._text is None  # never decoded whole
    for odd in (data.replace(b"\n", b"\r\n"), data + "\u2029".encode() + b"x\n", codecs.BOM_UTF8 + data):
        assert not FileText(odd).plain
        assert FileText(odd).bounded(281) == _reference(odd, 281)[:4]


# -- the short reading of rank prefixes -----------------------------------------------------------------
def _strip_reference(raw: str, cleared: bool = False):
    """logparse._strip as the full alternation reads it (every prefix through _ANY_PREFIX, groups re-read;
    ``cleared``, the caller's quick test, is not relied on)."""
    text = raw.rstrip("\r\n").lstrip("\x00")
    rank = ts = None
    for _ in range(8):
        if not text or text[0] not in logparse._PREFIX_START:
            break
        m = logparse._ANY_PREFIX.match(text)
        if not m:
            break
        kind = m.lastgroup.split("_", 1)[1]
        if kind == "rank" and rank is None:
            rank = int(next(g for g in logparse._RANK_PREFIX.match(text).groups() if g is not None))
        elif kind in ("ts0", "ts1") and ts is None:
            ts = logparse._ts_key(logparse._TS_PREFIXES[kind == "ts1"].match(text).groups(), has_year=kind == "ts0")
        text = text[m.end():]
    return text, rank, ts


PREFIXES = ["", "[rank3]: ", "[rank3]:", "[rank 3]: ", "[rank  12]:\t", "[Rank 3]: ", "[RANK3]: ", "[default1]: ",
            "[1,2]<stderr>: ", "[1,mpirank:3,algo-2]<stderr>: ", "rank2: ", "3: ", "worker-1: ", "gpu-node-3 [rank1]: ",
            "2024-05-01 12:00:00,123 ", "[2024-05-01 12:00:00.123] ", "[E1203 12:00:00.123456789 ProcessGroupNCCL.cpp:1234] ",
            "W1203 12:00:00.123000 123 api.py:12] ", "stderr F ", "trainer-1  | ", "[E ProcessGroupNCCL.cpp:828] ",
            "[stderr] ", "(RayTrainWorker pid=123, ip=10.0.0.1) ", "[pod/trainer-0/pytorch] ", "ERROR:root:",
            "- name - ERROR - ", "[rankings] ", "[r", "[rank", "[rank3]", "[rank3]x ", "[rank-1]: ", "[rank3]:[rank4]: ",
            "[rank3]:[E1203 12:00:00.1 x.cpp:1] ", "python : ", "[rank3]: 2026-12-04 08:34:14,133 - trainer - INFO - "]
BODIES = ["", "step 0 | loss 2.3", "Traceback (most recent call last):", "RuntimeError: boom", "  File \"x.py\", line 3",
          "[rank]: not a rank", "r", "[", "2026-12-04 08:34:14,133 - x - INFO - ok", "\x00[rank1]: nul"]


def test_short_rank_prefix_reading_is_the_full_alternation():
    rng = random.Random(7)
    cases = [a + b + c for a in PREFIXES for b in PREFIXES for c in BODIES]
    cases += ["".join(rng.choice(PREFIXES) for _ in range(rng.randint(1, 9))) + rng.choice(BODIES) for _ in range(3000)]
    for raw in cases:
        assert logparse._strip(raw) == _strip_reference(raw), raw


# -- a whole job, fast path against full path ----------------------------------------------------------
def _full_path(monkeypatch):
    """The full path: every file decoded whole, every line's prefixes read by the full alternation, the
    merged text parsed a second time for the analysis."""
    monkeypatch.setattr(FileText, "__init__", lambda self, data: (setattr(self, "data", data),
                                                                  setattr(self, "_text", None),
                                                                  setattr(self, "plain", False))[0])
    monkeypatch.setattr(logparse, "_strip", _strip_reference)
    monkeypatch.setattr(ls, "reuse_parse", lambda text: contextlib.nullcontext())


def _answer(res: dict) -> str:
    res = dict(res)
    res.pop("took_ms", None)
    return json.dumps(res, sort_keys=True, default=str)


def _far_traceback(root: Path) -> None:
    """Rank 2 fails with an exception no signature knows, its exception line sixty frames below its
    Traceback header and far from any literal; the other ranks time out later."""
    for r in range(4):
        d = root / "attempt_0" / str(r)
        d.mkdir(parents=True)
        body = [f"2026-12-04 08:{k // 60 % 60:02d}:{k % 60:02d},000 - trainer - INFO - step {k}" for k in range(3000)]
        if r == 2:
            body += ["Traceback (most recent call last):"]
            for k in range(60):
                body += [f'  File "/workspace/pkg/mod{k}.py", line {k + 10}, in f{k}', f"    g{k}(x)"]
            body += ["pkg.errors.ShardLayoutError: shard 17 of 64 has 3 tensors, expected 4"]
        else:
            body += ["2026-12-04 09:00:00,000 - trainer - INFO - waiting",
                     "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
                     "Timed out waiting 1800000ms for recv operation to complete"]
        (d / "stderr.log").write_text("\n".join(body) + "\n")


def test_a_job_directory_gets_the_same_answer_both_ways(index, tmp_path, monkeypatch):
    want = write_job(tmp_path / "job", seed=11, lines=40_000, ranks=8)
    _far_traceback(tmp_path / "far")
    fast = [match_files(index, read_paths([str(tmp_path / d / "attempt_0")], BIG)) for d in ("job", "far")]
    with monkeypatch.context() as m:
        _full_path(m)
        full = [match_files(index, read_paths([str(tmp_path / d / "attempt_0")], BIG)) for d in ("job", "far")]
    for a, b in zip(fast, full):
        assert _answer(a) == _answer(b)
    rc = fast[0]["root_cause"]
    assert (rc["entry"], rc["rank"]) == (EXPECTED_ENTRY, want["rank"])
    first = next(f for f in fast[0]["findings"] if f["kind"] == "first_failing_rank")
    assert first["rank"] == want["rank"]
    assert [f["lines"] for f in fast[0]["files"]] == [want["lines"] // 8] * 8
    far = fast[1]["root_cause"]
    assert (far["rank"], far["exception"], far["file_line"]) == (2, "pkg.errors.ShardLayoutError", 3122)
    assert far["file"].endswith("attempt_0/2/stderr.log") and far["origin"]["function"] == "f59"


def test_reuse_parse_gives_the_parse_of_that_text_only():
    text = "[rank1]: Traceback (most recent call last):\n[rank1]: RuntimeError: x\n"
    other = text[:1] + text[1:]  # an equal string, another object
    assert other == text and other is not text
    with logparse.reuse_parse(text):
        a = logparse.parse_log(text)
        assert logparse.parse_log(text) is a
        assert logparse.parse_log(other) is not a
    assert logparse.parse_log(text) is not a
    assert [ln.text for ln in a.lines] == [ln.text for ln in logparse.parse_log(text).lines]


def test_the_traceback_scan_skips_only_lines_no_handler_looks_at():
    from faultline.matching import tracebacks as tb

    def marked(t: str) -> bool:
        return ("xception" in t or "Traceback (most" in t or 'File "' in t or "what()" in t
                or t.startswith(tb._HANDLED_STARTS))
    for t in (tb._CHAIN_CAUSE, tb._CHAIN_DURING, tb._TRACEBACK, tb._ORIGINAL_TRACEBACK, "Exception raised from f at x.cpp:1",
              "frame #0: c10::Error", "-- Process 1 terminated with the following error:", "  what():  boom",
              "ValueError                                Traceback (most recent call last)",
              "╭──── Traceback (most recent call last) ────╮", '  File "x.py", line 1, in f'):
        assert marked(t), t


def _buried_oom(root: Path, ranks: int = 64) -> int:
    """Rank 37 runs out of GPU memory; its process then prints 3,000 more lines (a logger flushing its
    buffered step records, then wandb's summary) before it exits, so the error is nowhere near the end of
    its file.  The other ranks time out in their collective ten minutes later, at the end of theirs."""
    failing = 37
    for r in range(ranks):
        d = root / "attempt_0" / str(r)
        d.mkdir(parents=True)
        body = [f"[2026-12-04 08:{k // 60 % 60:02d}:{k % 60:02d}] step {k} | loss {2.5 - k * 1e-4:.4f} | 512 tok/s"
                for k in range(4000)]
        if r == failing:
            body += [
                "Traceback (most recent call last):",
                '  File "/workspace/train.py", line 88, in <module>',
                "    loss = model(batch).loss",
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity "
                "of 79.14 GiB of which 1.19 GiB is free. Including non-PyTorch memory, this process has 77.94 GiB "
                "memory in use. Of the allocated memory 70.11 GiB is allocated by PyTorch, and 6.32 GiB is reserved "
                "by PyTorch but unallocated.",
            ]
            body += [f"[2026-12-04 09:00:{k % 60:02d}] flushed record {k} to /workspace/runs/metrics.jsonl"
                     for k in range(3000)]
            body += [f"wandb:   train/loss {k / 1000:.4f}" for k in range(40)]
        else:
            body += ["RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
                     "Timed out waiting 1800000ms for recv operation to complete"]
        (d / "stderr.log").write_text("\n".join(body) + "\n")
    return failing


def test_an_error_in_the_middle_of_a_long_file_is_found_both_ways(index, tmp_path, monkeypatch):
    failing = _buried_oom(tmp_path)
    fast = match_files(index, read_paths([str(tmp_path / "attempt_0")], BIG))
    with monkeypatch.context() as m:
        _full_path(m)
        full = match_files(index, read_paths([str(tmp_path / "attempt_0")], BIG))
    assert _answer(fast) == _answer(full)
    rc = fast["root_cause"]
    assert (rc["entry"], rc["rank"], rc["file_line"]) == ("pytorch/cuda-out-of-memory", failing, 4004)
    f = next(f for f in fast["files"] if f["rank"] == failing)
    lo, hi = f["left_out"]["from_line"], f["left_out"]["to_line"]
    assert lo < 4004 < hi  # the head and the tail alone do not hold it
    assert any(a <= 4001 and 4004 <= b for a, b in f["left_out"]["read"])
    # the ranks whose middles hold nothing that looks like a failure read no more than before
    assert all("read" not in g["left_out"] for g in fast["files"] if g["rank"] != failing)


@pytest.mark.parametrize("seed", range(12))
def test_the_middle_is_read_alike_from_bytes_and_from_the_decoded_text(seed):
    """Lines around failure words in the middle of a long file: the bytes path (plain UTF-8) and the
    decoded path (any other file) keep the same lines, within the budget, the marks nearest the end first."""
    rng = random.Random(seed)
    words = [b"step 12 | loss 2.31", b"RuntimeError: boom", b"Traceback (most recent call last):", b"ok",
             "\u4e2d\u6587 error".encode(), b"x" * rng.randint(1, 3000), b"NCCL WARN x", b"", b"killed"]
    weights = [40, 1, 1, 20, 1, 2, 1, 5, 1] if seed % 2 else [1] * 9  # sparse marks, or marks everywhere
    data = b"\n".join(rng.choices(words, weights, k=rng.randint(2000, 9000))) + b"\n"
    budget = rng.choice([1, 7, 44, 400])
    fast = FileText(data).bounded(281, budget)
    slow_text = FileText(data)
    slow_text.plain = False
    assert fast == slow_text.bounded(281, budget)
    lines, nos, (lo, hi), total = fast
    middle = [n for n in nos if lo <= n <= hi]
    assert len(middle) <= budget and middle == sorted(set(middle))
    assert [ln for ln, n in zip(lines, nos)] == [data.decode().splitlines()[n - 1] for n in nos]
    if seed % 2 == 0 and middle:  # marks on most lines: the window ends right before the tail
        assert middle[-1] > hi - 45


def test_a_file_marked_on_every_line_keeps_the_last_windows_of_its_middle():
    data = b"".join(b"error %d\n" % k for k in range(200_000))
    lines, nos, (lo, hi), total = FileText(data).bounded(281, 400)
    middle = [n for n in nos if lo <= n <= hi]
    assert len(middle) == 400 and middle[-1] == hi
    assert lines[nos.index(middle[0])] == f"error {middle[0] - 1}"
