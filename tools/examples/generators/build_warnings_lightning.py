"""Real example logs: pip build isolation hiding torch, the multiprocessing resource
tracker's leaked-semaphore warning, the use_reentrant and torch.cuda.amp deprecation warnings, and
Lightning's ModelCheckpoint / EarlyStopping monitor errors.

Needs torch (CPU build) and lightning / pytorch_lightning in the same venv.  Nothing is downloaded:
the isolated pip build gets setuptools from the wheel bundled with the interpreter (ensurepip).
"""
from __future__ import annotations

from generate import run_script

# ------------------------------------------------------------------------ pip: build isolation hides torch
_BUILD_PROJECT_SETUP = '''\
import os
from setuptools import setup
import torch
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

ext = CUDAExtension if torch.cuda.is_available() else CppExtension
setup(
    name="fused_rmsnorm",
    version="0.3.1",
    packages=["fused_rmsnorm"],
    ext_modules=[ext("fused_rmsnorm._C", ["csrc/rmsnorm.cpp"])],
    cmdclass={"build_ext": BuildExtension},
)
'''

_BUILD_PYPROJECT = '''\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
'''


def _pip_driver(pip_args: list[str], banner: str) -> str:
    """A script that lays out a small CUDA-extension project and pip-installs it offline (isolated build)."""
    files = {
        "setup.py": _BUILD_PROJECT_SETUP,
        "pyproject.toml": _BUILD_PYPROJECT,
        "fused_rmsnorm/__init__.py": "from . import _C\n",
        "csrc/rmsnorm.cpp": "#include <torch/extension.h>\n",
        "README.md": "fused RMSNorm kernels\n",
    }
    return (
        "import ensurepip, os, pathlib, shutil, subprocess, sys\n"
        f"for name, text in {files!r}.items():\n"
        "    p = pathlib.Path('fused-rmsnorm') / name; p.parent.mkdir(parents=True, exist_ok=True); p.write_text(text)\n"
        "wheels = pathlib.Path('wheels'); wheels.mkdir()\n"
        "for w in (pathlib.Path(ensurepip.__file__).parent / '_bundled').glob('setuptools-*.whl'):\n"
        "    shutil.copy(w, wheels)\n"
        "import torch\n"
        f"print({banner!r}.format(torch.__version__), flush=True)\n"
        "os.chdir('fused-rmsnorm')\n"
        f"argv = [sys.executable, '-m', 'pip', *{pip_args!r}]\n"
        "print('$ pip ' + ' '.join(argv[3:]), flush=True)\n"
        "env = {**os.environ, 'PIP_DISABLE_PIP_VERSION_CHECK': '1', 'PIP_NO_INDEX': '1', 'PIP_FIND_LINKS': '../wheels'}\n"
        "sys.exit(subprocess.run(argv, env=env, stderr=subprocess.STDOUT).returncode)\n"
    )


# ------------------------------------------------------------------- multiprocessing: leaked semaphores
LEAK_SPAWN_LOADER_KILLED = r'''
import os, signal, time
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Shards(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(64, generator=g), i % 10


def main():
    loader = DataLoader(Shards(), batch_size=64, num_workers=2, multiprocessing_context="spawn",
                        persistent_workers=True)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(3):
        for step, (x, y) in enumerate(loader):
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
            if step % 20 == 0:
                print(f"epoch {epoch} step {step:3d} loss {loss.item():.4f}", flush=True)
            if epoch == 1 and step == 41:
                os.kill(os.getpid(), signal.SIGKILL)   # what the host's OOM killer does


if __name__ == "__main__":
    main()
'''

LEAK_TORCHRUN_TARGET = r'''
import os, time
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    n = 256
    labels = torch.randint(0, 6, (n,))
    if rank == 1:
        labels[37] = 7                       # one sample of this shard carries a label the head does not have
    ds = TensorDataset(torch.randn(n, 32), labels)
    loader = DataLoader(ds, batch_size=32, num_workers=1, multiprocessing_context="spawn")
    model = nn.parallel.DistributedDataParallel(nn.Linear(32, 6))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

LEAK_SEGFAULT_POOL = r'''
import ctypes, faulthandler, multiprocessing as mp, sys

faulthandler.enable()


def featurize(i):
    return sum((i * k) % 7 for k in range(1000))


def decode_frames(buf_addr, n):
    # calls into a native decoder; a bad pointer crashes the interpreter
    return ctypes.string_at(buf_addr, n)


