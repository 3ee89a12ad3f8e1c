"""Real logs for the torch.distributed launch / rendezvous / elastic entries.

Everything runs on CPU with the gloo backend and short store timeouts, so each
scenario takes a few seconds:

- pytorch/store-timeout-waiting-for-clients: a TCPStore / init_process_group /
  torchrun master whose peers never arrive.
- pytorch/tcpstore-address-in-use: two store servers (or two jobs) on one port.
- pytorch/tcpstore-connect-timeout: a client (or a torchrun node) that dials a
  port nobody listens on.
- pytorch/elastic-child-failed: torchrun workers that raise ordinary user errors,
  with and without ``@record``.
- pytorch/worker-sigkill-host-oom: workers that SIGKILL themselves, standing in
  for the kernel OOM killer.
- pytorch/default-process-group-not-initialized: collectives / DDP without
  init_process_group.
"""
from __future__ import annotations

from generate import run_script

# --------------------------------------------------------------------------
# pytorch/store-timeout-waiting-for-clients
# --------------------------------------------------------------------------
STORE = "pytorch/store-timeout-waiting-for-clients"

_STORE_DIRECT = '''
from datetime import timedelta
import torch.distributed as dist

print("starting rendezvous store on 127.0.0.1:29731 for 2 processes", flush=True)
store = dist.TCPStore("127.0.0.1", 29731, world_size=2, is_master=True,
                      timeout=timedelta(seconds=5))
print("all clients joined")
'''

_STORE_INIT_PG = '''
import os
from datetime import timedelta
import torch
import torch.distributed as dist

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29732")
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
print(f"[node0] rank={rank} world_size={world} master={os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
print(f"[node0] torch {torch.__version__}, backend gloo", flush=True)
dist.init_process_group("gloo", timeout=timedelta(seconds=8))
print("process group ready")
'''

_STORE_PARTIAL = '''
# Three ranks are expected, but only two are started (the third "node" never came up).
import os, subprocess, sys, textwrap
worker = textwrap.dedent("""
    import os
    from datetime import timedelta
    import torch.distributed as dist
    rank = int(os.environ["RANK"])
    print(f"rank {rank}: init_process_group(world_size=3)", flush=True)
    dist.init_process_group("gloo", timeout=timedelta(seconds=6))
    print(f"rank {rank}: ready", flush=True)
""")
with open("worker.py", "w") as f:
    f.write(worker)
procs = []
for rank in (0, 1):
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT="29733", RANK=str(rank), WORLD_SIZE="3")
    procs.append(subprocess.Popen([sys.executable, "worker.py"], env=env))
for p in procs:
    p.wait()
print("exit codes:", [p.returncode for p in procs])
'''

_HELLO_PG = '''
import os
import torch.distributed as dist

dist.init_process_group("gloo")
print(f"rank {dist.get_rank()}/{dist.get_world_size()} ready on {os.uname().nodename}", flush=True)
dist.barrier()
'''

# --------------------------------------------------------------------------
# pytorch/tcpstore-address-in-use
# --------------------------------------------------------------------------
INUSE = "pytorch/tcpstore-address-in-use"

_INUSE_DIRECT = '''
from datetime import timedelta
import torch.distributed as dist

first = dist.TCPStore("127.0.0.1", 29741, world_size=1, is_master=True, timeout=timedelta(seconds=5))
print("first store is serving on port 29741", flush=True)
second = dist.TCPStore("127.0.0.1", 29741, world_size=1, is_master=True, timeout=timedelta(seconds=5))
'''

_INUSE_NO_LIBUV = '''
from datetime import timedelta
import torch.distributed as dist

first = dist.TCPStore("0.0.0.0", 29742, world_size=1, is_master=True,
                      timeout=timedelta(seconds=5), use_libuv=False)
second = dist.TCPStore("0.0.0.0", 29742, world_size=1, is_master=True,
                       timeout=timedelta(seconds=5), use_libuv=False)
'''

_INUSE_INIT_TCP = '''
# A stale store from an earlier run still holds the port used in init_method.
from datetime import timedelta
import torch.distributed as dist

stale = dist.TCPStore("0.0.0.0", 29743, world_size=1, is_master=True, timeout=timedelta(seconds=5))
print("epoch 0 | loading dataset shards 0-7", flush=True)
dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29743", rank=0, world_size=1,
                        timeout=timedelta(seconds=5))
'''

