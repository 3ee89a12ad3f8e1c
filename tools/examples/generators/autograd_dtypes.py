"""Real example logs (autograd, dtype and loss-target errors) on a CPU-only machine.

- pytorch/half-not-implemented-cpu: torch 2.13 runs Linear/Conv/LayerNorm in float16 on the CPU, so the
  logs use kernels that still have no Half version there (cdist, ctc_loss, linalg_svd, rrelu).
- pytorch/numpy-on-tensor-requiring-grad, nll-loss-multi-target, cross-entropy-target-dtype,
  only-float-tensors-require-grad, clip-grad-norm-nonfinite: ordinary user mistakes, reproduced as a
  plain traceback, a torchrun (gloo) run, a Trainer/Lightning run, mp.spawn or a DataLoader loop.
- pytorch/grad-non-leaf-warning: the benign UserWarning, once followed by the real error, once in a run
  that finishes.
- pytorch/deterministic-algorithm-unavailable: max_unpool2d and put_ have no deterministic CPU kernel.

Nothing is downloaded: models and tokenizers are built from tiny configs in code.
"""
from __future__ import annotations

from generate import run_script

HALF = "pytorch/half-not-implemented-cpu"
NP_GRAD = "pytorch/numpy-on-tensor-requiring-grad"
MULTI = "pytorch/nll-loss-multi-target"
CE_DTYPE = "pytorch/cross-entropy-target-dtype"
FLOAT_RG = "pytorch/only-float-tensors-require-grad"
NONLEAF = "pytorch/grad-non-leaf-warning"
CLIP = "pytorch/clip-grad-norm-nonfinite"
DETERM = "pytorch/deterministic-algorithm-unavailable"

_HF_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false"}
_TR = {"nproc_per_node": 2}

# ------------------------------------------------------------------------------------ half on the CPU
HALF_CDIST = r'''
import torch
import torch.nn as nn

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"device={device}", flush=True)

encoder = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 32)).to(device).half()
encoder.eval()
gallery = torch.randn(20, 64, device=device, dtype=torch.float16)     # 20 reference items
queries = torch.randn(8, 64, device=device, dtype=torch.float16)

with torch.inference_mode():
    g = encoder(gallery)
    q = encoder(queries)
    print("embeddings", tuple(g.shape), g.dtype, flush=True)
    dist = torch.cdist(q, g)                  # k-NN retrieval
    top5 = dist.topk(5, largest=False).indices
print(top5)
'''

HALF_CTC_TORCHRUN = r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(rank)

class TinyASR(nn.Module):
    def __init__(self, n_mels=40, vocab=32):
        super().__init__()
        self.conv = nn.Conv1d(n_mels, 64, 3, padding=1)
        self.rnn = nn.GRU(64, 64, batch_first=True)
        self.head = nn.Linear(64, vocab)
    def forward(self, x):
        h = F.relu(self.conv(x)).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.head(h)

model = TinyASR().to(torch.float16)            # "fp16 to save memory"
feats = torch.randn(4, 40, 50, dtype=torch.float16)
targets = torch.randint(1, 32, (4, 12))
logits = model(feats)                          # (B, T, V)
log_probs = logits.log_softmax(-1).transpose(0, 1)
print(f"[rank {rank}] log_probs {tuple(log_probs.shape)} {log_probs.dtype}", flush=True)
loss = F.ctc_loss(log_probs, targets, torch.full((4,), 50), torch.full((4,), 12))
loss.backward()
dist.destroy_process_group()
'''

HALF_HF_SVD = r'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("embed")

import torch
from transformers import BertConfig, BertModel

log.info("torch %s, cuda available: %s", torch.__version__, torch.cuda.is_available())
cfg = BertConfig(vocab_size=512, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                 intermediate_size=128, max_position_embeddings=64)
model = BertModel(cfg).to(torch.float16).eval()
log.info("encoder in %s, %.2fM params", next(model.parameters()).dtype, sum(p.numel() for p in model.parameters()) / 1e6)

ids = torch.randint(5, 512, (32, 24))
with torch.no_grad():
    out = model(input_ids=ids, attention_mask=torch.ones_like(ids))
sent = out.last_hidden_state.mean(1)
log.info("sentence embeddings %s %s", tuple(sent.shape), sent.dtype)

log.info("fitting PCA whitening on %d vectors", sent.shape[0])
centered = sent - sent.mean(0, keepdim=True)
U, S, Vh = torch.linalg.svd(centered, full_matrices=False)
W = Vh.T / S.clamp_min(1e-6)
log.info("whitening matrix %s", tuple(W.shape))
'''

