"""Real example logs for the CUDA / runtime entries that a CPU-only torch build can produce.

Entries covered here (the rest of the cuda group needs a GPU, so their logs are composed):
- pytorch/torch-not-compiled-with-cuda: a CPU build asked to use CUDA.
- pytorch/cpu-allocator-out-of-memory: an allocation the host allocator refuses.
- pytorch/tensors-on-different-devices: TensorIterator's device check, reached with a
  meta tensor whose Meta dispatch key is excluded so the CPU kernel sees two devices.
"""
from __future__ import annotations

from generate import NEUTRAL_WORK, run_script

NOT_COMPILED = "pytorch/torch-not-compiled-with-cuda"
CPU_OOM = "pytorch/cpu-allocator-out-of-memory"
DEVICES = "pytorch/tensors-on-different-devices"

_TENSOR_CUDA = '''
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
print(f"torch {torch.__version__}, cuda available: {torch.cuda.is_available()}")


def train_step(batch, target):
    batch = batch.cuda()
    target = target.cuda()
    loss = nn.functional.cross_entropy(model(batch), target)
    loss.backward()
    return loss.item()


for step in range(3):
    x = torch.randn(8, 16)
    y = torch.randint(0, 4, (8,))
    print(f"step {step}: loss={train_step(x, y):.4f}")
'''

_MODEL_TO_DEVICE = '''
import argparse
import torch
import torch.nn as nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.head = nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).flatten(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda:0")
    args = p.parse_args()
    device = torch.device(args.device)
    print(f"Using device {device}")
    model = TinyNet().to(device)
    print(model)


if __name__ == "__main__":
    main()
'''

_TORCHRUN_SET_DEVICE = '''
import datetime
import os
import torch
import torch.distributed as dist
import torch.nn as nn

local_rank = int(os.environ["LOCAL_RANK"])
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
print(f"rank {dist.get_rank()}/{dist.get_world_size()} initialised (local_rank {local_rank})", flush=True)
device = torch.device("cuda", local_rank)
model = nn.Linear(32, 32).to(device)
ddp = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
'''

_TORCHRUN_SET_DEVICE_ATTR = '''
import datetime
import os
import torch
import torch.distributed as dist

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", timeout=datetime.timedelta(seconds=15))
'''

_DEVICE_CONTEXT = '''
import torch

print("devices visible:", torch.cuda.device_count())
with torch.cuda.device(0):
    x = torch.randn(4, 4)
    print(x.sum())
'''

_CPU_EMPTY = '''
import torch

batch, heads, seq = 64, 32, 262144
print(f"building attention scores for batch={batch} heads={heads} seq={seq}")
q = torch.randn(2, 4, 8)
scores = torch.empty(batch, heads, seq, seq)
print(scores.shape)
'''

_CPU_TORCHRUN = '''
import datetime
import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
vocab = 4_000_000_000 if rank == 1 else 50_000
print(f"[rank {rank}] allocating embedding cache for vocab={vocab}", flush=True)
cache = torch.zeros(vocab, 4096)
t = torch.ones(4)
dist.all_reduce(t)
print(f"[rank {rank}] done: {t.tolist()}", flush=True)
dist.destroy_process_group()
'''

_CPU_DATALOADER = '''
import torch
from torch.utils.data import DataLoader, Dataset


class VolumeDataset(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        # a corrupt header makes the volume look enormous
        depth, height, width = 2_000_000, 1024, 1024
        return torch.zeros(depth, height, width)


loader = DataLoader(VolumeDataset(), batch_size=2, num_workers=1)
for epoch in range(1):
    for step, vol in enumerate(loader):
        print(epoch, step, vol.shape)
'''

_META_DEVICE = '''
import torch
import torch.nn as nn


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        # a buffer created on the meta device and never materialised
        self.register_buffer("offset", torch.zeros(8, device="meta"))

    def forward(self, x):
        h = self.proj(x)
        # keep the CPU kernel even though one input is a meta tensor
        with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.Meta)):
            return h + self.offset


model = Scaler()
print("parameters on", {p.device.type for p in model.parameters()},
      "buffers on", {b.device.type for b in model.buffers()})
out = model(torch.randn(4, 8))
print(out.shape)
'''


def _run(entry_id: str, name: str, script: str, **kw) -> None:
    """run_script, then name the interpreter the way a conda install would (scrub() leaves the venv path)."""
    dest = run_script(entry_id, name, script, **kw)
    text = dest.read_text()
    text = text.replace(f"{NEUTRAL_WORK}/.venv-gen/bin/python", "/opt/conda/bin/python")
    dest.write_text(text)


def generate() -> None:
    _run(NOT_COMPILED, "tensor-cuda-in-train-step", _TENSOR_CUDA)
    _run(NOT_COMPILED, "model-to-device-argparse", _MODEL_TO_DEVICE)
    _run(NOT_COMPILED, "torchrun-two-ranks-gloo", _TORCHRUN_SET_DEVICE,
         torchrun={"nproc_per_node": 2})
    _run(NOT_COMPILED, "torchrun-set-device-attributeerror", _TORCHRUN_SET_DEVICE_ATTR,
         torchrun={"nproc_per_node": 2})
    _run(NOT_COMPILED, "cuda-device-context-manager", _DEVICE_CONTEXT)
    _run(CPU_OOM, "torch-empty-attention-scores", _CPU_EMPTY)
    _run(CPU_OOM, "torchrun-rank1-embedding-cache", _CPU_TORCHRUN,
         torchrun={"nproc_per_node": 2})
    _run(CPU_OOM, "dataloader-worker-tail", _CPU_DATALOADER, keep="tail:30")
    _run(DEVICES, "meta-buffer-tensoriterator", _META_DEVICE)
