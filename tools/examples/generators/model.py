"""Real example logs for the data-loading, model, autograd and checkpoint entries.

Every script below runs on a CPU-only torch (2.13.0 was used) in a few seconds:
DataLoader workers that kill themselves with SIGKILL / SIGBUS, unpicklable
datasets under the ``spawn`` start method, state_dict prefixes from DDP and
torch.compile, Linear shape and dtype errors, autograd misuse and torch.load
under the ``weights_only=True`` default.  Distributed runs use gloo.
"""
from __future__ import annotations

import re
from pathlib import Path

from generate import run_script


def _run(entry_id: str, name: str, script: str, **kw) -> Path:
    """run_script, then neutralise the interpreter path the launcher prints.

    generate.scrub() rewrites the repository path before sys.prefix, so the
    torchrun line "of binary: <venv>/bin/python" keeps the venv's directory name.
    """
    dest = run_script(entry_id, name, script, **kw)
    text = dest.read_text()
    fixed = text.replace("/workspace/.venv-gen/bin/python", "/opt/conda/bin/python")
    # C++ stack traces name the directory the interpreter was compiled in
    fixed = re.sub(r"/tmp/python-build\.[\d.]+/Python-[\d.]+/", "/usr/src/python/", fixed)
    if fixed != text:
        dest.write_text(fixed)
    return dest

# --------------------------------------------------------------------------
# shared snippets
# --------------------------------------------------------------------------
_DDP_HEAD = '''
import os, datetime, torch, torch.nn as nn, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank()
torch.manual_seed(0)
'''

# --------------------------------------------------------------------------
# pytorch/dataloader-worker-killed
# --------------------------------------------------------------------------
_WORKER_SIGKILL = '''
import os, signal, time, torch
from torch.utils.data import DataLoader, Dataset

class ShardDataset(Dataset):
    """Each sample decodes a 'large' record; sample 37 is where the OOM killer strikes."""
    def __len__(self):
        return 256
    def __getitem__(self, i):
        if i == 37:
            time.sleep(1.0)                          # let the main process settle in queue.get()
            os.kill(os.getpid(), signal.SIGKILL)   # what the kernel OOM killer does
        return torch.randn(16), torch.randint(0, 4, ()).item()

def main():
    model = torch.nn.Linear(16, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(ShardDataset(), batch_size=8, num_workers=3)
    for epoch in range(2):
        for step, (x, y) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)

if __name__ == "__main__":
    main()
'''

_WORKER_EXIT_CODE = '''
import os, time, torch
from torch.utils.data import DataLoader, Dataset

class DecodeDataset(Dataset):
    def __len__(self):
        return 64
    def __getitem__(self, i):
        if i == 21:
            time.sleep(1.0)
            os._exit(3)          # a native decoder library calling exit() inside the worker
        return torch.randn(8)

if __name__ == "__main__":
    for step, batch in enumerate(DataLoader(DecodeDataset(), batch_size=4, num_workers=2)):
        print(f"step {step} batch mean {batch.mean().item():+.4f}", flush=True)
'''

_WORKER_SIGKILL_DDP = _DDP_HEAD + '''
import signal, time
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

class TokenDataset(Dataset):
    def __len__(self):
        return 512
    def __getitem__(self, i):
        if dist_rank == 1 and i > 300:
            time.sleep(1.0)
            os.kill(os.getpid(), signal.SIGKILL)
        return torch.randn(32), torch.randn(1)

dist_rank = rank
model = nn.parallel.DistributedDataParallel(nn.Linear(32, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = DataLoader(TokenDataset(), batch_size=16, num_workers=2,
                    sampler=DistributedSampler(TokenDataset(), shuffle=False))
for step, (x, y) in enumerate(loader):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"[train] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# --------------------------------------------------------------------------
# pytorch/dataloader-insufficient-shm
# --------------------------------------------------------------------------
_WORKER_SIGBUS = '''
import os, signal, time, torch
from torch.utils.data import DataLoader, Dataset