HALF_RRELU = r'''
import torch
import torch.nn as nn

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.RReLU(),
    nn.Conv2d(16, 16, 3, padding=1), nn.RReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10),
).half()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(8, 3, 32, 32).half()
y = torch.randint(0, 10, (8,))
model.train()
for step in range(3):
    loss = nn.functional.cross_entropy(model(x).float(), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")
'''

# ----------------------------------------------------------------------- numpy() on a grad tensor
NP_GRAD_METRIC = r'''
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(256, 20)
y = (X[:, 0] + 0.5 * X[:, 1] > 0).long()
loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

def accuracy(logits, labels):
    preds = np.argmax(logits, axis=1)
    return float((preds == labels.numpy()).mean())

for epoch in range(2):
    for i, (xb, yb) in enumerate(loader):
        logits = model(xb)
        loss = nn.functional.cross_entropy(logits, yb)
        opt.zero_grad(); loss.backward(); opt.step()
        if i % 2 == 0:
            print(f"epoch {epoch} step {i} loss {loss.item():.4f} acc {accuracy(logits, yb):.3f}")
'''

NP_GRAD_TORCHRUN = r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(rank)
model = DDP(nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = []
for step in range(5):
    x = torch.randn(32, 16); t = x.sum(1, keepdim=True)
    pred = model(x)
    loss = ((pred - t) ** 2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    history.append(pred.numpy().std())        # log prediction spread
    if rank == 0:
        print(f"step {step} loss {loss.item():.3f}", flush=True)
dist.destroy_process_group()
'''

NP_GRAD_PANDAS_EVAL = r'''
import logging
logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("eval")

import pandas as pd
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3))
model.load_state_dict(model.state_dict())
model.eval()                                   # evaluation mode
log.info("model restored, running validation")
X = torch.randn(40, 10)
probs = model(X).softmax(-1)
log.info("probs %s", tuple(probs.shape))
df = pd.DataFrame(probs, columns=["neg", "neu", "pos"])
df["pred"] = df.values.argmax(1)
df.to_csv("val_predictions.csv", index=False)
log.info("wrote %d rows", len(df))
'''

# ------------------------------------------------------------------------------ multi-target loss
MULTI_DATASET_COLUMN = r'''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

class Reviews(Dataset):
    def __init__(self, n=64):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 32, generator=g)
        self.y = torch.randint(0, 5, (n,), generator=g).tolist()
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i], torch.tensor([self.y[i]])       # label as a 1-element tensor

loader = DataLoader(Reviews(), batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 5))
criterion = nn.CrossEntropyLoss()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for xb, yb in loader:
    print("batch", tuple(xb.shape), tuple(yb.shape), flush=True)
    loss = criterion(model(xb), yb)
    opt.zero_grad(); loss.backward(); opt.step()
'''

MULTI_TRAINER = r'''
import logging, os
import torch
import torch.nn as nn
from datasets import Dataset
from transformers import Trainer, TrainingArguments
from transformers.utils import logging as hf_logging

logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
hf_logging.set_verbosity_info()

class TabularClassifier(nn.Module):
    def __init__(self, d_in=12, n_classes=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, n_classes))
        self.loss_fn = nn.CrossEntropyLoss()
    def forward(self, features, labels=None):
        logits = self.net(features)
        loss = self.loss_fn(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}

g = torch.Generator().manual_seed(0)
rows = {"features": torch.randn(64, 12, generator=g).tolist(),
        "labels": torch.randint(0, 4, (64, 1), generator=g).tolist()}     # labels exported as [[2], [0], ...]
ds = Dataset.from_dict(rows).with_format("torch")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=1,
                         logging_steps=1, report_to=[], use_cpu=True, disable_tqdm=True)
