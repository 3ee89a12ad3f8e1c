"""Real example logs: an empty dataset reaching RandomSampler, random_split lengths,
tensors whose storage was freed (FSDP, offloading), GradScaler with no gradients, torch.save on a
full disk, and the DataLoader worker-count warning.

Needs torch (CPU build), transformers, peft and datasets in the same venv.  Nothing is downloaded:
models are built from tiny configs in code.  The disk-full logs use /dev/full (every write fails with
ENOSPC) or RLIMIT_FSIZE (writes beyond the limit are cut short), so no file system has to be filled.
The worker-count warning is provoked by pinning the process to one CPU (os.sched_setaffinity).
"""
from __future__ import annotations

import os

from generate import run_script as _run_script

_ONLY = os.environ.get("BATCH_B_ONLY", "")   # optional: regenerate only the logs whose entry id contains this


def run_script(entry_id: str, name: str, script: str, **kw) -> None:
    if _ONLY and _ONLY not in f"{entry_id}/{name}":
        return
    _run_script(entry_id, name, script, **kw)

TR2 = {"nproc_per_node": 2}
_HF_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
           "TOKENIZERS_PARALLELISM": "false", "TRANSFORMERS_VERBOSITY": "info"}

# ------------------------------------------------------------ pytorch/sampler-num-samples-zero ----
SAMPLER_GLOB_WRONG_DIR = r'''
import glob, os
import torch
from torch.utils.data import DataLoader, Dataset

class ShardDataset(Dataset):
    def __init__(self, root):
        self.files = sorted(glob.glob(os.path.join(root, "*.pt")))
        print(f"found {len(self.files)} shards under {root}", flush=True)
    def __len__(self):
        return len(self.files)
    def __getitem__(self, i):
        return torch.load(self.files[i])

os.makedirs("data/train", exist_ok=True)
for i in range(4):
    torch.save({"x": torch.randn(8), "y": i % 2}, f"data/train/shard_{i:03d}.pt")

train_ds = ShardDataset("data/processed/train")     # the preprocessing step writes to data/train
loader = DataLoader(train_ds, batch_size=2, shuffle=True, num_workers=0)
for batch in loader:
    pass
'''

SAMPLER_TRAINER_FILTER = r'''
import logging, sys
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                    stream=sys.stdout)
log = logging.getLogger("finetune")
import torch
from datasets import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments, set_seed

set_seed(0)
rows = {"input_ids": [[(i * 7 + j) % 250 + 1 for j in range(40 + i % 30)] for i in range(200)]}
raw = Dataset.from_dict(rows)
log.info("loaded %d examples", len(raw))
MAX_LEN = 32   # was 512 before the config refactor; min length is 40 tokens
train = raw.filter(lambda ex: len(ex["input_ids"]) <= MAX_LEN)
train = train.map(lambda ex: {"labels": ex["input_ids"]})
log.info("kept %d examples with length <= %d", len(train), MAX_LEN)

model = GPT2LMHeadModel(GPT2Config(vocab_size=256, n_positions=128, n_embd=32, n_layer=2, n_head=2))
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, num_train_epochs=1,
                         report_to=[], use_cpu=True, logging_steps=5, save_strategy="no")
trainer = Trainer(model=model, args=args, train_dataset=train)
trainer.train()
'''

SAMPLER_RANK_SHARD = r'''
import os, torch, torch.distributed as dist
from torch.utils.data import DataLoader, Dataset

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
os.makedirs("shards", exist_ok=True)
if rank == 0:
    torch.save([torch.randn(16) for _ in range(64)], "shards/part-00000.pt")
dist.barrier()

class ShardFiles(Dataset):
    def __init__(self, files):
        self.items = [x for f in files for x in torch.load(f)]
    def __len__(self):
        return len(self.items)
    def __getitem__(self, i):
        return self.items[i]

files = sorted(os.listdir("shards"))
my_files = [os.path.join("shards", f) for f in files[rank::world]]   # one file, two ranks
print(f"[rank {rank}] {len(my_files)} shard file(s)", flush=True)
loader = DataLoader(ShardFiles(my_files), batch_size=8, shuffle=True)
for step, x in enumerate(loader):
    if step == 0:
        print(f"[rank {rank}] first batch {tuple(x.shape)}", flush=True)
dist.destroy_process_group()
'''

SAMPLER_WEIGHTED_FLOAT = r'''
import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

labels = torch.randint(0, 4, (5000,))
counts = torch.bincount(labels, minlength=4).float()
weights = (1.0 / counts)[labels]
ds = TensorDataset(torch.randn(5000, 12), labels)
sampler = WeightedRandomSampler(weights, num_samples=len(ds) * 0.5, replacement=True)  # half an epoch
loader = DataLoader(ds, batch_size=64, sampler=sampler)
print(next(iter(loader))[1][:8])
'''