class ImageDataset(Dataset):
    def __len__(self):
        return 512
    def __getitem__(self, i):
        if i == 45:
            # a worker touching a /dev/shm page the tmpfs cannot back gets SIGBUS
            time.sleep(1.0)
            os.kill(os.getpid(), signal.SIGBUS)
        return torch.randn(3, 32, 32), i % 10

if __name__ == "__main__":
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 10))
    loader = DataLoader(ImageDataset(), batch_size=16, num_workers=4, pin_memory=False)
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        print(f"step {step:03d} loss {loss.item():.3f}", flush=True)
'''

_WORKER_SIGBUS_DDP = _DDP_HEAD + '''
import signal, time
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

class FrameDataset(Dataset):
    def __len__(self):
        return 256
    def __getitem__(self, i):
        if i == 70:
            time.sleep(1.0)
            os.kill(os.getpid(), signal.SIGBUS)
        return torch.randn(3, 16, 16)

ds = FrameDataset()
model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Flatten(), nn.Linear(768, 1)))
loader = DataLoader(ds, batch_size=8, num_workers=2, sampler=DistributedSampler(ds, shuffle=False))
for step, x in enumerate(loader):
    model(x).mean().backward()
    print(f"rank {rank} step {step}", flush=True)
dist.destroy_process_group()
'''

# a bare SIGBUS: the rank itself dies of signal 7 and torch prints none of its shm text, only
# torchrun's summary.  The signal is real (the rank sends it to itself); it stands for a write into a
# /dev/shm page the tmpfs cannot back, not for a measured shm exhaustion.
_RANK_SIGBUS = '''
import os, signal, torch

model = torch.nn.Linear(64, 8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    loss = model(torch.randn(32, 64)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
    if step == 2:
        os.kill(os.getpid(), signal.SIGBUS)
'''

# --------------------------------------------------------------------------
# pytorch/cant-pickle-local-object
# --------------------------------------------------------------------------
_PICKLE_LAMBDA = '''
import torch
from torch.utils.data import DataLoader, Dataset

class CsvDataset(Dataset):
    def __init__(self, rows, transform):
        self.rows, self.transform = rows, transform
    def __len__(self):
        return len(self.rows)
    def __getitem__(self, i):
        return self.transform(self.rows[i])

def build_loader():
    scale = 0.5
    ds = CsvDataset([torch.randn(4) for _ in range(64)], transform=lambda r: r * scale)
    return DataLoader(ds, batch_size=8, num_workers=2, multiprocessing_context="spawn")

if __name__ == "__main__":
    for batch in build_loader():
        print(batch.shape)
'''

_PICKLE_LOCAL_CLASS_DDP = _DDP_HEAD + '''
from torch.utils.data import DataLoader, Dataset

def make_dataset(n):
    class RandomPairs(Dataset):
        def __len__(self):
            return n
        def __getitem__(self, i):
            return torch.randn(8), torch.randn(1)
    return RandomPairs()

model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1))
loader = DataLoader(make_dataset(128), batch_size=16, num_workers=2,
                    multiprocessing_context="spawn", persistent_workers=True)
for x, y in loader:
    nn.functional.mse_loss(model(x), y).backward()
dist.destroy_process_group()
'''

_PICKLE_MAIN_GUARD = '''
import torch
from torch.utils.data import DataLoader, Dataset

if __name__ == "__main__":
    # defined under the main guard: a spawned worker re-imports this file as
    # __mp_main__ without running this block, so it cannot find the class
    class PatchDataset(Dataset):
        def __len__(self):
            return 40
        def __getitem__(self, i):
            return torch.full((2, 2), float(i))

    loader = DataLoader(PatchDataset(), batch_size=4, num_workers=2, multiprocessing_context="spawn")
    for step, batch in enumerate(loader):
        print(step, batch.sum().item())