_INUSE_TWO_JOBS = '''
# Job A (someone else's run) holds master port 29744; job B is started with the same port.
import subprocess, sys, time, textwrap
with open("long_job.py", "w") as f:
    f.write(textwrap.dedent("""
        import time, torch.distributed as dist
        dist.init_process_group("gloo")
        time.sleep(40)
    """))
with open("train_b.py", "w") as f:
    f.write(textwrap.dedent("""
        import torch.distributed as dist
        dist.init_process_group("gloo")
        print("job B rank", dist.get_rank(), "ready", flush=True)
    """))
log_a = open("job_a.log", "w")
job_a = subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=1",
                          "--master_port=29744", "long_job.py"], stdout=log_a, stderr=subprocess.STDOUT)
time.sleep(6)
try:
    subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nnodes=1", "--nproc_per_node=2",
                    "--master_port=29744", "train_b.py"], timeout=60)
finally:
    job_a.terminate()
    job_a.wait()
'''

_INUSE_BUSY_PORT_TORCHRUN = '''
# Another service listens on the rendezvous port before torchrun starts.
import socket, subprocess, sys
busy = socket.socket()
busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
busy.bind(("0.0.0.0", 29745))
busy.listen()
with open("worker.py", "w") as f:
    f.write("import torch.distributed as dist\\ndist.init_process_group('gloo')\\n")
subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nnodes=1", "--nproc_per_node=4",
                "--master_addr=127.0.0.1", "--master_port=29745", "worker.py"], timeout=60)
busy.close()
'''

_INUSE_MP_SPAWN = '''
# The DDP tutorial pattern: mp.spawn + a hard-coded MASTER_PORT that an earlier run still holds.
import os, socket
from datetime import timedelta
import torch.distributed as dist
import torch.multiprocessing as mp


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "29746"
    dist.init_process_group("gloo", rank=rank, world_size=world_size, timeout=timedelta(seconds=8))


def main(rank, world_size):
    print(f"Running basic DDP example on rank {rank}.", flush=True)
    setup(rank, world_size)


if __name__ == "__main__":
    earlier_run = socket.socket()
    earlier_run.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    earlier_run.bind(("0.0.0.0", 29746))
    earlier_run.listen()
    mp.spawn(main, args=(2,), nprocs=2, join=True)
'''

# --------------------------------------------------------------------------
# pytorch/tcpstore-connect-timeout
# --------------------------------------------------------------------------
CONNECT = "pytorch/tcpstore-connect-timeout"

_CONNECT_DIRECT = '''
from datetime import timedelta
import torch.distributed as dist

client = dist.TCPStore("127.0.0.1", 29751, world_size=2, is_master=False, timeout=timedelta(seconds=5))
'''

_CONNECT_INIT_PG = '''
import os
from datetime import timedelta
import torch.distributed as dist

# rank 1 of 2: the master (rank 0) was never started / MASTER_PORT is wrong
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29752", RANK="1", WORLD_SIZE="2")
print("rank 1: connecting to", os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"], flush=True)
dist.init_process_group("gloo", timeout=timedelta(seconds=6))
'''

# --------------------------------------------------------------------------
# pytorch/elastic-child-failed
# --------------------------------------------------------------------------
CHILD = "pytorch/elastic-child-failed"

_CHILD_VALUEERROR = '''
# Rank 1 fails in its own data preparation while rank 0 is still busy computing, so
# rank 0 is simply stopped by the agent (SIGTERM) and prints no error of its own.
import time
import torch, torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
model = torch.nn.Linear(16, 4)
for step in range(3):
    loss = model(torch.randn(8, 16)).sum()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
eval_batch_size, world = 12, 5
if rank == 1:
    if eval_batch_size % world:
        raise ValueError(f"eval_batch_size ({eval_batch_size}) must be divisible by the number of processes ({world})")
time.sleep(30)   # rank 0: long evaluation on its shard
dist.barrier()
'''