# --------------------------------------------------------------- pytorch/random-split-lengths ----
SPLIT_INT_ROUNDING = r'''
import torch
from torch.utils.data import TensorDataset, random_split

ds = TensorDataset(torch.randn(1001, 20), torch.randint(0, 3, (1001,)))
n = len(ds)
train_ds, val_ds = random_split(ds, [int(0.8 * n), int(0.2 * n)],
                                generator=torch.Generator().manual_seed(42))
print(len(train_ds), len(val_ds))
'''

SPLIT_FRACTIONS_DATAMODULE = r'''
import logging, sys
logging.basicConfig(level=logging.INFO, format="[%(asctime)s][%(name)s][%(levelname)s] - %(message)s",
                    stream=sys.stdout)
log = logging.getLogger("datamodule")
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split

class CsvDataModule:
    def __init__(self, n_rows, split=(0.8, 0.1), batch_size=32):
        self.n_rows, self.split, self.batch_size = n_rows, split, batch_size
    def setup(self):
        full = TensorDataset(torch.randn(self.n_rows, 6), torch.randn(self.n_rows))
        log.info("full dataset: %d rows, split=%s", len(full), list(self.split))
        self.train, self.val = random_split(full, list(self.split))   # the rest was meant for test
        log.info("train=%d val=%d", len(self.train), len(self.val))

dm = CsvDataModule(n_rows=2400)
dm.setup()
'''

SPLIT_HARDCODED_TORCHRUN = r'''
import os, torch, torch.distributed as dist
from torch.utils.data import TensorDataset, random_split

dist.init_process_group("gloo")
rank = dist.get_rank()
TRAIN_VAL = [45000, 5000]                      # CIFAR-style constants from the original recipe
x = torch.randn(49800, 4)                      # 200 corrupt images were dropped during preprocessing
full = TensorDataset(x, torch.zeros(len(x)))
if rank == 0:
    print(f"dataset size {len(full)}, split {TRAIN_VAL}", flush=True)
g = torch.Generator().manual_seed(0)           # same split on every rank
train_ds, val_ds = random_split(full, TRAIN_VAL, generator=g)
dist.destroy_process_group()
'''

# -------------------------------------------------------- pytorch/tensor-data-not-allocated ----
DATA_FSDP_ENCODE = r'''
import os, torch, torch.distributed as dist, torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)

class TinyCLIPText(nn.Module):
    """CLIP-style: raw projection matrices multiplied without a Linear (x @ W)."""
    def __init__(self, d_in=24, width=32, embed=16):
        super().__init__()
        self.token_mix = nn.Parameter(torch.randn(d_in, width) * 0.02)
        self.text_projection = nn.Parameter(torch.randn(width, embed) * 0.02)
    def encode_text(self, feats):
        return torch.tanh(feats @ self.token_mix) @ self.text_projection
    def forward(self, feats):
        return self.encode_text(feats)

model = FSDP(TinyCLIPText(), device_id=torch.device("cpu"), use_orig_params=False)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(2):
    loss = model(torch.randn(8, 24)).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)

# retrieval eval: embed the captions with the unwrapped model (bypasses FSDP's unshard)
with torch.no_grad():
    text_emb = model.module.encode_text(torch.randn(4, 24))
print(text_emb.shape)
dist.destroy_process_group()
'''

DATA_OFFLOAD_HELPER = r'''
import torch, torch.nn as nn

class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Parameter(torch.randn(64, 10) * 0.05)
    def forward(self, h):
        return h @ self.proj

def offload_(module, store):
    """Free parameter memory between phases; values kept in `store` (pinned CPU copies on GPU boxes)."""
    for name, p in module.named_parameters():
        store[name] = p.detach().clone()
        p.data.untyped_storage().resize_(0)

def reload_(module, store):
    for name, p in module.named_parameters():
        p.data.untyped_storage().resize_(p.numel() * p.element_size())
        p.data.copy_(store[name])

head, cache = Head(), {}
feats = torch.randn(32, 64)
print("train logits", head(feats).shape, flush=True)
offload_(head, cache)
print("offloaded head for the generation phase", flush=True)
# ... generation phase ...
val_logits = head(torch.randn(16, 64))       # reload_(head, cache) was never called on this path
print(val_logits.argmax(-1))
'''