'''

# The same code as a notebook cell: run through `python -c`, so __main__ is a
# built-in module the spawned worker cannot import.
_PICKLE_NOTEBOOK = r'''
import subprocess, sys
cell = """
import torch
from torch.utils.data import DataLoader, Dataset
class NotebookDataset(Dataset):
    def __len__(self):
        return 32
    def __getitem__(self, i):
        return torch.randn(4)
loader = DataLoader(NotebookDataset(), batch_size=8, num_workers=2, multiprocessing_context="spawn")
for b in loader:
    print(b.shape)
"""
sys.exit(subprocess.call([sys.executable, "-c", cell]))
'''

# --------------------------------------------------------------------------
# pytorch/state-dict-module-prefix
# --------------------------------------------------------------------------
_SD_DDP = _DDP_HEAD + '''
def build():
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

ddp = nn.parallel.DistributedDataParallel(build())
for _ in range(2):
    ddp(torch.randn(8, 16)).sum().backward()
if rank == 0:
    torch.save({"model": ddp.state_dict(), "step": 2}, "ckpt.pt")
dist.barrier()
# evaluation: load the checkpoint into a plain (unwrapped) model
ckpt = torch.load("ckpt.pt", map_location="cpu")
model = build()
model.load_state_dict(ckpt["model"])
dist.destroy_process_group()
'''

_SD_COMPILE = '''
import torch, torch.nn as nn

class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(20, 64), nn.GELU())
        self.head = nn.Linear(64, 3)
    def forward(self, x):
        return self.head(self.encoder(x))

model = torch.compile(Classifier())      # wraps the module: keys gain "_orig_mod."
torch.save(model.state_dict(), "classifier.pt")
print("saved", list(model.state_dict())[:2])

fresh = Classifier()
fresh.load_state_dict(torch.load("classifier.pt"))
'''

_SD_DP_REVERSE = '''
import torch, torch.nn as nn

net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
torch.save(net.state_dict(), "backbone.pt")

# resuming: the model is wrapped *before* loading, the checkpoint was saved unwrapped
wrapped = nn.DataParallel(nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU()))
wrapped.load_state_dict(torch.load("backbone.pt"))
'''

# --------------------------------------------------------------------------
# pytorch/mat1-mat2-shape-mismatch
# --------------------------------------------------------------------------
_MM_CNN = '''
import torch, torch.nn as nn

class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(32 * 8 * 8, 10)   # written for 32x32 inputs
    def forward(self, x):
        x = self.features(x)
        return self.classifier(torch.flatten(x, 1))

model = SmallCNN()
print("32x32 ok:", model(torch.randn(2, 3, 32, 32)).shape)
images = torch.randn(64, 3, 64, 64)                     # the new dataset has 64x64 images
logits = model(images)
'''

_MM_DDP = _DDP_HEAD + '''
class Regressor(nn.Module):
    def __init__(self, n_features):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, 128), nn.ReLU(), nn.Linear(128, 1))
    def forward(self, x):
        return self.net(x)

model = nn.parallel.DistributedDataParallel(Regressor(n_features=40))
batch = torch.randn(32, 42)   # the feature pipeline now emits 42 columns
loss = model(batch).pow(2).mean()
loss.backward()
dist.destroy_process_group()
'''

# one rank's batch has another width (a bad shard): only rank 1 raises, rank 0 loses its peer
_MM_ONE_RANK = _DDP_HEAD + '''
model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    width = 63 if (rank == 1 and step == 1) else 64   # shard 7 of rank 1 lost a column
    batch = torch.randn(16, width)
    loss = model(batch).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

_MM_MATMUL = '''
import torch
q = torch.randn(4, 10, 64)
w = torch.randn(32, 64)
print("attention projection ...")
out = torch.matmul(q, w)    # forgot to transpose w
'''

# --------------------------------------------------------------------------
# pytorch/inplace-modified-for-gradient
# --------------------------------------------------------------------------
_INPLACE = '''
import torch, torch.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
    def forward(self, x):
        h = torch.sigmoid(self.fc(x))
        h += 1.0                # in-place on the output sigmoid saved for backward
        return h

model = Block()
out = model(torch.randn(4, 16))
out.sum().backward()
'''