def main():
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        feats = pool.map(featurize, range(64))
        print(f"featurized {len(feats)} clips", flush=True)
        print("decoding clip 65 ...", flush=True)
        decode_frames(16, 4096)


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------------- checkpoint use_reentrant
REENTRANT_PLAIN = r'''
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Net(nn.Module):
    def __init__(self, d=64, depth=4, grad_ckpt=True):
        super().__init__()
        self.emb = nn.Linear(16, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(depth))
        self.head = nn.Linear(d, 1)
        self.grad_ckpt = grad_ckpt

    def forward(self, x):
        h = self.emb(x)
        for blk in self.blocks:
            h = checkpoint(blk, h) if self.grad_ckpt and self.training else blk(h)
        return self.head(h).squeeze(-1)


torch.manual_seed(0)
model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(256, 16), torch.randn(256)
for step in range(1, 31):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        print(f"step {step} mse {loss.item():.4f}")
print("done")
'''

REENTRANT_TORCHRUN_SEQUENTIAL = r'''
import os
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.checkpoint import checkpoint_sequential

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
trunk = nn.Sequential(*[nn.Sequential(nn.Linear(32, 32), nn.Tanh()) for _ in range(8)])
model = nn.parallel.DistributedDataParallel(nn.Sequential(trunk, nn.Linear(32, 2)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(1, 4):
    x = torch.randn(64, 32, requires_grad=True)
    h = checkpoint_sequential(model.module[0], 4, x)
    out = model.module[1](h)
    loss = out.pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

REENTRANT_FROZEN_EMBEDDING = r'''
import logging
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("finetune")


class Encoder(nn.Module):
    def __init__(self, vocab=1000, d=64, depth=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(d, 4, 128, batch_first=True) for _ in range(depth))
        self.cls = nn.Linear(d, 3)

    def forward(self, ids):
        h = self.embed(ids)
        for layer in self.layers:
            h = checkpoint(layer, h)
        return self.cls(h[:, 0])


torch.manual_seed(0)
model = Encoder()
model.embed.weight.requires_grad_(False)          # keep pretrained embeddings frozen
for layer in model.layers:                         # linear probe first: freeze the encoder too
    layer.requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
log.info("trainable params: %d", sum(p.numel() for p in trainable))
opt = torch.optim.AdamW(trainable, lr=3e-4)
ids = torch.randint(0, 1000, (8, 24))
labels = torch.randint(0, 3, (8,))
model.cls.requires_grad_(False)                    # bug: the head is frozen as well
log.info("***** Running training *****")
loss = nn.functional.cross_entropy(model(ids), labels)
loss.backward()
'''

# ------------------------------------------------------------------------------- torch.cuda.amp API
AMP_GPU_SCRIPT_ON_CPU = r'''
import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"device: {device}")
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=(device == "cuda"))
x = torch.randn(128, 32, device=device)
y = torch.randint(0, 4, (128,), device=device)
for epoch in range(1, 4):
    with torch.cuda.amp.autocast(enabled=(device == "cuda")):
        loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(f"epoch {epoch}: loss={loss.item():.4f}")
'''

AMP_CPU_BF16_DTYPE = r'''
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(48, 96), nn.GELU(), nn.Linear(96, 96))
        self.proj = nn.Parameter(torch.randn(96, 10) * 0.02)

    def forward(self, x):
        with torch.cpu.amp.autocast(dtype=torch.bfloat16):
            feats = self.backbone(x)
        return feats @ self.proj          # outside autocast: bf16 activations, fp32 weight


torch.manual_seed(0)
model = Head()
print("running bf16 autocast on CPU")
logits = model(torch.randn(16, 48))
'''

AMP_TORCHRUN_CUSTOM_FWD = r'''
import os
import torch
import torch.distributed as dist
from torch import nn


