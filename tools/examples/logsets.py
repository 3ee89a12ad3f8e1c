"""Regenerate the multi-file example runs under tests/data/logsets/ by running real jobs.

Needs PyTorch (CPU build is enough, ``pip install torch==2.13.0``) and, for the hang, py-spy
(``pip install py-spy``): ``python tools/examples/logsets.py [NAME ...]``.  Each run is a real
gloo job on this machine; what it left on disk (a torchrun ``--log-dir``, per-rank log files,
error files, py-spy dumps) is copied to ``tests/data/logsets/<NAME>/`` after ``scrub()`` removed
anything that names the machine.  The tests read the saved files; they do not need torch.

  torchrun-4ranks-rank2-first  torchrun --nproc_per_node=4 --log-dir --redirects 3 --tee 3: rank 2
                               raises (an embedding index past the vocabulary), ranks 0, 1 and 3
                               time out in the all-reduce rank 2 never reaches
  spawn-3ranks-rank1-first     mp.spawn, each rank logging to its own file (rank<N>.log) and the
                               parent's console in main.log: rank 1 fails in a matmul
  errorfile-only-2ranks        torchrun with --log-dir and no redirects: the error files are all
                               there is (rank 1 fails loading a checkpoint of another shape)
  hang-4ranks-pyspy            torchrun, 4 ranks: rank 3 is stuck in its data loading while the
                               others wait in an all-reduce; one ``py-spy dump`` per rank
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import REPO, _free_port, scrub  # noqa: E402

OUT = REPO / "tests" / "data" / "logsets"

_TORCHRUN_RANK2 = '''
import datetime, threading, time
import torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


def metrics_flusher():  # a non-daemon thread: it keeps a failed worker's process alive for a while
    for _ in range(40):
        time.sleep(1)


@record
def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    threading.Thread(target=metrics_flusher, name="metrics-flusher").start()
    emb = nn.Embedding(1000, 16)
    shard = [[3, 17, 42, 999]] if rank != 2 else [[3, 17, 42, 1003]]  # rank 2's shard has a token id past the vocabulary
    print(f"rank {rank}: step 0 starts", flush=True)
    loss = emb(torch.tensor(shard)).pow(2).mean()
    print(f"rank {rank}: all_reduce of the loss", flush=True)
    dist.all_reduce(loss.detach())
    print(f"rank {rank}: step 0 done", flush=True)


main()
'''

_SPAWN_RANK1 = '''
import datetime, logging, os, sys
import torch, torch.distributed as dist, torch.multiprocessing as mp


def worker(rank, world, port, logdir):
    logging.basicConfig(filename=os.path.join(logdir, f"rank{rank}.log"), level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("train")
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=20))
    log.info("rank %d of %d ready", rank, world)
    w = torch.randn(64, 32)
    x = torch.randn(8, 64 if rank != 1 else 48)  # rank 1 reads a feature file of another width
    try:
        y = x @ w
        log.info("forward done, all_reduce")
        dist.all_reduce(y.sum())
    except Exception:
        log.exception("step 0 failed")
        raise


if __name__ == "__main__":
    mp.spawn(worker, args=(3, int(sys.argv[1]), sys.argv[2]), nprocs=3)
'''

_ERRORFILE_RANK1 = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    rank = dist.get_rank()
    model = nn.Linear(32, 8)
    saved = nn.Linear(32, 8 if rank != 1 else 10).state_dict()  # rank 1 found the checkpoint of an older head
    model.load_state_dict(saved)
    dist.barrier()


main()
'''

_HANG_PYSPY = '''
import datetime, os, time
import torch, torch.distributed as dist


def load_shard(rank):
    if rank == 3:
        while not os.path.exists("/nonexistent/shard-3.ready"):  # waits for a shard that never arrives
            time.sleep(0.5)
    return torch.ones(4)


def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=300))
    rank = dist.get_rank()
    print(f"rank {rank}: loading shard", flush=True)
    batch = load_shard(rank)
    print(f"rank {rank}: all_reduce", flush=True)
    dist.all_reduce(batch)


main()
'''


def _torchrun(tmp: Path, script: str, nproc: int, extra: list[str], wait: float | None = None):
    path = tmp / "train.py"
    path.write_text(script)
    argv = [sys.executable, "-m", "torch.distributed.run", "--nnodes=1", f"--nproc_per_node={nproc}",
            f"--master_port={_free_port()}", "--log-dir", str(tmp / "logs"), *extra, str(path)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(argv, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _save(src: Path, name: str, tmp: Path, console: str | None = None) -> Path:
    """Copy the run's files to tests/data/logsets/<name>/ (scrubbed), replacing the old copy."""
    dest = OUT / name
    shutil.rmtree(dest, ignore_errors=True)
    for f in sorted(p for p in src.rglob("*") if p.is_file()):
        rel = f.relative_to(src)
        text = scrub(f.read_text(encoding="utf-8", errors="replace"), tmp)
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    if console is not None:
        (OUT / f"{name}.console.log").write_text(scrub(console, tmp), encoding="utf-8")
    print(f"  wrote {dest.relative_to(REPO)} ({sum(1 for p in dest.rglob('*') if p.is_file())} files)")
    return dest


