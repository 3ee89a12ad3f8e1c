"""Real logs for distributed, CUDA-runtime, FSDP and launcher entries.

Everything runs on CPU: gloo process groups under torchrun or mp.spawn with
2 processes and short timeouts, so each scenario takes a few seconds.
DIST2_ONLY=<entry id>[,<entry id>...] limits a run to some entries.
"""
from __future__ import annotations

import os

from generate import run_script as _run_script


def run_script(entry_id, name, script, **kw):
    """generate.run_script, skipped when DIST2_ONLY (comma-separated entry ids) excludes the entry."""
    only = [x for x in os.environ.get("DIST2_ONLY", "").split(",") if x]
    if only and entry_id not in only:
        return _path(entry_id, name)
    return _run_script(entry_id, name, script, **kw)


def _path(entry_id, name):
    from generate import EXAMPLES
    return EXAMPLES / entry_id / f"{name}.real.log"

WORKER_KILLED = "pytorch/dataloader-worker-killed"
STORE_CLOSED = "pytorch/store-recv-connection-closed"
ENV_RDZV = "pytorch/env-rendezvous-rank-not-set"
DDP_INCONSISTENT = "pytorch/ddp-inconsistent-params-across-ranks"
DDP_NO_GRAD = "pytorch/ddp-no-parameters-require-grad"
SPAWN_RAISED = "pytorch/mp-spawn-process-raised"
FSDP_OUTSIDE = "pytorch/fsdp-param-outside-forward"
NO_BACKEND = "pytorch/no-backend-for-device-type"
PORT_IN_USE = "accelerate/port-in-use"

# --------------------------------------------------------------------------
# pytorch/dataloader-worker-killed: SIGFPE in a worker (native division by zero)
# --------------------------------------------------------------------------
_WORKER_FPE = '''
import os, signal
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

mp.set_sharing_strategy("file_system")


class Decoded(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        if i == 37:
            os.kill(os.getpid(), signal.SIGFPE)  # what an integer division by zero in a C decoder does
        return torch.full((4,), float(i))


loader = DataLoader(Decoded(), batch_size=4, num_workers=2)
for epoch in range(2):
    for step, batch in enumerate(loader):
        print(f"epoch {epoch} step {step} mean {batch.mean():.2f}", flush=True)
'''


# --------------------------------------------------------------------------
# pytorch/store-recv-connection-closed: rank 0 hosts the TCPStore (tcp:// init)
# and exits while rank 1 still needs the store. Two plain processes, as two
# hand-started launchers would be (torchrun's agent would host the store itself).
# --------------------------------------------------------------------------
_STORE_HOST_EXITS = '''
import datetime, os, sys, time
import multiprocessing as mp
import torch, torch.distributed as dist

MODE = sys.argv[1]


def run(rank, world, port):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=20))
    t = torch.ones(4)
    dist.all_reduce(t)
    print(f"rank {rank}: step 0 all_reduce ok", flush=True)
    if rank == 0:
        if MODE == "late":
            raise SystemExit("rank 0: checkpoint directory not writable, giving up")
        time.sleep(2)
        if MODE == "exception":
            raise RuntimeError("evaluation failed: metric 'bleu' needs the sacrebleu package")
        raise SystemExit("rank 0: checkpoint directory not writable, giving up")
    if MODE == "late":
        time.sleep(2)
    eval_group = dist.new_group([0, 1])   # talks to the TCPStore that rank 0 was hosting
    dist.barrier(group=eval_group)


if __name__ == "__main__":
    port = int(os.environ["STORE_PORT"])
    procs = [mp.Process(target=run, args=(r, 2, port)) for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
'''

# --------------------------------------------------------------------------
# pytorch/env-rendezvous-rank-not-set: a distributed script started with python
# --------------------------------------------------------------------------
_ENV_RDZV_PLAIN = '''
import torch.distributed as dist
dist.init_process_group("gloo")
'''

_ENV_RDZV_TRAIN = '''
import argparse, os
import torch, torch.nn as nn, torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()
print(f"config: epochs={args.epochs} batch_size=32 lr=3e-4", flush=True)
print("building model: 2-layer MLP, 12.6K parameters", flush=True)
dist.init_process_group(backend="gloo")
local_rank = int(os.environ["LOCAL_RANK"])
'''

# --------------------------------------------------------------------------
# pytorch/ddp-inconsistent-params-across-ranks
# --------------------------------------------------------------------------
_DDP_PARAM_COUNT = '''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
# the depth comes from a config file that only rank 0 had re-read after editing
num_layers = 2 if rank == 0 else 3
model = DDP(nn.Sequential(*[nn.Linear(16, 16) for _ in range(num_layers)]))
'''