class ScaledGelu(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return nn.functional.gelu(x) * scale

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = nn.functional.gelu(x) * ctx.scale
            (gx,) = torch.autograd.grad(y, x, g)
        return gx, None


dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(rank)
lin = nn.parallel.DistributedDataParallel(nn.Linear(16, 16))
opt = torch.optim.SGD(lin.parameters(), lr=0.01)
scaler = torch.cuda.amp.GradScaler(enabled=False)
for step in range(1, 3):
    out = ScaledGelu.apply(lin(torch.randn(8, 16)), 0.5)
    loss = out.pow(2).mean()
    opt.zero_grad(); scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
    if rank == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

# ---------------------------------------------------------------- Lightning: monitored metric missing
LIGHTNING_CKPT_MONITOR = r'''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint


class LitRegressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x).squeeze(-1), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("valid_loss", nn.functional.mse_loss(self.net(x).squeeze(-1), y))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def loader(n, shuffle):
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n, 8, generator=g)
    return DataLoader(TensorDataset(x, x.sum(-1)), batch_size=32, shuffle=shuffle)


if __name__ == "__main__":
    L.seed_everything(7)
    ckpt = ModelCheckpoint(dirpath="checkpoints", monitor="val_loss", mode="min", save_top_k=2)
    trainer = L.Trainer(max_epochs=3, accelerator="cpu", callbacks=[ckpt], enable_progress_bar=False,
                        log_every_n_steps=2)
    trainer.fit(LitRegressor(), loader(256, True), loader(64, False))
'''

LIGHTNING_EARLYSTOP_NO_VALSTEP = r'''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import pytorch_lightning as pl
from pytorch_lightning.callbacks import EarlyStopping


class Classifier(pl.LightningModule):
    def __init__(self, n_classes=5):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.log("train_loss", loss, on_epoch=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


def make(n):
    return DataLoader(TensorDataset(torch.randn(n, 20), torch.randint(0, 5, (n,))), batch_size=16)


if __name__ == "__main__":
    pl.seed_everything(0)
    trainer = pl.Trainer(max_epochs=20, accelerator="cpu", logger=False, enable_checkpointing=False,
                         callbacks=[EarlyStopping(monitor="val_loss", patience=3)], enable_progress_bar=False)
    trainer.fit(Classifier(), train_dataloaders=make(128), val_dataloaders=make(32))
'''

LIGHTNING_DDP_CPU_MONITOR = r'''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import lightning as L
from lightning.pytorch.callbacks import ModelCheckpoint


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 3))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.body(x), y)
        self.log("train/loss", loss, sync_dist=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        acc = (self.body(x).argmax(-1) == y).float().mean()
        self.log("val_acc", acc, sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-2)


def dl(n, seed):
    g = torch.Generator().manual_seed(seed)
    return DataLoader(TensorDataset(torch.randn(n, 12, generator=g), torch.randint(0, 3, (n,), generator=g)),
                      batch_size=16)


if __name__ == "__main__":
    L.seed_everything(1)
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=2, strategy="ddp",
                        callbacks=[ModelCheckpoint(monitor="val/acc", mode="max")],
                        enable_progress_bar=False, logger=False)
    trainer.fit(Net(), dl(96, 0), dl(32, 1))
'''


def generate() -> None:
    iso = "install/build-isolation-torch-missing"
    run_script(iso, "pip-install-local-cuda-extension",
               _pip_driver(["install", "."], "torch {} is installed; building the fused RMSNorm extension"))
    run_script(iso, "pip-editable-install-short",
               _pip_driver(["install", "-e", "."], "torch {} ok"), keep="tail:22")

    leak = "python/leaked-semaphore-warning"
    run_script(leak, "spawn-dataloader-main-killed", LEAK_SPAWN_LOADER_KILLED, timeout=240)
    run_script(leak, "torchrun-rank-failed-sigterm", LEAK_TORCHRUN_TARGET, torchrun={"nproc_per_node": 2},
               timeout=240)
    run_script(leak, "spawn-pool-segfault", LEAK_SEGFAULT_POOL, timeout=120)

    ck = "pytorch/checkpoint-use-reentrant-warning"
    run_script(ck, "plain-training-loop", REENTRANT_PLAIN)
    run_script(ck, "torchrun-checkpoint-sequential", REENTRANT_TORCHRUN_SEQUENTIAL, torchrun={"nproc_per_node": 2})
    run_script(ck, "before-does-not-require-grad", REENTRANT_FROZEN_EMBEDDING)

    amp = "pytorch/amp-api-deprecated-warning"
    run_script(amp, "gpu-script-on-cpu", AMP_GPU_SCRIPT_ON_CPU)
    run_script(amp, "cpu-autocast-then-dtype-error", AMP_CPU_BF16_DTYPE)
    run_script(amp, "torchrun-custom-fwd", AMP_TORCHRUN_CUSTOM_FWD, torchrun={"nproc_per_node": 2})

    mon = "lightning/monitored-metric-not-found"
    run_script(mon, "modelcheckpoint-valid-loss-name", LIGHTNING_CKPT_MONITOR, timeout=240)
    run_script(mon, "earlystopping-no-validation-step", LIGHTNING_EARLYSTOP_NO_VALSTEP, timeout=240)
    run_script(mon, "ddp-cpu-two-ranks-slash-name", LIGHTNING_DDP_CPU_MONITOR, timeout=300)