def torchrun_rank2() -> None:
    with tempfile.TemporaryDirectory(prefix="fl-logset-") as t:
        tmp = Path(t)
        p = _torchrun(tmp, _TORCHRUN_RANK2, 4, ["--redirects", "3", "--tee", "3"])
        out = p.communicate(timeout=180)[0].decode("utf-8", "replace")
        _save(tmp / "logs", "torchrun-4ranks-rank2-first", tmp, out)
    archive("torchrun-4ranks-rank2-first")


def errorfile_only() -> None:
    with tempfile.TemporaryDirectory(prefix="fl-logset-") as t:
        tmp = Path(t)
        p = _torchrun(tmp, _ERRORFILE_RANK1, 2, [])
        out = p.communicate(timeout=180)[0].decode("utf-8", "replace")
        for f in (tmp / "logs").rglob("*.log"):  # not redirected: torchrun leaves no log files (or empty ones)
            if not f.stat().st_size:
                f.unlink()
        _save(tmp / "logs", "errorfile-only-2ranks", tmp, out)


def spawn_rank1() -> None:
    with tempfile.TemporaryDirectory(prefix="fl-logset-") as t:
        tmp = Path(t)
        logs = tmp / "logs"
        logs.mkdir()
        (tmp / "train.py").write_text(_SPAWN_RANK1)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1"}
        proc = subprocess.run([sys.executable, "train.py", str(_free_port()), str(logs)], cwd=tmp, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=180)
        (logs / "main.log").write_bytes(proc.stdout)
        _save(logs, "spawn-3ranks-rank1-first", tmp)


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids = (task / "children").read_text().split()
        out += [int(k) for k in kids]
    return out


def hang_pyspy() -> None:
    pyspy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    with tempfile.TemporaryDirectory(prefix="fl-logset-") as t:
        tmp = Path(t)
        p = _torchrun(tmp, _HANG_PYSPY, 4, ["--redirects", "3"])
        try:
            time.sleep(12)  # every rank is in its wait by now
            workers = _children(p.pid)
            dumps = tmp / "logs" / "pyspy"
            dumps.mkdir(parents=True)
            for pid in workers:
                env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                rank = next(e.split(b"=", 1)[1].decode() for e in env if e.startswith(b"RANK="))
                dump = subprocess.run([pyspy, "dump", "--pid", str(pid)], capture_output=True, text=True, timeout=60)
                (dumps / f"rank{rank}.txt").write_text(dump.stdout + dump.stderr)
        finally:
            os.killpg(p.pid, signal.SIGTERM)
            p.communicate(timeout=60)
        _save(tmp / "logs", "hang-4ranks-pyspy", tmp)


def archive(name: str) -> Path:
    """tests/data/logsets/<name>.tar.gz: the saved folder as one archive (sorted, no owners, no times)."""
    import gzip
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for f in sorted(p for p in (OUT / name).rglob("*") if p.is_file()):
            info = tarfile.TarInfo(f"{name}/{f.relative_to(OUT / name).as_posix()}")
            data = f.read_bytes()
            info.size, info.mode = len(data), 0o644
            tf.addfile(info, io.BytesIO(data))
    dest = OUT / f"{name}.tar.gz"
    dest.write_bytes(gzip.compress(buf.getvalue(), mtime=0))
    print(f"  wrote {dest.relative_to(REPO)}")
    return dest


RUNS = {"torchrun-4ranks-rank2-first": torchrun_rank2, "spawn-3ranks-rank1-first": spawn_rank1,
        "errorfile-only-2ranks": errorfile_only, "hang-4ranks-pyspy": hang_pyspy}

if __name__ == "__main__":
    if sys.argv[1:2] == ["--archive-only"]:  # the archive of the saved folder, without running the job again
        archive("torchrun-4ranks-rank2-first")
        sys.exit(0)
    for name in sys.argv[1:] or RUNS:
        print(f"[{name}]")
        RUNS[name]()
