"""Speed at the scale of a whole job: a failed 64-rank run's log directory through the log-set path.

    python -m bench.bigjob [--old CHECKOUT] [--rounds 3] [--lines 500000] [--ranks 64] [--entries 2500]

Each round writes a synthetic torchrun ``--log-dir`` (``attempt_0/<rank>/stderr.log``, about 500,000
lines in all: tqdm progress bars, timestamped INFO lines, library warnings, NCCL start-up lines) with
one real failure in one rank (a CUDA out-of-memory traceback, a few dozen lines before the end of
its file) and, ten minutes later, NCCL watchdog timeouts in the other ranks (gloo recv timeouts in
some of them).  The seed changes every round (``--seed`` fixes the first one), so the failing rank,
the numbers and the line lengths change and no cache can stand in for the work.

A fresh process of each checkout then reads that directory with ``faultline.logsets`` (read_paths +
match_files, the path of ``faultline logs`` and ``POST /match/files``) and times it; it checks the
answer (the root cause is ``pytorch/cuda-out-of-memory`` on the failing rank, and the
``first_failing_rank`` finding names that rank), times 150-line pastes (bench.corpus.noisy_log, the
paste of bench/compare.py) and reports its peak RSS.  The pastes are timed twice over, on two sets of
pastes of the same messages with their own noise: "first sight" is the process meeting each message for
the first time (one-off costs per entry: RE2 programs compiled on first use, each fix's posterior); the
p50/p99 of the table is the second set, a process that has met these errors before reading pastes it has
never seen.  With ``--old``, the older checkout runs the
same round right before this one, alternating, so a busy machine weighs on both: the table gives
the median of each and the median of the per-round ratios.  Lines per second are given per CPU
second of the process (the work runs on one core; on a shared machine the wall clock mostly
measures the other jobs) and per wall second.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXPECTED_ENTRY = "pytorch/cuda-out-of-memory"
_MONTH, _DAY = 12, 4  # the date the synthetic run ran on


# -- the synthetic job --------------------------------------------------------------------------
def _clock(t: float) -> tuple[int, int, int, int]:
    s = int(t)
    return s // 3600 % 24, s // 60 % 60, s % 60, int((t - s) * 1_000_000)


def _iso(t: float) -> str:
    hh, mm, ss, us = _clock(t)
    return f"2026-{_MONTH:02d}-{_DAY:02d} {hh:02d}:{mm:02d}:{ss:02d},{us // 1000:03d}"


def _glog(level: str, t: float, where: str) -> str:
    hh, mm, ss, us = _clock(t)
    return f"[{level}{_MONTH:02d}{_DAY:02d} {hh:02d}:{mm:02d}:{ss:02d}.{us:06d}000 {where}]"


_WARNINGS = [
    ("/opt/conda/lib/python3.11/site-packages/transformers/trainer.py", "FutureWarning",
     "`tokenizer` is deprecated and will be removed in version 5.0.0 for `Trainer.__init__`. Use `processing_class` instead."),
    ("/opt/conda/lib/python3.11/site-packages/torch/optim/lr_scheduler.py", "UserWarning",
     "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible."),
    ("/workspace/data/packing.py", "RuntimeWarning",
     "sequence of %d tokens truncated to the context length of 4096"),
]


def _noise(rng: random.Random, rank: int, step: int, t: float, epoch: int, total: int) -> list[str]:
    """One step's worth of ordinary output of one rank."""
    r = rng.random()
    if r < 0.55:  # a tqdm bar (each refresh on a line of its own once written to a file)
        done = step % total
        pct = done * 100 // total
        bar = "\u2588" * (pct // 10) + " " * (10 - pct // 10)
        rate = 5.0 + rng.random() * 2
        left = int((total - done) / rate)
        return [f"Epoch {epoch}: {pct:3d}%|{bar}| {done}/{total} [{int(done / rate) // 60:02d}:{int(done / rate) % 60:02d}"
                f"<{left // 60:02d}:{left % 60:02d}, {rate:.2f}it/s, loss={2.9 - step * 1e-4 + rng.random() * 0.05:.4f}, "
                f"lr={3e-4 * (1 - step / 1e6):.3e}]"]
    if r < 0.88:
        return [f"{_iso(t)} - trainer - INFO - step {step} | loss {2.9 - step * 1e-4 + rng.random() * 0.05:.4f} | "
                f"grad_norm {0.5 + rng.random():.3f} | tokens/s {rng.randint(180000, 200000)} | "
                f"mem {rng.randint(60, 78)}.{rng.randint(0, 9)} GiB"]
    if r < 0.95:
        return [f"{_iso(t)} - data - INFO - rank {rank} shard {rng.randint(0, 4095):04d} opened "
                f"(/workspace/data/shard-{rng.randint(0, 99999):05d}.bin, {rng.randint(1, 900)} MiB)"]
    if r < 0.985:
        path, cat, msg = _WARNINGS[rng.randrange(len(_WARNINGS))]
        msg = msg % rng.randint(4097, 20000) if "%d" in msg else msg
        return [f"{path}:{rng.randint(100, 4000)}: {cat}: {msg}", "  warnings.warn("]
    return [f"{_iso(t)} - checkpoint - INFO - saved /workspace/ckpt/step-{step}/model.safetensors "
            f"in {rng.random() * 20:.2f}s"]


def _startup(rng: random.Random, rank: int, host: str, t: float) -> list[str]:
    pid = rng.randint(1000, 99999)
    dev = rank % 8
    return [
        f"{_iso(t)} - trainer - INFO - world size 64, rank {rank}, local rank {dev}, host {host}",
        f"{host}:{pid}:{pid} [{dev}] NCCL INFO Bootstrap : Using eth0:10.0.{rank // 8}.{10 + rank % 8}<0>",
        f"{host}:{pid}:{pid} [{dev}] NCCL INFO cudaDriverVersion 12040",
        f"{host}:{pid}:{pid} [{dev}] NCCL INFO NCCL version 2.21.5+cuda12.4",
        f"{host}:{pid}:{pid + 7} [{dev}] NCCL INFO Channel 00/24 :    0   1   2   3   4   5   6   7",
        f"{host}:{pid}:{pid + 7} [{dev}] NCCL INFO Connected all rings",
        f"{host}:{pid}:{pid + 7} [{dev}] NCCL INFO comm 0x{rng.randint(1 << 40, 1 << 44):x} rank {rank} nranks 64 "
        f"cudaDev {dev} nvmlDev {dev} busId {dev + 1:x}000 commId 0x{rng.randint(1 << 60, 1 << 63):x} - Init COMPLETE",
    ]


def _oom(rng: random.Random, rank: int, t: float) -> list[str]:
    total = 79.14
    free = rng.randint(100, 2000) / 1000
    alloc = rng.randint(5000, 7400) / 100
    return [
        f"{_iso(t)} - trainer - INFO - step {rng.randint(20000, 90000)} | micro-batch 3/8 | seq len 4096",
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 412, in <module>',
        "    main()",
        '  File "/workspace/train.py", line 388, in main',
        "    loss = trainer.train_step(batch)",
        '  File "/workspace/trainer/loop.py", line 141, in train_step',
        "    out = self.model(**batch)",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl',
        "    return self._call_impl(*args, **kwargs)",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/linear.py", line 125, in forward',
        "    return F.linear(input, self.weight, self.bias)",
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {rng.choice(['1.00', '2.00', '3.91'])} GiB. "
        f"GPU {rank % 8} has a total capacity of {total} GiB of which {free:.2f} GiB is free. Including non-PyTorch memory, "
        f"this process has {total - free:.2f} GiB memory in use. Of the allocated memory {alloc:.2f} GiB is allocated by "
        f"PyTorch, and {total - free - alloc - 0.5:.2f} GiB is reserved by PyTorch but unallocated. If reserved but "
        "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
        "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    ]


def _nccl_timeout(rng: random.Random, rank: int, t: float, seq: int) -> list[str]:
    ran = 600000 + rng.randint(1, 99)
    pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank
    work = (f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=25690112, NumelOut=25690112, Timeout(ms)=600000) "
            f"ran for {ran} milliseconds before timing out.")
    return [
        f"{_glog('E', t, 'ProcessGroupNCCL.cpp:632')} [Rank {rank}] Watchdog caught collective operation timeout: {work}",
        f"{_glog('E', t + 0.0003, 'ProcessGroupNCCL.cpp:2271')} {pg}  failure detected by watchdog at work sequence id: "
        f"{seq} PG status: last enqueued work: {seq}, last completed work: {seq - 1}",
        f"{_glog('E', t + 0.0004, 'ProcessGroupNCCL.cpp:670')} Stack trace of the failed collective not found, potentially "
        "because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.",
        f"{_glog('E', t + 0.0009, 'ProcessGroupNCCL.cpp:684')} {pg} To avoid data inconsistency, we are taking the entire "
        "process down.",
        f"{_glog('E', t + 0.0011, 'ProcessGroupNCCL.cpp:1595')} {pg} Process group watchdog thread terminated with "
        f"exception: [Rank {rank}] Watchdog caught collective operation timeout: {work}",
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  {pg} Process group watchdog thread terminated with exception: [Rank {rank}] Watchdog caught "
        f"collective operation timeout: {work}",
        "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:635 (most recent call first):",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f3a1c96c1b8 in "
        "/opt/conda/lib/python3.11/site-packages/torch/lib/libc10.so)",
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, "
        "std::ratio<1l, 1000l> > >) + 0x23d (0x7f3a1dc8a7ed in /opt/conda/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)",
        "frame #2: <unknown function> + 0x145c0 (0x7f3a6e2f45c0 in /opt/conda/lib/python3.11/site-packages/torch/lib/libtorch.so)",
    ]


def _gloo_timeout(rng: random.Random, rank: int, t: float) -> list[str]:
    return [
        f"{_iso(t)} - trainer - INFO - rank {rank} waiting for the evaluation results of the other ranks",
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 412, in <module>',
        "    main()",
        '  File "/workspace/trainer/eval.py", line 77, in gather_metrics',
        "    dist.all_gather_object(out, metrics, group=self.cpu_group)",
        '  File "/opt/conda/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3037, in all_gather_object',
        "    all_gather(object_size_list, local_size, group=group)",
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting "
        f"{rng.choice([1800000, 600000])}ms for recv operation to complete",
    ]


def write_job(root: Path, seed: int, lines: int = 500_000, ranks: int = 64) -> dict:
    """Write the job's log directory under ``root``; returns what the right answer is."""
    rng = random.Random(seed)
    failing = rng.randrange(ranks)
    per_rank = [lines // ranks + (1 if r < lines % ranks else 0) for r in range(ranks)]
    start = 8 * 3600 + rng.random() * 3600
    t_fail = start + per_rank[0] * 0.9  # a step every ~0.9 s, the same pace on every rank
    seq = rng.randint(20000, 90000)
    written = 0
    for r in range(ranks):
        host = f"gpu-node-{r // 8:02d}"
        rr = random.Random(seed * 1000 + r)
        out = _startup(rr, r, host, start + rr.random())
        if r == failing:
            tail = _oom(rr, r, t_fail)
            tail += [f"wandb: Waiting for W&B process to finish... (failed {rr.randint(1, 9)})."] + [
                f"wandb:   train/loss {rr.random():.4f}  step {k}" for k in range(rr.randint(10, 60))]
        else:
            t_to = t_fail + 600 + rr.random() * 2
            tail = _gloo_timeout(rr, r, t_to) if r % 8 == 5 else _nccl_timeout(rr, r, t_to, seq)
        room = per_rank[r] - len(tail)
        step, n0 = 0, len(out)
        epoch_len = rr.choice([2000, 2500, 4000])
        while len(out) < room:
            t = start + 5.0 + (t_fail - start - 10.0) * (len(out) - n0) / max(room - n0, 1)
            out += _noise(rr, r, step, t, 1 + step // epoch_len, epoch_len)
            step += 1
        out = out[: per_rank[r] - len(tail)] + tail
        d = root / "attempt_0" / str(r)
        d.mkdir(parents=True, exist_ok=True)
        (d / "stderr.log").write_text("\n".join(out) + "\n", encoding="utf-8")
        written += len(out)
    return {"entry": EXPECTED_ENTRY, "rank": failing, "lines": written, "ranks": ranks, "seed": seed}


# -- one measurement, in a fresh process of one checkout -------------------------------------------
_CHILD = r"""
import json, os, random, resource, statistics, sys, tempfile, time
root, job, here, entries, reps, pastes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
link = tempfile.mkdtemp()
os.symlink(os.path.join(root, "app"), os.path.join(link, "faultline"))  # this checkout's code, whatever is installed
sys.path.insert(0, link)
import faultline
assert faultline.__file__.startswith(link), faultline.__file__
from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.render.match import match_text
from faultline.logsets import match_files
from faultline.logsets.inputs import Limits, read_paths
sys.path.append(here)
from bench.corpus import grow, noisy_log
want = json.load(open(os.path.join(job, "expected.json")))
kb = load_kb(os.path.join(root, "kb"), lenient=True).entries
index = MatchIndex.build(grow(kb, entries) if entries > len(kb) else kb)
rss_index = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
limits = Limits(max_files=4096, max_file_bytes=1 << 30, max_total_bytes=1 << 31, max_ratio=1000)
walls, cpus, res = [], [], None
for _ in range(reps):
    t0, c0 = time.perf_counter(), time.process_time()
    res = match_files(index, read_paths([os.path.join(job, "attempt_0")], limits))
    walls.append(time.perf_counter() - t0)
    cpus.append(time.process_time() - c0)
rc = res.get("root_cause") or {}
first = next((f for f in res.get("findings", []) if f["kind"] == "first_failing_rank"), {})
top = (res.get("matches") or [{}])[0].get("id")
ok = rc.get("entry") == want["entry"] and rc.get("rank") == want["rank"] and first.get("rank") == want["rank"]
rss_dir = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rng = random.Random(want["seed"])
lines = [s.examples[0] for e in kb for s in e.signatures if s.examples][:pastes]
# two sets of pastes of the same messages, each with its own noise, numbers and rank: the first is timed as
# the process meets each message for the first time (RE2 programs compiled on first use, the posteriors and
# rendered ids of each entry's fixes made once per process); the second, timed after it, is what a process
# that has seen these errors before spends on a paste it has never seen
first_logs = [noisy_log(line, rng) for line in lines]
logs = [noisy_log(line, rng) for line in lines]
for t in first_logs[:20]:
    match_text(index, t, limit=10)
def timed(texts):
    walls, cpus = [], []
    for t in texts:
        t0, c0 = time.perf_counter(), time.thread_time()
        match_text(index, t, limit=10)
        walls.append((time.perf_counter() - t0) * 1000)
        cpus.append((time.thread_time() - c0) * 1000)
    return sorted(walls), sorted(cpus)
first_times, first_ctimes = timed(first_logs[20:])
times, ctimes = timed(logs)
print(json.dumps({"wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus), "lines": want["lines"],
                  "ok": ok, "root_cause": [rc.get("entry"), rc.get("rank")], "first_failing_rank": first.get("rank"),
                  "top_match": top, "want": [want["entry"], want["rank"]],
                  "paste_p50_ms": statistics.median(times), "paste_p99_ms": times[int(len(times) * 0.99) - 1],
                  "paste_cpu_p50_ms": statistics.median(ctimes), "paste_cpu_p99_ms": ctimes[int(len(ctimes) * 0.99) - 1],
                  "first_paste_cpu_p50_ms": statistics.median(first_ctimes),
                  "first_paste_cpu_p99_ms": first_ctimes[int(len(first_ctimes) * 0.99) - 1],
                  "entries": len(index.entry_ids), "rss_index_mb": rss_index / 1024, "rss_peak_mb": rss_dir / 1024,
                  "answer": {k: res.get(k) for k in ("root_cause", "timeline")} | {"matches": [(m["id"], m["matched"]) for m in res.get("matches", [])], "findings": res.get("findings"), "log": res.get("log")}}))
"""


def measure(checkout: Path, job: Path, entries: int, reps: int, pastes: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(checkout), str(job), str(REPO), str(entries), str(reps),
                          str(pastes)], capture_output=True, text=True, timeout=1800)
    if out.returncode:
        raise SystemExit(f"{checkout}: {out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _row(name: str, d: dict) -> str:
    return (f"{name:4s} {d['lines'] / d['cpu_s']:>12,.0f} lines per CPU second ({d['lines'] / d['wall_s']:,.0f} per wall "
            f"second; cpu {d['cpu_s']:.2f} s, wall {d['wall_s']:.2f} s)  answer {'ok' if d['ok'] else 'WRONG ' + str(d['root_cause'])}"
            f"  paste p50 {d['paste_cpu_p50_ms']:.3f} ms cpu ({d['paste_p50_ms']:.3f} wall), p99 {d['paste_cpu_p99_ms']:.3f} ms "
            f"cpu ({d['paste_p99_ms']:.3f} wall); first sight p50 {d['first_paste_cpu_p50_ms']:.3f}, p99 "
            f"{d['first_paste_cpu_p99_ms']:.3f} ms cpu  rss {d['rss_index_mb']:.0f} -> {d['rss_peak_mb']:.0f} MB")


def summarize(rounds: list[dict]) -> dict:
    """Medians over the rounds of each side, and the medians of the per-round ratios new / old."""
    out: dict = {}
    med = statistics.median
    for side in ("old", "new"):
        if rounds and side in rounds[0]:
            rs = [r[side] for r in rounds]
            out[side] = {"lines_per_cpu_s": round(med(d["lines"] / d["cpu_s"] for d in rs)),
                         "lines_per_wall_s": round(med(d["lines"] / d["wall_s"] for d in rs)),
                         "paste_cpu_p50_ms": round(med(d["paste_cpu_p50_ms"] for d in rs), 3),
                         "paste_cpu_p99_ms": round(med(d["paste_cpu_p99_ms"] for d in rs), 3),
                         "paste_p50_ms": round(med(d["paste_p50_ms"] for d in rs), 3),
                         "paste_p99_ms": round(med(d["paste_p99_ms"] for d in rs), 3),
                         "first_paste_cpu_p50_ms": round(med(d["first_paste_cpu_p50_ms"] for d in rs), 3),
                         "first_paste_cpu_p99_ms": round(med(d["first_paste_cpu_p99_ms"] for d in rs), 3),
                         "rss_index_mb": round(max(d["rss_index_mb"] for d in rs)),
                         "rss_peak_mb": round(max(d["rss_peak_mb"] for d in rs)),
                         "all_ok": all(d["ok"] for d in rs)}
    if rounds and "old" in rounds[0]:
        for key, f in (("lines_per_cpu_s", lambda d: d["lines"] / d["cpu_s"]),
                       ("lines_per_wall_s", lambda d: d["lines"] / d["wall_s"]),
                       ("paste_cpu_p50_ms", lambda d: d["paste_cpu_p50_ms"]),
                       ("paste_p50_ms", lambda d: d["paste_p50_ms"]),
                       ("first_paste_cpu_p50_ms", lambda d: d["first_paste_cpu_p50_ms"])):
            out[f"ratio_{key}"] = round(med(f(r["new"]) / f(r["old"]) for r in rounds), 2)
        out["same_answer"] = all(r["same_answer"] for r in rounds)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.bigjob")
    ap.add_argument("--old", type=Path, help="a checkout of the older code, measured side by side")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lines", type=int, default=500_000)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--entries", type=int, default=2500, help="grow the knowledge base to this many entries")
    ap.add_argument("--reps", type=int, default=3, help="directory matches per process (the median is kept)")
    ap.add_argument("--pastes", type=int, default=300)
    ap.add_argument("--seed", type=int, help="the first round's seed (default: from the clock)")
    ap.add_argument("--json", type=Path, help="write the rounds here")
    args = ap.parse_args(argv)
    seed0 = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    rounds = []
    for k in range(args.rounds):
        seed = seed0 + k
        with tempfile.TemporaryDirectory() as tmp:
            job = Path(tmp)
            want = write_job(job, seed, args.lines, args.ranks)
            (job / "expected.json").write_text(json.dumps(want))
            size = sum(f.stat().st_size for f in job.rglob("*.log"))
            print(f"round {k + 1}: seed {seed}, {want['lines']:,} lines in {args.ranks} files ({size / 1e6:.1f} MB), "
                  f"failure on rank {want['rank']}", flush=True)
            r = {"seed": seed, "bytes": size}
            if args.old:
                r["old"] = measure(args.old.resolve(), job, args.entries, args.reps, args.pastes)
                print("  " + _row("old", r["old"]), flush=True)
            r["new"] = measure(REPO, job, args.entries, args.reps, args.pastes)
            print("  " + _row("new", r["new"]), flush=True)
            if args.old:
                r["same_answer"] = r["old"]["answer"] == r["new"]["answer"]
                print(f"  same answer as old: {r['same_answer']}", flush=True)
            rounds.append(r)
    summary: dict = {"rounds": len(rounds), "lines": args.lines, "ranks": args.ranks, "entries": args.entries,
                     **summarize(rounds)}
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rounds": rounds}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