_DDP_PARAM_SIZES = '''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
vocab = 32000
if rank != 0:
    vocab += 1          # a pad token added only on the other ranks, then embeddings resized
print(f"rank {rank}: vocabulary size {vocab}", flush=True)
model = DDP(nn.Sequential(nn.Embedding(vocab, 8), nn.Linear(8, 8)))
'''

# --------------------------------------------------------------------------
# pytorch/ddp-no-parameters-require-grad
# --------------------------------------------------------------------------
_DDP_FROZEN_TEACHER = '''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
student = DDP(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)))
teacher = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4))
teacher.requires_grad_(False)
print(f"rank {rank}: student wrapped, wrapping teacher", flush=True)
teacher = DDP(teacher)
'''

_DDP_FROZEN_SPAWN = '''
import datetime, os
import torch, torch.nn as nn, torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(rank, world):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ['STORE_PORT']}",
                            rank=rank, world_size=world, timeout=datetime.timedelta(seconds=20))
    encoder = nn.Linear(8, 8)
    for p in encoder.parameters():
        p.requires_grad = False          # "freeze the backbone" ... and nothing else is trainable
    model = DDP(encoder)


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
'''

# --------------------------------------------------------------------------
# pytorch/mp-spawn-process-raised
# --------------------------------------------------------------------------
_SPAWN_KEYERROR = '''
import torch.multiprocessing as mp


def worker(rank):
    cfg = {"lr": 0.1}
    print(f"worker {rank} lr={cfg['lr']} warmup={cfg['warmup_steps']}")


if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
'''

_SPAWN_SHAPE = '''
import datetime, os
import torch, torch.nn as nn, torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ['STORE_PORT']}",
                            rank=rank, world_size=world, timeout=datetime.timedelta(seconds=20))
    model = nn.Linear(32, 10)
    for step in range(2):
        loss = model(torch.randn(8, 32)).sum()
        loss.backward()
        print(f"rank {rank} step {step} loss {loss.item():.3f}", flush=True)
    shard = f"data/eval_shard_{rank}.jsonl"
    with open(shard) as fh:                       # the eval shards were never copied to this machine
        print(rank, sum(1 for _ in fh))


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
'''

# --------------------------------------------------------------------------
# pytorch/fsdp-param-outside-forward: FSDP1 use_orig_params=True exposes
# the local 1-D shard when a submodule is called outside FSDP's forward
# --------------------------------------------------------------------------
_FSDP_EMBED_OUTSIDE = '''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank()
torch.manual_seed(0)


class TinyLM(nn.Module):
    def __init__(self, vocab=11, dim=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.block = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        return self.head(torch.relu(self.block(self.embed(ids))))


model = FSDP(TinyLM(), use_orig_params=True, device_id=torch.device("cpu"))
if rank == 0:
    print(model, flush=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
ids = torch.randint(0, 11, (2, 6))
loss = model(ids).logsumexp(-1).mean()
loss.backward()
opt.step()
print(f"rank {rank}: step 0 loss {loss.item():.4f}", flush=True)

# sample one token greedily, calling the submodules directly (outside FSDP's forward)
inner = model.module
with torch.no_grad():
    h = inner.embed(ids[:, :1])
    print(inner.head(torch.relu(inner.block(h))).argmax(-1))
'''

_FSDP_LINEAR_OUTSIDE = '''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank()
torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(torch.relu(self.encoder(x)))


model = FSDP(Classifier(), use_orig_params=True, device_id=torch.device("cpu"))
if rank == 0:
    print(model, flush=True)
x = torch.randn(4, 8)
# extract features for a linear probe with the encoder only
features = torch.relu(model.module.encoder(x))
'''



# --------------------------------------------------------------------------
# pytorch/no-backend-for-device-type: a process group whose only backend serves
# cuda tensors ("cuda:gloo" here stands in for NCCL on a CPU-only build) gets a
# CPU tensor
# --------------------------------------------------------------------------
_NO_BACKEND_METRIC = '''
import datetime, sys, torch, torch.distributed as dist
dist.init_process_group("cuda:gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
correct, total = 45 + rank, 64
print(f"rank {rank}: local accuracy {correct / total:.3f}", flush=True)
stats = torch.tensor([correct, total], dtype=torch.float64)     # created on the CPU
if sys.argv[1] == "broadcast":
    dist.broadcast(stats, src=0)
else:
    dist.all_reduce(stats)
print(f"global accuracy {stats[0] / stats[1]:.3f}")
'''