trainer = Trainer(model=TabularClassifier(), args=args, train_dataset=ds)
trainer.train()
'''

MULTI_TORCHRUN_CSV = r'''
import io
import pandas as pd
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
csv = "f1,f2,f3,label\n" + "\n".join(f"{i*0.1:.1f},{(i%5)*0.3:.1f},{(i%3)-1},{i%3}" for i in range(40))
df = pd.read_csv(io.StringIO(csv)).iloc[rank::world]
X = torch.tensor(df[["f1", "f2", "f3"]].values, dtype=torch.float32)
y = torch.from_numpy(df[["label"]].values)             # double brackets: a (N, 1) column
if rank == 0:
    print(f"shard X {tuple(X.shape)} y {tuple(y.shape)} {y.dtype}", flush=True)
model = DDP(nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 3)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = nn.CrossEntropyLoss()(model(X), y)
loss.backward(); opt.step()
dist.destroy_process_group()
'''

# ----------------------------------------------------------------------- class-probability dtype
CE_ONEHOT = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
num_classes = 10
model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 128), nn.ReLU(), nn.Linear(128, num_classes))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
images = torch.rand(32, 1, 28, 28)
labels = torch.randint(0, num_classes, (32,))
targets = F.one_hot(labels, num_classes)               # "the loss wants one-hot vectors"
logits = model(images)
print("logits", tuple(logits.shape), logits.dtype, "targets", tuple(targets.shape), targets.dtype)
loss = F.cross_entropy(logits, targets)
loss.backward(); opt.step()
'''

CE_PANDAS_DUMMIES = r'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s | %(message)s")
log = logging.getLogger("train")

import pandas as pd
import torch
import torch.nn as nn

df = pd.DataFrame({"x1": range(48), "x2": [i % 7 for i in range(48)],
                   "species": ["setosa", "versicolor", "virginica"] * 16})
X = torch.tensor(df[["x1", "x2"]].values, dtype=torch.float32)
Y = torch.tensor(pd.get_dummies(df["species"]).values)
log.info("X %s %s | Y %s %s", tuple(X.shape), X.dtype, tuple(Y.shape), Y.dtype)
model = nn.Linear(2, 3)
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(3):
    loss = criterion(model(X), Y)
    opt.zero_grad(); loss.backward(); opt.step()
    log.info("epoch %d loss %.4f", epoch, loss.item())
'''

CE_MIXUP_TORCHRUN = r'''
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(rank)
model = DDP(nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5)))
x = torch.randn(16, 3, 16, 16)
y = torch.randint(0, 5, (16,))

def mixup(x, y, alpha=0.2):
    lam = torch.distributions.Beta(alpha, alpha).sample().item()
    perm = torch.randperm(x.size(0))
    y1 = F.one_hot(y, 5)
    return lam * x + (1 - lam) * x[perm], (y1 * 1 + y1[perm] * 0).int()   # bug: mixed labels stay integer

xm, ym = mixup(x, y)
if rank == 0:
    print(f"mixup batch {tuple(xm.shape)} targets {tuple(ym.shape)} {ym.dtype}", flush=True)
loss = F.cross_entropy(model(xm), ym)
loss.backward()
dist.destroy_process_group()
'''

# ------------------------------------------------------------------ requires_grad on integer tensors
FLOAT_RG_PARAMETER = r'''
import torch
import torch.nn as nn

class LearnedPositions(nn.Module):
    def __init__(self, max_len=128, dim=64):
        super().__init__()
        self.pos_ids = nn.Parameter(torch.arange(max_len))          # meant as a buffer
        self.table = nn.Embedding(max_len, dim)
    def forward(self, x):
        return x + self.table(self.pos_ids[: x.size(1)])

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(1000, 64)
        self.pos = LearnedPositions()
        self.layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
    def forward(self, ids):
        return self.layer(self.pos(self.tok(ids)))

print("building encoder", flush=True)
model = Encoder()
print(model(torch.randint(0, 1000, (2, 16))).shape)
'''

FLOAT_RG_SPAWN = r'''
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

def worker(rank, world_size):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    # per-class weights read from a config file: [1, 2, 5]
    class_weights = torch.tensor([1, 2, 5], requires_grad=True)
    print(f"rank {rank}: learnable class weights {class_weights}", flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); os.environ["MASTER_PORT"] = str(s.getsockname()[1])
    mp.spawn(worker, args=(2,), nprocs=2)