_INPLACE_ANOMALY = '''
import torch, torch.nn as nn
torch.autograd.set_detect_anomaly(True)

class ResidualMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 8)
        self.act = nn.ReLU(inplace=True)
        self.fc2 = nn.Linear(8, 8)
    def forward(self, x):
        h = self.act(self.fc1(x))
        y = self.fc2(h)
        h.mul_(0.5)             # scales the activation fc2 saved for its weight gradient
        return y + h

loss = ResidualMLP()(torch.randn(3, 8)).pow(2).mean()
loss.backward()
'''

_INPLACE_DDP = _DDP_HEAD + '''
class Normalizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(24, 24)
    def forward(self, x):
        z = torch.exp(self.proj(x))
        z /= z.sum(dim=-1, keepdim=True)    # in-place divide of exp's output
        return z

model = nn.parallel.DistributedDataParallel(Normalizer())
for step in range(3):
    out = model(torch.randn(4, 24))
    loss = -(out.log() * torch.rand_like(out)).sum()
    loss.backward()
    print(f"rank {rank} step {step} loss {loss.item():.3f}")
dist.destroy_process_group()
'''

# --------------------------------------------------------------------------
# pytorch/backward-through-graph-twice
# --------------------------------------------------------------------------
_TWICE_RNN = '''
import torch, torch.nn as nn

rnn = nn.GRU(input_size=8, hidden_size=16, batch_first=True)
head = nn.Linear(16, 1)
opt = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)
hidden = torch.zeros(1, 4, 16)
for step in range(3):
    chunk = torch.randn(4, 20, 8)
    out, hidden = rnn(chunk, hidden)        # hidden keeps the previous chunk's graph
    loss = head(out[:, -1]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"chunk {step} loss {loss.item():.4f}")
'''

_TWICE_TWO_LOSSES = '''
import torch, torch.nn as nn

backbone = nn.Sequential(nn.Linear(10, 32), nn.Tanh())
cls_head, reg_head = nn.Linear(32, 3), nn.Linear(32, 1)
x = torch.randn(16, 10)
feats = backbone(x)
cls_loss = nn.functional.cross_entropy(cls_head(feats), torch.randint(0, 3, (16,)))
reg_loss = reg_head(feats).pow(2).mean()
cls_loss.backward()
reg_loss.backward()     # shares the backbone graph freed by the first backward
'''

_TWICE_DDP = _DDP_HEAD + '''
encoder = nn.Sequential(nn.Linear(12, 12), nn.Tanh())
memory = torch.zeros(2, 12)
for step in range(3):
    memory = encoder(torch.randn(2, 12) + memory)    # carried across steps without .detach()
    loss = memory.pow(2).sum()
    loss.backward()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# --------------------------------------------------------------------------
# pytorch/dtype-mismatch
# --------------------------------------------------------------------------
_DTYPE_LINEAR = '''
import torch, torch.nn as nn

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 2))
features = torch.randn(8, 32).to(torch.float16)     # features cached to disk as fp16
print("features", features.dtype, "weights", model[0].weight.dtype)
logits = model(features)
'''

_DTYPE_SCALAR_TYPE = '''
import torch

embeddings = torch.randn(6, 8)                       # float32 activations
projection = torch.randn(8, 3, dtype=torch.float16)  # loaded from an fp16 export
print("projecting", tuple(embeddings.shape), "with", projection.dtype)
scores = torch.einsum("ij,jk->ik", embeddings, projection)
'''

_DTYPE_HALF_KERNEL = '''
import torch, torch.nn.functional as F

def gaussian_kernel(size=5, sigma=1.0, dtype=torch.float16):
    ax = torch.arange(size, dtype=torch.float32) - size // 2
    g = torch.exp(-(ax ** 2) / (2 * sigma ** 2))
    k = (g[:, None] * g[None, :]) / g.sum() ** 2
    return k.to(dtype).expand(3, 1, size, size).contiguous()

images = torch.rand(4, 3, 32, 32)                 # float32 batch
blurred = F.conv2d(images, gaussian_kernel(), padding=2, groups=3)
'''

_DTYPE_CONV = '''
import torch, torch.nn as nn

conv = nn.Conv2d(3, 8, kernel_size=3)
img = torch.rand(1, 3, 24, 24, dtype=torch.bfloat16)
print("input", img.dtype)
out = conv(img)
'''

_DTYPE_DDP = _DDP_HEAD + '''
class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16, bias=False)
    def forward(self, x):
        return self.proj(x)

