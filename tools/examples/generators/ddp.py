"""Real logs for the DistributedDataParallel / collective-consistency entries.

Everything runs on CPU with the gloo backend under torchrun (2-3 processes) and
short process-group timeouts, so each scenario takes a few seconds:

- pytorch/ddp-unused-parameters: a model with a branch that does not feed the
  loss; a graph that changes under static_graph=True.
- pytorch/ddp-mark-variable-ready-twice: reentrant activation checkpointing with
  find_unused_parameters=True; a submodule called outside DDP's forward.
- pytorch/collective-mismatch-detected: ranks calling different collectives or
  different tensor shapes under TORCH_DISTRIBUTED_DEBUG=DETAIL; without DETAIL,
  gloo's own size check when one rank is in an epoch-end all_reduce while the
  other is still in DDP's gradient all-reduce.
- pytorch/gloo-collective-timeout: a rank that is slow, one that exits, one that
  raises an ordinary exception but stays alive, monitored_barrier.
- pytorch/uneven-inputs-epoch-end-hang: ranks with different numbers of batches
  under DDP.join / Join(throw_on_early_termination=True), and Join's skew warning.

Note: with TORCH_DISTRIBUTED_DEBUG=DETAIL, constructing DDP on CPU/gloo crashes
with SIGSEGV in torch 2.13.0 (in _ddp_init_helper), so DETAIL is only used here
with plain collectives; DDP runs use INFO when parameter names are wanted.
"""
from __future__ import annotations

from generate import run_script

UNUSED = "pytorch/ddp-unused-parameters"
TWICE = "pytorch/ddp-mark-variable-ready-twice"
MISMATCH = "pytorch/collective-mismatch-detected"
GLOO = "pytorch/gloo-collective-timeout"
UNEVEN = "pytorch/uneven-inputs-epoch-end-hang"

# --------------------------------------------------------------------------
# pytorch/ddp-unused-parameters
# --------------------------------------------------------------------------
_UNUSED_AUX_HEAD = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()
torch.manual_seed(rank)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(16, 32)
        self.head = nn.Linear(32, 4)
        self.aux_head = nn.Linear(32, 4)  # only used when the auxiliary loss is on

    def forward(self, x, use_aux=False):
        h = torch.relu(self.trunk(x))
        out = self.head(h)
        if use_aux:
            out = out + self.aux_head(h)
        return out


model = DDP(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

_UNUSED_MULTITASK_INFO = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()
torch.manual_seed(100 + rank)


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(24, 48), nn.GELU(), nn.Linear(48, 48))
        self.cls_head = nn.Linear(48, 10)
        self.depth_head = nn.Linear(48, 1)

    def forward(self, x, depth=None):
        h = self.encoder(x)
        out = {"logits": self.cls_head(h)}
        if depth is not None:          # only some batches carry depth labels
            out["depth"] = self.depth_head(h)
        return out


model = DDP(MultiTask())
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(4):
    x, y = torch.randn(16, 24), torch.randint(0, 10, (16,))
    out = model(x)
    loss = nn.functional.cross_entropy(out["logits"], y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"[train] rank={rank} step={step} loss={loss.item():.4f}", flush=True)
'''

_UNUSED_STATIC_GRAPH = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()
torch.manual_seed(7 + rank)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(16, 32)
        self.cls = nn.Linear(32, 4)
        self.box = nn.Linear(32, 8)

    def forward(self, x, with_boxes=True):
        h = torch.relu(self.backbone(x))
        return self.cls(h), (self.box(h) if with_boxes else None)


model = DDP(Detector(), static_graph=True)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(3):
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    logits, boxes = model(x, with_boxes=(step == 0))   # box branch switched off after warm-up
    loss = nn.functional.cross_entropy(logits, y)
    if boxes is not None:
        loss = loss + boxes.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
'''

_UNUSED_SPAWN_FROZEN_TOWER = '''
import os, socket, datetime
import torch, torch.nn as nn, torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.text = nn.Linear(32, 16)
        self.image = nn.Linear(64, 16)      # the image tower is only used in stage 2

    def forward(self, text, image=None):
        t = self.text(text)
        return t if image is None else t * self.image(image)


def worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=10))
    model = DDP(TwoTower())
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(3):
        loss = model(torch.randn(4, 32)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(2, port), nprocs=2)
'''

_MISMATCH_SPAWN_DTYPE = '''
import os, socket, datetime
import torch, torch.distributed as dist
import torch.multiprocessing as mp


def worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=10))
    # rank 1 accumulated its loss sum in float64, rank 0 in float32
    total = torch.tensor([12.5, 96.0], dtype=torch.float64 if rank == 1 else torch.float32)
    dist.all_reduce(total)
    print(f"rank {rank}: mean loss {total[0] / total[1]:.4f}", flush=True)


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(2, port), nprocs=2)
'''


# --------------------------------------------------------------------------
# pytorch/ddp-mark-variable-ready-twice
# --------------------------------------------------------------------------
_TWICE_CHECKPOINT = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(16, 16), nn.ReLU())
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        x = checkpoint(self.block, x, use_reentrant=True)   # activation checkpointing
        return self.head(x)