DATA_FSDP_LINEAR_SPAWN = r'''
import logging, os, sys
import torch, torch.distributed as dist, torch.multiprocessing as mp, torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

def run(rank, world):
    logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                        format=f"%(asctime)s [rank{rank}] %(levelname)s %(message)s")
    log = logging.getLogger("probe")
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ["PORT"])
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = FSDP(nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4)),
                 device_id=torch.device("cpu"), use_orig_params=False)
    loss = model(torch.randn(8, 16)).logsumexp(-1).mean()
    loss.backward()
    log.info("loss %.4f", loss.item())
    # linear probe on the backbone features, outside the FSDP forward
    feats = model.module[0](torch.randn(8, 16))
    log.info("features %s", tuple(feats.shape))
    dist.destroy_process_group()

if __name__ == "__main__":
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); os.environ["PORT"] = str(s.getsockname()[1])
    mp.spawn(run, args=(2,), nprocs=2)
'''

# ----------------------------------------------------------------- pytorch/amp-no-inf-checks ----
AMP_MODEL_RELOADED = r'''
import torch, torch.nn as nn

def build():
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))

torch.manual_seed(0)
model = build()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
scaler = torch.amp.GradScaler("cpu")

# resume: load weights into a fresh model ... after the optimizer was created
state = {k: v.clone() for k, v in build().state_dict().items()}
model = build()
model.load_state_dict(state)

for step in range(3):
    x, y = torch.randn(16, 20), torch.randint(0, 5, (16,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step} loss {loss.item():.4f}")
'''

AMP_PEFT_OPTIMIZER_FIRST = r'''
import logging, sys
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stdout)
log = logging.getLogger("lora")
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64,
                                     num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4))
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)       # built on the base model ...
model = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
model.print_trainable_parameters()                                # ... which LoRA has now frozen
scaler = torch.amp.GradScaler("cpu")
ids = torch.randint(0, 128, (2, 16))
for step in range(2):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(input_ids=ids, labels=ids).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    log.info("step %d loss %.4f", step, loss.item())
'''

AMP_GAN_TORCHRUN = r'''
import os, torch, torch.nn as nn, torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(rank)
G = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
D = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
scaler = torch.amp.GradScaler("cpu")
bce = nn.BCEWithLogitsLoss()

N_CRITIC = 2                     # train D every second iteration
for it in range(3):
    real, z = torch.randn(32, 16), torch.randn(32, 8)
    if it % N_CRITIC == 0:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            d_loss = bce(D(real), torch.ones(32, 1)) + bce(D(G(z).detach()), torch.zeros(32, 1))
        scaler.scale(d_loss).backward()
    for p in D.parameters():
        p.requires_grad_(False)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        g_loss = bce(D(G(z)), torch.ones(32, 1))
    scaler.scale(g_loss).backward()
    for p in D.parameters():
        p.requires_grad_(True)
    scaler.step(opt_g)
    scaler.step(opt_d)           # stepped every iteration, but D only got gradients every N_CRITIC-th
    scaler.update()
    opt_g.zero_grad(set_to_none=True)
    opt_d.zero_grad(set_to_none=True)
    print(f"[rank {rank}] it {it} d={d_loss.item():.3f} g={g_loss.item():.3f}", flush=True)
dist.destroy_process_group()
'''

# ---------------------------------------------------- pytorch/checkpoint-write-failed-disk-full ----
CKPT_QUOTA_RLIMIT = r'''
import os, resource, signal, time
import torch, torch.nn as nn
# emulate a nearly full quota: writes past 3 MB are cut short
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (3_000_000, 3_000_000))

model = nn.Sequential(*[nn.Linear(256, 256) for _ in range(6)])
opt = torch.optim.Adam(model.parameters())
model(torch.randn(4, 256)).sum().backward(); opt.step()
os.makedirs("checkpoints", exist_ok=True)
for epoch in range(3):
    path = f"checkpoints/epoch_{epoch:03d}.pt"
    print(f"{time.strftime('%H:%M:%S')} saving {path}", flush=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict()}, path)
'''

CKPT_FILE_OBJECT_DEV_FULL = r'''
import torch, torch.nn as nn
model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
model(torch.randn(1, 3, 32, 32))
print("epoch 12: val_acc=0.8731 (best) -> writing best.pt", flush=True)
with open("/dev/full", "wb") as f:          # stands in for best.pt on a full volume
    torch.save(model.state_dict(), f)
'''

CKPT_TORCHRUN_SYMLINK = r'''
import os, torch, torch.nn as nn, torch.distributed as dist
dist.init_process_group("gloo")
rank = dist.get_rank()
model = nn.Sequential(nn.Embedding(1000, 64), nn.Linear(64, 1000))
os.makedirs("runs/exp7", exist_ok=True)
if rank == 0 and not os.path.lexists("runs/exp7/last.pt"):
    os.symlink("/dev/full", "runs/exp7/last.pt")   # every write to this file fails with ENOSPC
dist.barrier()
if rank == 0:
    print("step 2000: saving runs/exp7/last.pt", flush=True)
    torch.save({"step": 2000, "model": model.state_dict()}, "runs/exp7/last.pt")
dist.barrier()
dist.destroy_process_group()
'''