model = nn.parallel.DistributedDataParallel(Decoder().to(torch.float16))
x = torch.randn(4, 16)               # activations still float32
model(x).float().mean().backward()
dist.destroy_process_group()
'''

_DTYPE_BCE = '''
import numpy as np, torch, torch.nn as nn

labels = torch.from_numpy(np.array([1.0, 0.0, 1.0, 1.0]))   # numpy gives float64
probs = torch.sigmoid(nn.Linear(5, 1)(torch.randn(4, 5))).squeeze(1)
loss = nn.functional.binary_cross_entropy(probs, labels)
'''

# --------------------------------------------------------------------------
# pytorch/weights-only-load-failed
# --------------------------------------------------------------------------
_WO_CUSTOM = '''
import argparse, torch, torch.nn as nn

class TrainState:
    def __init__(self, epoch, best):
        self.epoch, self.best = epoch, best

args = argparse.Namespace(lr=3e-4, epochs=10)
model = nn.Linear(4, 2)
torch.save({"model": model.state_dict(), "state": TrainState(7, 0.913), "args": args}, "last.ckpt")
print("resuming from last.ckpt")
ckpt = torch.load("last.ckpt")
'''

_WO_NUMPY = '''
import numpy as np, torch

torch.save({"weights": torch.randn(3), "class_weights": np.array([0.2, 0.3, 0.5])}, "meta.pt")
meta = torch.load("meta.pt", map_location="cpu")
'''

_WO_DDP = _DDP_HEAD + '''
import argparse
cfg = argparse.Namespace(model="mlp", hidden=64)
if rank == 0:
    torch.save({"cfg": cfg, "model": nn.Linear(4, 4).state_dict()}, "resume.pt")
dist.barrier()
ckpt = torch.load("resume.pt", map_location="cpu")
dist.destroy_process_group()
'''

_WO_LFS = '''
import torch
# a checkpoint cloned without git-lfs: the file is the text pointer, not the weights
with open("pytorch_model.bin", "w") as f:
    f.write("version https://git-lfs.github.com/spec/v1\\n"
            "oid sha256:4f1c0a8e2d53b6f1e0c7d9a2b4e6f8a0c1d3e5f7a9b2c4d6e8f0a1b3c5d7e9f1\\n"
            "size 438007537\\n")
state = torch.load("pytorch_model.bin", map_location="cpu")
'''


# a GAN step that reuses the generator's output for the generator's loss after the discriminator's backward
_TWICE_GAN = '''
import torch, torch.nn as nn
torch.manual_seed(0)
netG = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
netD = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(netG.parameters()); opt_d = torch.optim.Adam(netD.parameters())
bce = nn.BCEWithLogitsLoss()
real = torch.randn(32, 4)
for step in range(2):
    fake = netG(torch.randn(32, 8))
    d_loss = bce(netD(real), torch.ones(32, 1)) + bce(netD(fake), torch.zeros(32, 1))
    opt_d.zero_grad(); d_loss.backward(); opt_d.step()
    g_loss = bce(netD(fake), torch.ones(32, 1))
    opt_g.zero_grad(); g_loss.backward(); opt_g.step()
    print(f"step {step} d_loss {d_loss.item():.3f} g_loss {g_loss.item():.3f}")