# --------------------------------------------------------------------------
# accelerate/port-in-use: the main process port is still held (here by a
# listener standing in for a previous job) when node 0 launches
# --------------------------------------------------------------------------
_PORT_HELD = '''
import os, socket, subprocess, sys

port = int(os.environ["STORE_PORT"])
stale = socket.socket()                      # stands in for the previous run that still holds the port
stale.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
stale.bind(("127.0.0.1", port))
stale.listen(1)
with open("train.py", "w") as fh:
    fh.write("print('training')\\n")
cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_machines", "2",
       "--machine_rank", "0", "--main_process_ip", "127.0.0.1", "--main_process_port", str(port),
       "--num_processes", "4", *sys.argv[1:], "train.py"]
sys.exit(subprocess.run(cmd).returncode)
'''


def generate() -> None:
    two = {"nproc_per_node": 2}
    fpe = run_script(WORKER_KILLED, "worker-sigfpe-division", _WORKER_FPE)
    _drop_nul(fpe)  # the worker's C signal handler writes its message with a trailing NUL byte

    store = {"STORE_PORT": str(_port())}
    run_script(STORE_CLOSED, "store-host-exits-during-new-group", _STORE_HOST_EXITS, args=["exit"], env=store)
    run_script(STORE_CLOSED, "store-host-raises-tail", _STORE_HOST_EXITS, args=["exception"],
               env={"STORE_PORT": str(_port())}, keep="tail:24")
    run_script(STORE_CLOSED, "store-host-gone-broken-pipe", _STORE_HOST_EXITS, args=["late"],
               env={"STORE_PORT": str(_port())}, keep="tail:12")

    run_script(ENV_RDZV, "plain-python-two-lines", _ENV_RDZV_PLAIN)
    run_script(ENV_RDZV, "train-script-without-torchrun", _ENV_RDZV_TRAIN, args=["--epochs", "2"])
    run_script(ENV_RDZV, "rank-set-master-addr-missing", _ENV_RDZV_PLAIN, env={"RANK": "0", "WORLD_SIZE": "1"},
               keep="tail:3")

    run_script(DDP_INCONSISTENT, "param-count-torchrun", _DDP_PARAM_COUNT, torchrun=two)
    run_script(DDP_INCONSISTENT, "embedding-size-torchrun", _DDP_PARAM_SIZES, torchrun=two)
    run_script(DDP_INCONSISTENT, "param-count-3ranks", _DDP_PARAM_COUNT, torchrun={"nproc_per_node": 3})

    run_script(DDP_NO_GRAD, "frozen-teacher-torchrun", _DDP_FROZEN_TEACHER, torchrun=two)
    run_script(DDP_NO_GRAD, "frozen-backbone-spawn", _DDP_FROZEN_SPAWN, env={"STORE_PORT": str(_port())})
    run_script(DDP_NO_GRAD, "frozen-teacher-tail", _DDP_FROZEN_TEACHER, torchrun=two, keep="tail:44")

    run_script(SPAWN_RAISED, "keyerror-in-worker", _SPAWN_KEYERROR)
    run_script(SPAWN_RAISED, "missing-shard-in-worker", _SPAWN_SHAPE, env={"STORE_PORT": str(_port())})
    run_script(SPAWN_RAISED, "keyerror-in-worker-tail", _SPAWN_KEYERROR, keep="tail:11")

    run_script(FSDP_OUTSIDE, "embedding-called-outside-forward", _FSDP_EMBED_OUTSIDE, torchrun=two)
    run_script(FSDP_OUTSIDE, "linear-probe-on-encoder", _FSDP_LINEAR_OUTSIDE, torchrun=two)
    run_script(FSDP_OUTSIDE, "linear-probe-3ranks", _FSDP_LINEAR_OUTSIDE, torchrun={"nproc_per_node": 3})

    run_script(NO_BACKEND, "cpu-metric-all-reduce-torchrun", _NO_BACKEND_METRIC, args=["all_reduce"], torchrun=two)
    run_script(NO_BACKEND, "cpu-tensor-broadcast-tail", _NO_BACKEND_METRIC, args=["broadcast"], torchrun=two,
               keep="tail:45")
    run_script(NO_BACKEND, "cpu-metric-3ranks", _NO_BACKEND_METRIC, args=["all_reduce"],
               torchrun={"nproc_per_node": 3})

    run_script(PORT_IN_USE, "node0-port-held-by-previous-run", _PORT_HELD, env={"STORE_PORT": str(_port())})
    run_script(PORT_IN_USE, "node0-port-held-bf16-tail", _PORT_HELD, args=["--mixed_precision", "bf16"],
               env={"STORE_PORT": str(_port())}, keep="tail:3")
    run_script(PORT_IN_USE, "node0-port-held-tail-traceback", _PORT_HELD, env={"STORE_PORT": str(_port())},
               keep="tail:12")


def _drop_nul(path) -> None:
    if path.exists():
        path.write_bytes(path.read_bytes().replace(b"\x00", b""))


def _port() -> int:
    from generate import _free_port
    return _free_port()
