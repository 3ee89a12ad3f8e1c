"""Log structure: prefixes, timestamps, tracebacks and chains, C++ dumps, torchrun summaries, masking."""
from __future__ import annotations

from faultline.matching.logparse import parse_log
from faultline.matching.mask import mask

MULTI_RANK = """\
[rank1]:[W1203 12:00:01.000000000 ProcessGroupNCCL.cpp:1000] step 10
[rank0]:Traceback (most recent call last):
[rank1]:Traceback (most recent call last):
[rank0]:  File "/workspace/train.py", line 40, in <module>
[rank1]:  File "/workspace/train.py", line 41, in <module>
[rank0]:    loss = model(batch)
[rank1]:    dist.all_reduce(t)
[rank0]:  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl
[rank0]:    return self._call_impl(*args, **kwargs)
[rank0]:ValueError: bad batch shape
[rank1]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:51234
"""

CHAINED = """\
Traceback (most recent call last):
  File "a.py", line 3, in <module>
    open("x")
FileNotFoundError: [Errno 2] No such file or directory: 'x'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "a.py", line 5, in <module>
    raise RuntimeError("load failed") from e
RuntimeError: load failed
"""

TORCHRUN = """\
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-02_11:40:02
  host      : node-01
  rank      : 1 (local_rank: 1)
  exitcode  : -9 (pid: 4242)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 4242
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-02_11:40:01
  host      : node-01
  rank      : 3 (local_rank: 3)
  exitcode  : 1 (pid: 4244)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""


def test_rank_prefixes_streams_and_exceptions():
    p = parse_log(MULTI_RANK)
    assert p.ranks == [0, 1]
    excs = {e.rank: e for e in p.exceptions}
    assert excs[0].type == "ValueError" and excs[0].message == "bad batch shape"
    assert excs[1].type == "RuntimeError" and "Connection closed by peer" in excs[1].message
    assert [f.function for f in excs[0].frames] == ["<module>", "_wrapped_call_impl"]
    assert excs[0].frames[1].library and not excs[0].frames[0].library
    assert p.lines[0].ts is not None and p.lines[0].text == "step 10"


def test_chained_exceptions_keep_the_original():
    p = parse_log(CHAINED)
    assert [e.type for e in p.exceptions] == ["FileNotFoundError", "RuntimeError"]
    assert p.exceptions[1].chained_from is p.exceptions[0]
    assert p.exceptions[0].cause_of is p.exceptions[1]


def test_torchrun_summary():
    p = parse_log(TORCHRUN)
    first = [f for f in p.failed_ranks if f.first]
    assert len(first) == 1 and first[0].rank == 3 and first[0].exitcode == 1
    other = [f for f in p.failed_ranks if not f.first][0]
    assert other.rank == 1 and other.exitcode == -9 and other.signal == "SIGKILL"


def test_cpp_dump_and_what_lines():
    text = (
        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
        "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog thread terminated with exception\n"
        "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 (most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f1 in /usr/lib/libc10.so)\n"
    )
    p = parse_log(text)
    kinds = [ln.kind for ln in p.lines]
    assert kinds[1:] == ["what", "cpp", "cppframe"]
    assert p.exceptions[0].message.startswith("[PG ID 0")


def test_versions_from_the_log():
    p = parse_log("NCCL error in: x.cpp:1, unhandled system error, NCCL version 2.21.5\n"
                  '  File "/usr/lib/python3.10/site-packages/torch/x.py", line 1, in f\n')
    assert p.versions["nccl"] == "2.21.5" and p.versions["python"] == "3.10"


def test_masking_makes_runs_comparable():
    a = mask("[Rank 3] WorkNCCL(SeqNum=17, Timeout(ms)=600000) ran for 600581 milliseconds on 10.1.2.3:29500 at 0x7f00ab")
    b = mask("[Rank 5] WorkNCCL(SeqNum=2044, Timeout(ms)=1800000) ran for 1800014 milliseconds on 192.168.0.9:1234 at 0x55aa10")
    assert a == b
    assert mask("/home/alice/proj/train.py") == mask("/data/bob/x/y/run.py")


def test_huge_and_odd_input_is_bounded():
    p = parse_log("x" * 100000 + "\n" + "\r\n".join(["line"] * 30000))
    # 30,001 lines: the head and the tail are kept, the middle is dropped and reported
    assert p.truncated and len({ln.no for ln in p.lines}) == 20000
    assert p.dropped["lines"] == 10001 and p.dropped["from_line"] == 2001 and p.dropped["to_line"] == 12001
    assert p.lines[-1].no == 30001
    # the 100,000-character first line is scanned in pieces, none longer than 4,000 characters
    first = [ln for ln in p.lines if ln.no == 1]
    assert len(first) == 25 and all(len(ln.raw) <= 4000 for ln in first) and p.dropped["long_lines_split"] == 1


def test_dataloader_worker_wrapper_points_to_the_original_exception():
    text = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 9, in <module>\n'
        "    for batch in loader:\n"
        "RuntimeError: Caught RuntimeError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.11/site-packages/torch/utils/data/_utils/worker.py", line 349, in _worker_loop\n'
        "    data = fetcher.fetch(index)\n"
        "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't allocate memory\n"
    )
    p = parse_log(text)
    wrapper, original = p.exceptions
    assert "Caught RuntimeError" in wrapper.message and "DefaultCPUAllocator" in original.message
    assert wrapper.chained_from is original and original.chained_from is None


def test_c10_timestamps_with_unpadded_month():
    """c10 logging prints the month without padding: [F919 ...] is 19 September."""
    p = parse_log("[rank2]:[F919 05:41:19.006734112 ProcessGroupNCCL.cpp:616] a\n"
                  "[rank1]:[E1203 01:00:00.000000000 ProcessGroupNCCL.cpp:616] b\n")
    assert [ln.text for ln in p.lines] == ["a", "b"]
    assert p.lines[0].ts < p.lines[1].ts