model = DDP(Net(), find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(8, 16, requires_grad=True)
    y = torch.randint(0, 4, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

_TWICE_OUTSIDE_FORWARD = '''
import os, socket, datetime
import torch, torch.nn as nn, torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(16, 32)
        self.cls = nn.Linear(32, 4)
        self.proj = nn.Linear(32, 8)   # contrastive projection, called from the training loop

    def forward(self, x):
        h = torch.relu(self.backbone(x))
        return self.cls(h), h


def worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=10))
    model = DDP(Net(), find_unused_parameters=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
        logits, h = model(x)
        z = model.module.proj(h)          # parameter used outside DDP's forward
        loss = nn.functional.cross_entropy(logits, y) + 0.1 * z.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(2, port), nprocs=2)
'''

_TWICE_CHECKPOINT_LAYERS = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.mlp(self.ln(x))


class Encoder(nn.Module):
    def __init__(self, d=32, n=3, grad_ckpt=True):
        super().__init__()
        self.embed = nn.Linear(12, d)
        self.layers = nn.ModuleList(Block(d) for _ in range(n))
        self.out = nn.Linear(d, 2)
        self.grad_ckpt = grad_ckpt

    def forward(self, x):
        h = self.embed(x)
        for layer in self.layers:
            h = checkpoint(layer, h) if self.grad_ckpt else layer(h)  # use_reentrant left at its default
        return self.out(h)


model = DDP(Encoder(), find_unused_parameters=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
print(f"rank {rank}: encoder with {sum(p.numel() for p in model.parameters())} params, grad checkpointing on", flush=True)
for step in range(2):
    x, y = torch.randn(4, 12), torch.randint(0, 2, (4,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
'''

# --------------------------------------------------------------------------
# pytorch/collective-mismatch-detected
# --------------------------------------------------------------------------
_MISMATCH_OP = '''
import datetime
import torch, torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()
stats = torch.ones(4) * (rank + 1)
dist.all_reduce(stats)
print(f"rank {rank}: warm-up all_reduce ok -> {stats.tolist()}", flush=True)

# rank 0 averages the metrics, the other ranks wait for rank 0's copy: the two
# branches call different collectives.
if rank == 0:
    dist.all_reduce(stats)
else:
    dist.broadcast(stats, src=0)
print(f"rank {rank}: synced {stats.tolist()}", flush=True)
dist.destroy_process_group()
'''

_MISMATCH_SHAPE = '''
import datetime
import torch, torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()
# each rank reduces its dict of metrics; rank 2 saw a class the others did not
metrics = {"loss": 0.71 + rank / 10, "acc": 0.5, "f1": 0.4}
if rank == 2:
    metrics["recall_class_7"] = 0.0
t = torch.tensor(list(metrics.values()))
print(f"rank {rank}: reducing {len(metrics)} metrics", flush=True)
dist.all_reduce(t)
print(f"rank {rank}: {t / dist.get_world_size()}", flush=True)
'''

_MISMATCH_GLOO_SIZE = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=8))
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
n_batches = 6 - 2 * rank          # the shards are not the same length
print(f"rank {rank}: {n_batches} batches this epoch", flush=True)
for i in range(n_batches):
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"rank {rank} step {i} loss {loss.item():.4f}", flush=True)
print(f"rank {rank}: epoch done, reducing val loss", flush=True)
val = torch.tensor([loss.item()])
dist.all_reduce(val)
print(f"rank {rank}: val loss {val.item() / dist.get_world_size():.4f}", flush=True)
'''

# --------------------------------------------------------------------------
# pytorch/gloo-collective-timeout
# --------------------------------------------------------------------------
_GLOO_SLOW_RANK = '''
import time, datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
rank = dist.get_rank()
model = DDP(nn.Linear(16, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    if step == 2 and rank == 1:
        print("rank 1: running validation before step 2 ...", flush=True)
        time.sleep(15)             # a slow, rank-local piece of work
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
'''

_GLOO_USER_EXCEPTION = '''
import time, threading, datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
rank = dist.get_rank()


def metrics_uploader():            # non-daemon thread: flushes metrics until the main thread is gone
    main = threading.main_thread()
    while main.is_alive():
        time.sleep(8)


threading.Thread(target=metrics_uploader, name="metrics-uploader").start()


class Tokenizer:
    def encode(self, text):
        if "\\x00" in text:
            raise KeyError(f"unknown token id in sample: {text!r}")
        return [ord(c) % 16 for c in text]


tok = Tokenizer()
samples = [["hello world", "foo bar"], ["data x", "more y"], ["ok", "bad\\x00rec"]]
model = DDP(nn.Linear(16, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    ids = tok.encode(samples[rank][step])
    x = torch.zeros(1, 16)
    x[0, ids] = 1.0
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
'''

_GLOO_PEER_EXIT = '''
import os, sys, datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
rank = dist.get_rank()
model = DDP(nn.Linear(16, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    if step == 2 and rank == 1:
        print("rank 1: shard /data/train-00001.bin is missing, giving up", flush=True)
        sys.exit(3)
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
'''

_GLOO_MONITORED_BARRIER = '''
import time, datetime
import torch, torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
print(f"rank {rank}: saving checkpoint shard", flush=True)
if rank == 2:
    time.sleep(12)   # still writing its shard of the checkpoint
dist.monitored_barrier(timeout=datetime.timedelta(seconds=4))
print(f"rank {rank} passed the barrier", flush=True)
'''

# --------------------------------------------------------------------------
# pytorch/uneven-inputs-epoch-end-hang
# --------------------------------------------------------------------------
_UNEVEN_DDP_JOIN = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=8))
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
# the dataset was filtered per shard, so the ranks see different batch counts
batches = [(torch.randn(8, 16), torch.randint(0, 4, (8,))) for _ in range(6 - 2 * rank)]
print(f"rank {rank}: {len(batches)} batches this epoch", flush=True)
with model.join(throw_on_early_termination=True):
    for i, (x, y) in enumerate(batches):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"rank {rank} step {i} loss {loss.item():.4f}", flush=True)
print(f"rank {rank} finished", flush=True)
'''

_UNEVEN_ZERO_JOIN = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.distributed.algorithms.join import Join

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank = dist.get_rank()
model = DDP(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)))
opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.Adam, lr=1e-3)
n = [7, 7, 5][rank]                 # IterableDataset sharded by file: the last shard is shorter
with Join([model, opt], throw_on_early_termination=True):
    for i in range(n):
        loss = model(torch.randn(4, 16)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"rank {rank} iter {i} loss {loss.item():.4f}", flush=True)
'''

_UNEVEN_SKEW_WARNING = '''
import datetime
import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=10))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = DDP(nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
n = 1005 * (world - rank)           # rank 0 got twice as many samples as rank 1
print(f"rank {rank}: {n} batches this epoch", flush=True)
with model.join():
    for i in range(n):
        loss = model(torch.randn(2, 8)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i % 500 == 0:
            print(f"rank {rank} step {i} loss {loss.item():.4f}", flush=True)
print(f"rank {rank} finished epoch", flush=True)
'''


def generate() -> None:
    two = {"nproc_per_node": 2}
    three = {"nproc_per_node": 3}

    run_script(UNUSED, "unused-aux-head-torchrun", _UNUSED_AUX_HEAD, torchrun=two)
    run_script(UNUSED, "multitask-debug-info-tail", _UNUSED_MULTITASK_INFO, torchrun=two,
               env={"TORCH_DISTRIBUTED_DEBUG": "INFO"}, keep="tail:52")
    run_script(UNUSED, "static-graph-changed-3ranks", _UNUSED_STATIC_GRAPH, torchrun=three, keep="tail:60")
    run_script(UNUSED, "frozen-tower-spawn-short", _UNUSED_SPAWN_FROZEN_TOWER, keep="tail:6")

    run_script(TWICE, "reentrant-checkpoint-find-unused", _TWICE_CHECKPOINT, torchrun=two)
    run_script(TWICE, "param-used-outside-forward-spawn-tail", _TWICE_OUTSIDE_FORWARD, keep="tail:14")
    run_script(TWICE, "checkpointed-layers-3ranks", _TWICE_CHECKPOINT_LAYERS, torchrun=three, keep="tail:70")

    detail = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
    run_script(MISMATCH, "allreduce-vs-broadcast-detail", _MISMATCH_OP, torchrun=two, env=detail)
    run_script(MISMATCH, "metric-shapes-3ranks-detail-tail", _MISMATCH_SHAPE, torchrun=three, env=detail,
               keep="tail:58")
    run_script(MISMATCH, "gloo-size-check-epoch-end", _MISMATCH_GLOO_SIZE, torchrun=two)
    run_script(MISMATCH, "dtype-mismatch-spawn-detail-short", _MISMATCH_SPAWN_DTYPE, env=detail, keep="tail:4")

    run_script(GLOO, "slow-rank-recv-timeout", _GLOO_SLOW_RANK, torchrun=two)
    # the first failure is an error no entry knows: the launcher summary is the answer, the timeouts are consequences
    run_script("pytorch/elastic-child-failed", "torchrun-3procs-user-exception-then-gloo-timeouts", _GLOO_USER_EXCEPTION,
               torchrun=three)
    run_script(GLOO, "peer-exited-connection-closed-tail", _GLOO_PEER_EXIT, torchrun=two, keep="tail:47")
    run_script(GLOO, "monitored-barrier-3ranks", _GLOO_MONITORED_BARRIER, torchrun=three)

    run_script(UNEVEN, "ddp-join-throw-on-early-termination", _UNEVEN_DDP_JOIN, torchrun=two)
    run_script(UNEVEN, "join-zero-optimizer-3ranks-tail", _UNEVEN_ZERO_JOIN, torchrun=three, keep="tail:62")
    run_script(UNEVEN, "join-uneven-skew-warning", _UNEVEN_SKEW_WARNING, torchrun=two)