'''

FLOAT_RG_SALIENCY = r'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("saliency")

import torch
from transformers import BertConfig, BertForSequenceClassification

cfg = BertConfig(vocab_size=300, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64, num_labels=2)
model = BertForSequenceClassification(cfg).eval()
input_ids = torch.randint(5, 300, (1, 12))
log.info("computing token saliency for %d tokens", input_ids.shape[1])
input_ids.requires_grad_()                      # want d(logit)/d(token)
logits = model(input_ids=input_ids).logits
logits[0, 1].backward()
log.info("saliency %s", input_ids.grad.abs())
'''

# ----------------------------------------------------------------------------- non-leaf .grad (benign)
NONLEAF_FGSM = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10)).eval()
mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

raw = torch.rand(4, 3, 32, 32, requires_grad=True)
images = (raw - mean) / std                      # normalise for the model
labels = torch.randint(0, 10, (4,))
loss = F.cross_entropy(model(images), labels)
loss.backward()
eps = 8 / 255
adv = images + eps * images.grad.sign()          # FGSM step
print("adversarial batch", adv.shape)
'''

NONLEAF_TRAINING_OK = r'''
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(4):
    x = torch.randn(32, 8)
    hidden = model[0](x)                          # inspect the first layer's activation gradient
    out = model[2](torch.relu(hidden))
    loss = (out - x[:, :1]).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    g = hidden.grad
    print(f"step {step} loss {loss.item():.4f} hidden grad: {None if g is None else g.norm().item()}")
print("done")
'''

NONLEAF_TORCHRUN = r'''
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(rank)
# learnable temperature for a contrastive loss, created as float64 then cast to float32
log_temp = torch.zeros(1, dtype=torch.float64, requires_grad=True).float()
feats = torch.nn.functional.normalize(torch.randn(16, 32), dim=1)
logits = feats @ feats.T * log_temp.exp()
loss = torch.nn.functional.cross_entropy(logits, torch.arange(16))
loss.backward()
with torch.no_grad():
    log_temp -= 0.01 * log_temp.grad
dist.destroy_process_group()
'''

# --------------------------------------------------------------------------- clip_grad_norm_ nonfinite
CLIP_LOG_ZERO = r'''
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1), nn.Sigmoid())
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(64, 10)
y = (x[:, 0] > 0).float().unsqueeze(1)
with torch.no_grad():
    model[2].bias.fill_(-200.0)                 # saturated output (bad init / diverged run)
for step in range(3):
    p = model(x)
    loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()   # hand-written BCE
    opt.zero_grad()
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, error_if_nonfinite=True)
    opt.step()
    print(f"step {step} loss {loss.item():.4f} grad_norm {norm.item():.3f}")
'''

CLIP_TORCHRUN_NAN_BATCH = r'''
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(4):
    torch.manual_seed(step * 10 + rank)
    x = torch.randn(32, 6); y = x.sum(1, keepdim=True)
    if rank == 1 and step == 2:
        x[5, 3] = float("nan")                  # one corrupt row in rank 1's shard
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
    opt.step()
    print(f"[rank {rank}] step {step} loss {loss.item():.4f} grad_norm {gn.item():.3f}", flush=True)
dist.destroy_process_group()
'''

CLIP_AMP_SCALER = r'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s [%(name)s] %(message)s")
log = logging.getLogger("amp-train")

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64), nn.GELU(), nn.Linear(64, 8))
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 24)
log.info("fp16 autocast on %s, GradScaler init_scale=%.0f", "cpu", scaler.get_scale())
for step in range(5):
    x = torch.randn(32, 64) * 8; y = torch.randint(0, 8, (32,))
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
    scaler.step(opt)
    scaler.update()
    log.info("step %d loss %.4f grad_norm %.3f scale %.0f", step, loss.item(), gn.item(), scaler.get_scale())
'''

# ------------------------------------------------------------------------------- deterministic mode
DETERM_SEGNET = r'''
import random
import numpy as np
import torch
import torch.nn as nn

def seed_everything(seed=42):
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True)

class MiniSegNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.enc = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2)
        self.dec = nn.Conv2d(8, n_classes, 3, padding=1)
    def forward(self, x):
        h, idx = self.pool(torch.relu(self.enc(x)))
        return self.dec(self.unpool(h, idx))

seed_everything()
model = MiniSegNet()
x = torch.randn(2, 3, 32, 32)
print("logits", model(x).shape)
'''