# -------------------------------------------------- pytorch/dataloader-worker-count-warning ----
WORKERS_PLAIN_OK = r'''
import os, torch
from torch.utils.data import DataLoader, TensorDataset
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})   # a 1-CPU container / Slurm task
ds = TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,)))
loader = DataLoader(ds, batch_size=64, shuffle=True, num_workers=3)
model = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    total = 0.0
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step(); total += loss.item()
    print(f"epoch {epoch}: loss={total / len(loader):.4f}")
print("done")
'''

WORKERS_THEN_KEYERROR = r'''
import os, torch
from torch.utils.data import DataLoader, Dataset
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

class Records(Dataset):
    def __init__(self):
        self.rows = [{"image": torch.randn(3, 8, 8), "label": i % 10} for i in range(40)]
        self.rows[17] = {"image": torch.randn(3, 8, 8), "target": 7}   # one record from an older export
    def __len__(self):
        return len(self.rows)
    def __getitem__(self, i):
        r = self.rows[i]
        return r["image"], r["label"]

loader = DataLoader(Records(), batch_size=4, num_workers=2)
for step, (x, y) in enumerate(loader):
    print(f"step {step} batch {tuple(x.shape)}", flush=True)
'''

WORKERS_TORCHRUN = r'''
import os, torch, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
dist.init_process_group("gloo")
rank = dist.get_rank()
cpus = sorted(os.sched_getaffinity(0))
os.sched_setaffinity(0, {cpus[rank % len(cpus)]})       # one core per rank
ds = TensorDataset(torch.randn(128, 4), torch.randn(128))
loader = DataLoader(ds, batch_size=16, sampler=DistributedSampler(ds), num_workers=2)
n = sum(1 for _ in loader)
print(f"[rank {rank}] epoch 0 done, {n} batches", flush=True)
dist.destroy_process_group()
'''


def generate() -> None:
    e = "pytorch/sampler-num-samples-zero"
    run_script(e, "glob-wrong-directory", SAMPLER_GLOB_WRONG_DIR)
    run_script(e, "trainer-filter-removed-all", SAMPLER_TRAINER_FILTER, env=_HF_ENV, timeout=300)
    run_script(e, "torchrun-empty-rank-shard", SAMPLER_RANK_SHARD, torchrun=TR2)
    run_script(e, "weighted-sampler-float-num-samples", SAMPLER_WEIGHTED_FLOAT)

    e = "pytorch/random-split-lengths"
    run_script(e, "int-rounding-loses-one", SPLIT_INT_ROUNDING)
    run_script(e, "fractions-not-summing-to-one", SPLIT_FRACTIONS_DATAMODULE)
    run_script(e, "torchrun-hardcoded-lengths", SPLIT_HARDCODED_TORCHRUN, torchrun=TR2)

    e = "pytorch/tensor-data-not-allocated"
    run_script(e, "torchrun-fsdp-encode-outside-forward", DATA_FSDP_ENCODE, torchrun=TR2)
    run_script(e, "offload-helper-not-reloaded", DATA_OFFLOAD_HELPER)
    run_script(e, "mp-spawn-fsdp-linear-probe", DATA_FSDP_LINEAR_SPAWN)

    e = "pytorch/amp-no-inf-checks"
    run_script(e, "model-rebuilt-after-optimizer", AMP_MODEL_RELOADED)
    run_script(e, "peft-optimizer-before-lora", AMP_PEFT_OPTIMIZER_FIRST, env=_HF_ENV, timeout=300)
    run_script(e, "torchrun-gan-extra-step", AMP_GAN_TORCHRUN, torchrun=TR2)

    e = "pytorch/checkpoint-write-failed-disk-full"
    run_script(e, "quota-cut-short-unexpected-pos", CKPT_QUOTA_RLIMIT)
    run_script(e, "file-object-errno-28", CKPT_FILE_OBJECT_DEV_FULL)
    run_script(e, "torchrun-rank0-save", CKPT_TORCHRUN_SYMLINK, torchrun=TR2)

    e = "pytorch/dataloader-worker-count-warning"
    run_script(e, "one-cpu-training-ok", WORKERS_PLAIN_OK)
    run_script(e, "warning-then-worker-keyerror", WORKERS_THEN_KEYERROR)
    run_script(e, "torchrun-one-core-per-rank", WORKERS_TORCHRUN, torchrun=TR2)