_CHILD_RECORD = '''
import time
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


def load_split(name, rank):
    splits = {"train": [1, 2, 3], "validation": [4, 5]}
    return splits[name]


@record
def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    data = load_split("train", rank)
    if rank == 2:
        data = load_split("test", rank)   # KeyError on one rank only
    time.sleep(30)                        # the other ranks are still tokenizing
    dist.barrier()
    print("rank", rank, "has", len(data), "items")


if __name__ == "__main__":
    main()
'''

_CHILD_TEE = '''
import os, time
import torch

local_rank = int(os.environ["LOCAL_RANK"])
print(f"loading shard {local_rank}", flush=True)
if local_rank == 1:
    ckpt = {"encoder.weight": torch.zeros(2, 2)}
    missing = [k for k in ("decoder.weight",) if k not in ckpt]
    if missing:
        raise RuntimeError(f"checkpoint at /workspace/ckpt/step_4000 is incomplete, missing {missing}")
time.sleep(30)
'''

_CHILD_SINGLE = '''
import sys
cfg = {"lr": 3e-4, "epochs": 3}
print("config:", cfg, flush=True)
assert "warmup_steps" in cfg, "config is missing warmup_steps"
'''

_CHILD_ALL_RANKS = '''
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
x = torch.randn(4, 10)
w = torch.randn(12, 3)
print(f"rank {rank}: forward", flush=True)
y = x.reshape(6, 8)  # every rank fails the same way
'''

# --------------------------------------------------------------------------
# pytorch/worker-sigkill-host-oom
# --------------------------------------------------------------------------
KILL = "pytorch/worker-sigkill-host-oom"

# The kernel OOM killer sends SIGKILL; the worker does it to itself here.
_KILL_TORCHRUN = '''
import os, signal, time
import torch, torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
cache = []
for step in range(4):
    t = torch.ones(4)
    dist.all_reduce(t)
    cache.append(torch.zeros(256, 1024))          # host memory grows every step
    if rank == 0:
        print(f"step {step} | rss_cache={len(cache) * 1}MB | allreduce={t[0].item():.0f}", flush=True)
    if rank == 1 and step == 2:
        os.kill(os.getpid(), signal.SIGKILL)      # what the OOM killer does
    time.sleep(0.2)
'''

_KILL_SPAWN = '''
import os, signal, time
import torch.multiprocessing as mp


def worker(i):
    print(f"worker {i}: building in-memory index", flush=True)
    if i == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(3)


if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
'''

_KILL_BASH = '''
import subprocess, sys
with open("preprocess.py", "w") as f:
    f.write(
        "import os, signal\\n"
        "print('tokenizing shard 0/16', flush=True)\\n"
        "print('tokenizing shard 1/16', flush=True)\\n"
        "os.kill(os.getpid(), signal.SIGKILL)\\n"
    )
subprocess.run(["bash", "-c", f"{sys.executable} preprocess.py --num-proc 16; echo exit status $?"])
'''

# --------------------------------------------------------------------------
# pytorch/default-process-group-not-initialized
# --------------------------------------------------------------------------
NOPG = "pytorch/default-process-group-not-initialized"

_NOPG_ALLREDUCE = '''
import torch
import torch.distributed as dist

metric = torch.tensor([0.81])
dist.all_reduce(metric)   # forgot dist.init_process_group(...)
print(metric / 2)
'''

_NOPG_DDP = '''
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
print("wrapping model in DDP", flush=True)
model = DDP(model)
'''

_NOPG_TORCHRUN = '''
import os
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
print(f"local_rank={local_rank} world_size={os.environ['WORLD_SIZE']}", flush=True)
if dist.get_rank() == 0:     # init_process_group() was never called
    print("rank 0 logs")
'''

_NOPG_SAMPLER = '''
import torch
from torch.utils.data import DistributedSampler, TensorDataset

ds = TensorDataset(torch.arange(100))
sampler = DistributedSampler(ds)
'''