DETERM_LIGHTNING = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class SegModule(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2)
        self.head = nn.Conv2d(4, 2, 1)
    def forward(self, x):
        h, idx = self.pool(F.relu(self.enc(x)))
        return self.head(self.unpool(h, idx))
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

L.seed_everything(7)
ds = TensorDataset(torch.randn(16, 1, 16, 16), torch.randint(0, 2, (16, 16, 16)))
trainer = L.Trainer(max_epochs=1, accelerator="cpu", devices=1, deterministic=True,
                    logger=False, enable_checkpointing=False, enable_progress_bar=False)
trainer.fit(SegModule(), DataLoader(ds, batch_size=4))
'''

DETERM_PUT_ACCELERATE = r'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("recsys")

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed

accelerator = Accelerator(cpu=True)
set_seed(1234, deterministic=True)
log.info("process %d/%d, deterministic=%s", accelerator.process_index, accelerator.num_processes,
         torch.are_deterministic_algorithms_enabled())
scores = torch.zeros(4, 50)
item_idx = torch.tensor([3, 17, 17, 42, 101, 150])
clicks = torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0, 1.0])
scores.put_(item_idx, clicks)                  # flat indices into the (user, item) score matrix
log.info("scores updated: %s", scores.sum().item())
'''


def generate() -> None:
    # half precision on the CPU
    run_script(HALF, "cdist-fp16-retrieval", HALF_CDIST)
    run_script(HALF, "ctc-loss-fp16-torchrun", HALF_CTC_TORCHRUN, torchrun=_TR)
    run_script(HALF, "bert-fp16-pca-whitening-svd", HALF_HF_SVD, env=_HF_ENV)
    run_script(HALF, "rrelu-half-train", HALF_RRELU)
    # numpy() on a tensor that requires grad
    run_script(NP_GRAD, "numpy-argmax-accuracy", NP_GRAD_METRIC)
    run_script(NP_GRAD, "ddp-prediction-spread-torchrun", NP_GRAD_TORCHRUN, torchrun=_TR)
    run_script(NP_GRAD, "pandas-dataframe-eval-mode", NP_GRAD_PANDAS_EVAL)
    # multi-target
    run_script(MULTI, "dataset-label-as-1-element-tensor", MULTI_DATASET_COLUMN)
    run_script(MULTI, "trainer-labels-column", MULTI_TRAINER, env=_HF_ENV)
    run_script(MULTI, "csv-label-column-torchrun", MULTI_TORCHRUN_CSV, torchrun=_TR)
    # class-probability target dtype
    run_script(CE_DTYPE, "one-hot-long-target", CE_ONEHOT)
    run_script(CE_DTYPE, "pandas-get-dummies-bool", CE_PANDAS_DUMMIES)
    run_script(CE_DTYPE, "mixup-int-targets-torchrun", CE_MIXUP_TORCHRUN, torchrun=_TR)
    # requires_grad on integer tensors
    run_script(FLOAT_RG, "parameter-arange-position-ids", FLOAT_RG_PARAMETER)
    run_script(FLOAT_RG, "mp-spawn-int-class-weights", FLOAT_RG_SPAWN)
    run_script(FLOAT_RG, "bert-input-ids-saliency", FLOAT_RG_SALIENCY, env=_HF_ENV)
    # non-leaf .grad warning (benign)
    run_script(NONLEAF, "fgsm-normalised-input-nonetype", NONLEAF_FGSM)
    run_script(NONLEAF, "activation-grad-training-completes", NONLEAF_TRAINING_OK)
    run_script(NONLEAF, "learnable-temperature-cast-torchrun", NONLEAF_TORCHRUN, torchrun=_TR)
    # clip_grad_norm_ with error_if_nonfinite
    run_script(CLIP, "handwritten-bce-log-zero", CLIP_LOG_ZERO)
    run_script(CLIP, "nan-row-one-rank-torchrun", CLIP_TORCHRUN_NAN_BATCH, torchrun=_TR)
    run_script(CLIP, "fp16-gradscaler-overflow", CLIP_AMP_SCALER)
    # deterministic algorithms
    run_script(DETERM, "segnet-max-unpool", DETERM_SEGNET)
    run_script(DETERM, "lightning-deterministic-true", DETERM_LIGHTNING)
    run_script(DETERM, "accelerate-set-seed-put", DETERM_PUT_ACCELERATE)