'''


def generate() -> None:
    tr2 = {"nproc_per_node": 2}

    # dataloader-worker-killed
    e = "pytorch/dataloader-worker-killed"
    _run(e, "worker-sigkill-direct", _WORKER_SIGKILL)
    _run(e, "worker-sigkill-tail", _WORKER_SIGKILL, keep="tail:6")
    _run(e, "worker-exit-code", _WORKER_EXIT_CODE)
    _run(e, "worker-sigkill-torchrun", _WORKER_SIGKILL_DDP, torchrun=tr2)

    # dataloader-insufficient-shm
    e = "pytorch/dataloader-insufficient-shm"
    _run(e, "worker-sigbus-direct", _WORKER_SIGBUS)
    _run(e, "worker-sigbus-torchrun", _WORKER_SIGBUS_DDP, torchrun=tr2)
    _run(e, "worker-sigbus-tail", _WORKER_SIGBUS, keep="tail:21")
    generate_bare_sigbus()

    # cant-pickle-local-object
    e = "pytorch/cant-pickle-local-object"
    _run(e, "lambda-transform-spawn", _PICKLE_LAMBDA)
    _run(e, "local-class-torchrun", _PICKLE_LOCAL_CLASS_DDP, torchrun=tr2)
    _run(e, "main-guard-class-spawn", _PICKLE_MAIN_GUARD)
    _run(e, "notebook-main-builtin", _PICKLE_NOTEBOOK)
    _run(e, "lambda-transform-tail", _PICKLE_LAMBDA, keep="tail:3")

    # state-dict-module-prefix
    e = "pytorch/state-dict-module-prefix"
    _run(e, "ddp-checkpoint-torchrun", _SD_DDP, torchrun=tr2)
    _run(e, "torch-compile-orig-mod", _SD_COMPILE)
    _run(e, "dataparallel-missing-module", _SD_DP_REVERSE)
    _run(e, "torch-compile-tail", _SD_COMPILE, keep="tail:4")

    # mat1-mat2-shape-mismatch
    e = "pytorch/mat1-mat2-shape-mismatch"
    _run(e, "cnn-flatten-direct", _MM_CNN)
    _run(e, "ddp-features-torchrun", _MM_DDP, torchrun=tr2)
    _run(e, "one-rank-odd-batch-torchrun", _MM_ONE_RANK, torchrun=tr2)
    _run(e, "matmul-tail", _MM_MATMUL, keep="tail:3")
    _run(e, "cpp-stacktrace", _MM_CNN, env={"TORCH_SHOW_CPP_STACKTRACES": "1"})

    # inplace-modified-for-gradient
    e = "pytorch/inplace-modified-for-gradient"
    _run(e, "sigmoid-iadd-direct", _INPLACE)
    _run(e, "anomaly-mode", _INPLACE_ANOMALY)
    _run(e, "ddp-torchrun", _INPLACE_DDP, torchrun=tr2)

    # backward-through-graph-twice
    e = "pytorch/backward-through-graph-twice"
    _run(e, "gan-generator-output-reused", _TWICE_GAN)
    _run(e, "rnn-hidden-not-detached", _TWICE_RNN)
    _run(e, "two-losses-tail", _TWICE_TWO_LOSSES, keep="tail:4")
    _run(e, "carried-state-torchrun", _TWICE_DDP, torchrun={**tr2, "tee": 3})

    # dtype-mismatch
    e = "pytorch/dtype-mismatch"
    _run(e, "linear-half-input", _DTYPE_LINEAR)
    _run(e, "linear-half-input-cpp-stacktrace", _DTYPE_LINEAR, env={"TORCH_SHOW_CPP_STACKTRACES": "1"})
    _run(e, "conv-half-kernel-weight-type", _DTYPE_HALF_KERNEL)
    _run(e, "einsum-scalar-type", _DTYPE_SCALAR_TYPE)
    _run(e, "conv-bfloat16-input", _DTYPE_CONV, keep="tail:2")
    _run(e, "half-model-torchrun", _DTYPE_DDP, torchrun=tr2)
    _run(e, "bce-float64-target", _DTYPE_BCE)

    # weights-only-load-failed
    e = "pytorch/weights-only-load-failed"
    _run(e, "custom-class-namespace", _WO_CUSTOM)
    _run(e, "numpy-array-tail", _WO_NUMPY, keep="tail:8")
    _run(e, "resume-torchrun", _WO_DDP, torchrun=tr2)
    _run(e, "git-lfs-pointer", _WO_LFS)


def generate_bare_sigbus() -> None:
    """A rank ended by SIGBUS under torchrun, with no mapped-file word in the log."""
    _run("pytorch/dataloader-insufficient-shm", "bare-sigbus-torchrun", _RANK_SIGBUS,
         torchrun={"nproc_per_node": 1})