def generate() -> None:
    # store-timeout-waiting-for-clients
    run_script(STORE, "tcpstore-master-direct", _STORE_DIRECT)
    run_script(STORE, "init-process-group-env-rank0", _STORE_INIT_PG,
               env={"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29732"})
    run_script(STORE, "two-of-three-ranks-started", _STORE_PARTIAL)
    run_script(STORE, "torchrun-node0-of-2-static", _HELLO_PG,
               torchrun={"nnodes": 2, "node_rank": 0, "nproc_per_node": 2,
                         "master_addr": "127.0.0.1", "rdzv_conf": "timeout=8"})
    run_script(STORE, "torchrun-c10d-rendezvous-join-timeout", _HELLO_PG,
               torchrun={"nnodes": 2, "nproc_per_node": 2, "rdzv_backend": "c10d",
                         "rdzv_endpoint": "127.0.0.1:29735", "rdzv_id": "job42",
                         "rdzv_conf": "join_timeout=8"})
    run_script(STORE, "torchrun-node0-tail", _HELLO_PG,
               torchrun={"nnodes": 2, "node_rank": 0, "nproc_per_node": 4,
                         "master_addr": "127.0.0.1", "rdzv_conf": "timeout=6"}, keep="tail:4")

    # tcpstore-address-in-use
    run_script(INUSE, "tcpstore-second-server-libuv", _INUSE_DIRECT)
    run_script(INUSE, "tcpstore-second-server-no-libuv", _INUSE_NO_LIBUV)
    run_script(INUSE, "init-method-tcp-port-held", _INUSE_INIT_TCP)
    run_script(INUSE, "two-torchrun-jobs-same-port", _INUSE_TWO_JOBS, timeout=120)
    run_script(INUSE, "torchrun-port-busy-tail", _INUSE_BUSY_PORT_TORCHRUN, keep="tail:6")
    run_script(INUSE, "mp-spawn-hardcoded-master-port", _INUSE_MP_SPAWN)

    # tcpstore-connect-timeout
    run_script(CONNECT, "tcpstore-client-direct", _CONNECT_DIRECT)
    run_script(CONNECT, "init-process-group-rank1-no-master", _CONNECT_INIT_PG)
    run_script(CONNECT, "torchrun-node1-no-master", _HELLO_PG,
               torchrun={"nnodes": 2, "node_rank": 1, "nproc_per_node": 2,
                         "master_addr": "127.0.0.1", "rdzv_conf": "timeout=6"})
    run_script(CONNECT, "torchrun-node1-tail", _HELLO_PG,
               torchrun={"nnodes": 2, "node_rank": 1, "nproc_per_node": 2,
                         "master_addr": "127.0.0.1", "rdzv_conf": "timeout=5"}, keep="tail:3")

    # elastic-child-failed
    run_script(CHILD, "torchrun-2procs-valueerror", _CHILD_VALUEERROR, torchrun={"nproc_per_node": 2})
    run_script(CHILD, "torchrun-3procs-record-keyerror", _CHILD_RECORD, torchrun={"nproc_per_node": 3})
    run_script(CHILD, "torchrun-1proc-assertion", _CHILD_SINGLE, torchrun={"nproc_per_node": 1})
    run_script(CHILD, "torchrun-2procs-tee-runtimeerror", _CHILD_TEE, torchrun={"nproc_per_node": 2, "tee": 3})
    run_script(CHILD, "torchrun-4procs-summary-tail", _CHILD_ALL_RANKS, torchrun={"nproc_per_node": 4},
               keep="tail:40")

    # worker-sigkill-host-oom
    run_script(KILL, "torchrun-2procs-rank1-sigkill", _KILL_TORCHRUN, torchrun={"nproc_per_node": 2})
    run_script(KILL, "torchrun-4procs-sigkill-tail", _KILL_TORCHRUN, torchrun={"nproc_per_node": 4},
               keep="tail:30")
    run_script(KILL, "mp-spawn-sigkill", _KILL_SPAWN)
    run_script(KILL, "bash-killed-preprocess", _KILL_BASH)

    # default-process-group-not-initialized
    run_script(NOPG, "all-reduce-without-init", _NOPG_ALLREDUCE)
    run_script(NOPG, "ddp-without-init", _NOPG_DDP, keep="tail:6")
    run_script(NOPG, "torchrun-2procs-get-rank-without-init", _NOPG_TORCHRUN, torchrun={"nproc_per_node": 2})
    run_script(NOPG, "distributed-sampler-without-init", _NOPG_SAMPLER)
