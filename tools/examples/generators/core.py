"""Real example logs for the PyTorch-core entries: autograd, tensor shapes, losses,
data loading, checkpoints, AMP, torch.compile and meta tensors.

Every script runs on a CPU-only torch (2.13.0 was used) in a few seconds.  A
checkpoint "saved on a GPU" is written by the script itself with the storage
location tag a CUDA save records ("cuda:0"); everything else is the plain error.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from generate import EXAMPLES, run_script


ONLY = [x for x in os.environ.get("GEN_ONLY", "").split(",") if x]  # e.g. GEN_ONLY=embedding,collate


def _run(entry_id: str, name: str, script: str, **kw) -> Path:
    """run_script, then neutralise interpreter paths the launcher and C++ traces print.

    With GEN_ONLY set (comma-separated substrings of entry ids or log names), other logs are skipped.
    """
    if ONLY and not any(x in f"{entry_id}/{name}" for x in ONLY):
        return EXAMPLES / entry_id / f"{name}.real.log"
    dest = run_script(entry_id, name, script, **kw)
    if not dest.exists():
        return dest
    text = dest.read_text()
    fixed = re.sub(r"/\S*/bin/python3?\b", "/opt/conda/bin/python", text)
    fixed = re.sub(r"/tmp/python-build\.[\d.]+/Python-[\d.]+/", "/usr/src/python/", fixed)
    # dynamo shortens long source paths ("mp/fl-gen-abc123/train.py"): name the neutral one
    fixed = re.sub(r"\S*fl-gen-\w+/?", "/workspace/", fixed)
    if fixed != text:
        dest.write_text(fixed)
    return dest


TR2 = {"nproc_per_node": 2}

# a training loop printed around the failure, so that logs are not bare tracebacks
_LOOP_HEAD = '''
import time, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
def log(step, loss):
    print(f"step {step:>4d} | loss {loss:.4f} | lr 3.0e-04", flush=True)
'''

_DDP_HEAD = '''
import os, datetime, torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
torch.manual_seed(0)
'''

# --------------------------------------------------------------------------
# pytorch/tensor-does-not-require-grad
# --------------------------------------------------------------------------
_NOGRAD_FROZEN = _LOOP_HEAD + '''
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
for p in model.parameters():          # "freeze the backbone" ... and the head too
    p.requires_grad = False
opt = torch.optim.AdamW([p for p in model.parameters()], lr=3e-4)
x, y = torch.randn(16, 32), torch.randint(0, 10, (16,))
loss = F.cross_entropy(model(x), y)
loss.backward()
'''

_NOGRAD_EVAL_HELPER = _LOOP_HEAD + '''
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

@torch.no_grad()
def compute_loss(batch):
    x, y = batch
    return F.cross_entropy(model(x), y)

for step in range(1, 41):
    batch = torch.randn(16, 32), torch.randint(0, 10, (16,))
    if step <= 20:
        out = model(batch[0]); loss = F.cross_entropy(out, batch[1])
    else:
        loss = compute_loss(batch)      # refactored: the eval helper is now used for training
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        log(step, loss.item())
'''

_NOGRAD_CHECKPOINT = _LOOP_HEAD + '''
import warnings
from torch.utils.checkpoint import checkpoint
warnings.simplefilter("default")

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ff = nn.Linear(64, 64)
    def forward(self, h):
        return h + torch.relu(self.ff(h))

class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 64)
        self.blocks = nn.ModuleList(Block() for _ in range(2))
        self.head = nn.Linear(64, 100)
    def forward(self, ids):
        h = self.embed(ids)
        for b in self.blocks:
            h = checkpoint(b, h, use_reentrant=True)
        return self.head(h)

model = TinyLM()
model.requires_grad_(False)
# "LoRA": only the adapters inside the checkpointed blocks train
for b in model.blocks:
    b.ff.weight.requires_grad_(True)
print("trainable params:", sum(p.numel() for p in model.parameters() if p.requires_grad), flush=True)
ids = torch.randint(0, 100, (4, 12))
logits = model(ids)
loss = F.cross_entropy(logits.view(-1, 100), ids.view(-1))
loss.backward()
'''

_NOGRAD_DDP = _DDP_HEAD + '''
from torch.nn.parallel import DistributedDataParallel as DDP
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
model = DDP(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x, y = torch.randn(8, 16), torch.randint(0, 4, (8,))
    with torch.inference_mode():
        logits = model(x)
    loss = F.cross_entropy(logits, y)
    if rank == 0:
        print(f"[step {step}] forward done", flush=True)
    loss.backward()
    opt.step()
'''

# --------------------------------------------------------------------------
# pytorch/dataloader-worker-exception
# --------------------------------------------------------------------------
_WORKER_KEYERROR = '''
import torch
from torch.utils.data import DataLoader, Dataset

class CaptionDataset(Dataset):
    def __init__(self):
        self.items = [{"image_id": i, "caption": f"a photo number {i}"} for i in range(100)]
        self.items[42] = {"image_id": 42, "text": "schema changed in this shard"}
    def __len__(self):
        return len(self.items)
    def __getitem__(self, i):
        rec = self.items[i]
        return torch.randn(8), len(rec["caption"])

def main():
    loader = DataLoader(CaptionDataset(), batch_size=10, num_workers=2)
    for epoch in range(1):
        for step, (x, n) in enumerate(loader):
            print(f"epoch {epoch} step {step} batch {tuple(x.shape)}", flush=True)

if __name__ == "__main__":
    main()
'''

_WORKER_FILENOTFOUND = '''
import os, torch
from torch.utils.data import DataLoader, Dataset

class ImageFolderList(Dataset):
    def __init__(self, root):
        self.paths = [os.path.join(root, f"img_{i:05d}.jpg") for i in range(64)]
    def __len__(self):
        return len(self.paths)
    def __getitem__(self, i):
        with open(self.paths[i], "rb") as fh:
            data = fh.read()
        return torch.frombuffer(bytearray(data[:16].ljust(16, b"0")), dtype=torch.uint8)

if __name__ == "__main__":
    loader = DataLoader(ImageFolderList("/data/coco/train2017"), batch_size=16, num_workers=4, shuffle=True)
    for batch in loader:
        pass
'''

_WORKER_DDP_VALUEERROR = _DDP_HEAD + '''
from torch.utils.data import DataLoader, Dataset, DistributedSampler

class LabelDataset(Dataset):
    labels = ["cat", "dog", "bird", "Cat "]
    def __len__(self):
        return 64
    def __getitem__(self, i):
        name = self.labels[i % 4]
        return torch.randn(4), ["cat", "dog", "bird"].index(name)

ds = LabelDataset()
loader = DataLoader(ds, batch_size=4, sampler=DistributedSampler(ds, shuffle=False), num_workers=2)
for step, (x, y) in enumerate(loader):
    print(f"rank {rank} step {step} {tuple(x.shape)}", flush=True)
'''

# --------------------------------------------------------------------------
# pytorch/collate-stack-unequal-size
# --------------------------------------------------------------------------
_STACK_TOKENS = '''
import torch
from torch.utils.data import DataLoader, Dataset

class Sentences(Dataset):
    def __init__(self):
        self.texts = ["the cat sat on the mat", "a dog", "birds fly south in the winter months", "ok"]
    def __len__(self):
        return len(self.texts)
    def __getitem__(self, i):
        ids = [hash(w) % 1000 for w in self.texts[i].split()]
        return torch.tensor(ids), torch.tensor(i % 2)

if __name__ == "__main__":
    for ids, label in DataLoader(Sentences(), batch_size=2):
        print(ids.shape)
'''

_STACK_IMAGES_WORKERS = _LOOP_HEAD + '''
from torch.utils.data import DataLoader, Dataset

class Images(Dataset):
    def __len__(self):
        return 400
    def __getitem__(self, i):
        c = 1 if i == 277 else 3          # one grayscale image in an RGB folder
        return torch.rand(c, 32, 32), i % 10

def main():
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(Images(), batch_size=16, num_workers=2)
    for step, (x, y) in enumerate(loader, 1):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 5 == 0:
            log(step, loss.item())

if __name__ == "__main__":
    main()
'''

_STACK_RESIZE_STORAGE = '''
import torch
from torch.utils.data import DataLoader, Dataset

class Audio(Dataset):
    def __len__(self):
        return 32
    def __getitem__(self, i):
        return torch.randn(16000 - 500 * (i % 4))   # clips of different length

if __name__ == "__main__":
    for wav in DataLoader(Audio(), batch_size=4, num_workers=2):
        print(wav.shape)
'''

# --------------------------------------------------------------------------
# pytorch/embedding-index-out-of-range
# --------------------------------------------------------------------------
_EMB_ADDED_TOKENS = _LOOP_HEAD + '''
vocab = {f"tok{i}": i for i in range(1000)}
# new special tokens added to the tokenizer, the model's embedding was built before
for t in ["<|user|>", "<|assistant|>", "<|end|>"]:
    vocab[t] = len(vocab)

class TinyLM(nn.Module):
    def __init__(self, n_vocab):
        super().__init__()
        self.embed = nn.Embedding(n_vocab, 32)
        self.head = nn.Linear(32, n_vocab)
    def forward(self, ids):
        return self.head(self.embed(ids))

model = TinyLM(1000)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(1, 60):
    ids = torch.randint(0, 1000, (8, 16))
    if step == 47:
        ids[3, 0] = vocab["<|user|>"]
    logits = model(ids)
    loss = F.cross_entropy(logits.view(-1, 1000), ids.view(-1))
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        log(step, loss.item())
'''

_EMB_POSITIONS = '''
import torch, torch.nn as nn
class Encoder(nn.Module):
    def __init__(self, max_pos=512):
        super().__init__()
        self.tok = nn.Embedding(30522, 64)
        self.pos = nn.Embedding(max_pos, 64)
    def forward(self, ids):
        positions = torch.arange(ids.size(1)).unsqueeze(0)
        return self.tok(ids) + self.pos(positions)

print("Token indices sequence length is longer than the specified maximum sequence length "
      "for this model (731 > 512). Running this sequence through the model will result in indexing errors", flush=True)
enc = Encoder()
out = enc(torch.randint(0, 30522, (1, 731)))
'''

_EMB_DDP = _DDP_HEAD + '''
emb = nn.Embedding(50, 8)
ids = torch.randint(0, 50, (4, 6))
if rank == 1:
    ids[0, 0] = -100          # label padding leaked into input_ids
out = emb(ids).sum()
out.backward()
'''

# --------------------------------------------------------------------------
# pytorch/batch-size-mismatch-input-target
# --------------------------------------------------------------------------
_BS_CNN_VIEW = _LOOP_HEAD + '''
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5); self.pool = nn.MaxPool2d(2, 2); self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 2 * 5, 120); self.fc2 = nn.Linear(120, 10)
    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 2 * 5)           # should be 16 * 5 * 5
        return self.fc2(F.relu(self.fc1(x)))

net = Net()
criterion = nn.CrossEntropyLoss()
x, y = torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))
loss = criterion(net(x), y)
'''

_BS_LM_LABELS = _LOOP_HEAD + '''
vocab, B, T = 500, 8, 128
model = nn.Sequential(nn.Embedding(vocab, 32), nn.Linear(32, vocab))
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
print("epoch 1/3", flush=True)
for step in range(1, 4):
    ids = torch.randint(0, vocab, (B, T))
    labels = torch.randint(0, 2, (B,))          # sequence-level labels from the old classifier config
    logits = model(ids)
    loss = F.cross_entropy(logits.view(-1, vocab), labels)
    opt.zero_grad(); loss.backward(); opt.step()
    log(step, loss.item())
'''

_BS_DDP = _DDP_HEAD + '''
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(nn.Sequential(nn.Linear(20, 8), nn.Flatten(0)))
x = torch.randn(16, 20)
y = torch.randint(0, 8, (16,))
logits = model(x).view(-1, 4)        # [16*8] -> [32, 4]
loss = nn.NLLLoss()(F.log_softmax(logits, -1), y)
'''

# --------------------------------------------------------------------------
# pytorch/state-dict-size-mismatch
# --------------------------------------------------------------------------
_SD_HEAD_CLASSES = _LOOP_HEAD + """
class Net(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(16, num_classes)
    def forward(self, x):
        return self.fc(self.features(x))

torch.save(Net(1000).state_dict(), "imagenet_pretrained.pth")
print("building model for 10 classes", flush=True)
model = Net(num_classes=10)
state = torch.load("imagenet_pretrained.pth", map_location="cpu")
model.load_state_dict(state)
"""

_SD_HF_NUM_LABELS = """
import logging
from transformers import BertConfig, BertForSequenceClassification
cfg = BertConfig(vocab_size=120, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=64, num_labels=2)
BertForSequenceClassification(cfg).save_pretrained("./sentiment-base")
model = BertForSequenceClassification.from_pretrained("./sentiment-base", num_labels=5)
"""

_SD_VOCAB_DDP = _DDP_HEAD + """
class LM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, 16)
        self.lm_head = nn.Linear(16, vocab, bias=False)

if rank == 0:
    torch.save(LM(32001).state_dict(), "finetuned_with_pad_token.pt")   # saved after adding [PAD]
dist.barrier()
model = LM(32000)
model.load_state_dict(torch.load("finetuned_with_pad_token.pt", map_location="cpu"))
"""

# --------------------------------------------------------------------------
# pytorch/deserialize-cuda-on-cpu-machine
# --------------------------------------------------------------------------
# torch.save records each storage's device as a location tag; a GPU run writes "cuda:0".
_GPU_CKPT = """
import torch, torch.serialization as _ser
_tag = _ser.location_tag
_ser.location_tag = lambda storage: "cuda:0"      # what a save on a GPU records
torch.save({"model": torch.nn.Linear(8, 2).state_dict(), "epoch": 12}, "best_model.pt")
_ser.location_tag = _tag
"""

_DESER_DIRECT = _GPU_CKPT + """
model = torch.nn.Linear(8, 2)
print("loading best_model.pt for evaluation", flush=True)
ckpt = torch.load("best_model.pt")
model.load_state_dict(ckpt["model"])
"""

_DESER_DDP = _DDP_HEAD + _GPU_CKPT.replace("import torch, torch.serialization as _ser", "import torch.serialization as _ser") + """
model = nn.Linear(8, 2)
ckpt = torch.load("best_model.pt", weights_only=False)
model.load_state_dict(ckpt["model"])
"""

# --------------------------------------------------------------------------
# pytorch/meta-tensor-copy-out
# --------------------------------------------------------------------------
_META_DEVICE_TO = """
import torch, torch.nn as nn
with torch.device("meta"):
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024))
print("model created on", next(model.parameters()).device, flush=True)
model = model.to("cpu")
"""

_META_ACCELERATE = """
import torch, torch.nn as nn
from accelerate import init_empty_weights

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.Linear(64, 64)
        self.mlp = nn.Linear(64, 64)

with init_empty_weights():
    model = nn.ModuleList(Block() for _ in range(4))
# only part of the weights is loaded from the shard that was found
shard = {k: torch.randn_like(v, device="cpu") for k, v in model.state_dict().items() if k.startswith("0.")}
model.load_state_dict(shard, strict=False, assign=True)
model.to("cpu")
"""

_META_BUFFER_ITEM = _LOOP_HEAD + """
class Rotary(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 32)
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, 32, 2) / 32)), persistent=False)
        self.register_buffer("max_seen", torch.tensor(0))

with torch.device("meta"):
    model = Rotary()
ckpt = {"proj.weight": torch.randn(32, 32), "proj.bias": torch.randn(32), "max_seen": torch.tensor(7)}
model.load_state_dict(ckpt, assign=True)
print("loaded", sorted(ckpt), flush=True)
print("max_seen", model.max_seen.item(), flush=True)
print("inv_freq[0]", model.inv_freq[0].item(), flush=True)
"""

# --------------------------------------------------------------------------
# pytorch/amp-unscale-fp16-gradients
# --------------------------------------------------------------------------
_AMP_HALF_MODEL = _LOOP_HEAD + """
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 4)).half()   # "load in fp16"
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
scaler = torch.amp.GradScaler("cpu")
for step in range(1, 4):
    x, y = torch.randn(16, 64), torch.randint(0, 4, (16,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = F.cross_entropy(model(x.half()).float(), y)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    log(step, loss.item())
"""

_AMP_LORA_CLIP = _LOOP_HEAD + """
class LoRALinear(nn.Module):
    def __init__(self, base, r=4):
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x))

base = nn.Sequential(nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 8))
model = nn.Sequential(LoRALinear(base[0]), base[1], LoRALinear(base[2]))
model = model.to(torch.float16)                   # base loaded with torch_dtype=float16; adapters follow
for n, p in model.named_parameters():
    p.requires_grad = "lora_" in n
print("trainable:", [n for n, p in model.named_parameters() if p.requires_grad], flush=True)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(8, 32, dtype=torch.float16), torch.randint(0, 8, (8,))
loss = F.cross_entropy(model(x).float(), y)
scaler.scale(loss).backward()
scaler.unscale_(opt)
torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
"""

_AMP_DDP = _DDP_HEAD + """
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(nn.Linear(16, 4).half())
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cpu")
loss = model(torch.randn(4, 16).half()).float().pow(2).mean()
scaler.scale(loss).backward()
scaler.step(opt)
"""

# --------------------------------------------------------------------------
# pytorch/leaf-variable-inplace
# --------------------------------------------------------------------------
_LEAF_INIT = """
import torch, torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(128, 10)
        self.reset_parameters()
    def reset_parameters(self):
        self.fc.weight.normal_(0, 0.02)         # custom init without torch.no_grad()
        self.fc.bias.zero_()
net = Net()
"""

_LEAF_CLAMP_LOOP = _LOOP_HEAD + """
w = torch.randn(16, 4, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for step in range(1, 30):
    x = torch.randn(8, 16)
    loss = (x @ w).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        log(step, loss.item())
    if step == 25:
        w.clamp_(-1.0, 1.0)                       # projected gradient descent, outside no_grad
"""

_LEAF_VIEW = """
import torch
x = torch.rand(1, 3, 32, 32, requires_grad=True)   # input optimised for an adversarial example
x[:, 0].zero_()
"""

# --------------------------------------------------------------------------
# pytorch/grad-implicit-non-scalar
# --------------------------------------------------------------------------
_NONSCALAR_REDUCTION_NONE = _LOOP_HEAD + """
model = nn.Linear(20, 5)
criterion = nn.CrossEntropyLoss(reduction="none")     # per-sample losses for weighting
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 20), torch.randint(0, 5, (32,))
weights = torch.rand(32)
loss = criterion(model(x), y) * weights
opt.zero_grad()
loss.backward()
"""

_NONSCALAR_DDP = _DDP_HEAD + """
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(nn.Linear(10, 1))
x, y = torch.randn(8, 10), torch.randn(8, 1)
loss = (model(x) - y) ** 2          # forgot .mean()
if rank == 0:
    print("loss shape:", tuple(loss.shape), flush=True)
loss.backward()
"""

_NONSCALAR_COMPLEX = """
import torch
z = torch.randn(4, dtype=torch.complex64, requires_grad=True)
spec = torch.fft.fft(z)
loss = (spec * spec.conj()).sum()
loss.backward()
"""

# --------------------------------------------------------------------------
# pytorch/tensor-size-mismatch-broadcast
# --------------------------------------------------------------------------
_BCAST_MASK = _LOOP_HEAD + """
B, T, D, MAX_LEN = 4, 96, 32, 128
x = torch.randn(B, T, D)
attention_mask = torch.ones(B, MAX_LEN)           # built for max_length, batch padded to the longest
scores = x @ x.transpose(1, 2)
scores = scores.masked_fill(attention_mask[:, None, :] == 0, float("-inf"))
"""

_BCAST_LAST_BATCH = _LOOP_HEAD + """
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.randn(100, 8), torch.randn(100, 1))
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
sample_weight = torch.ones(32, 1)                 # built once for the full batch size
for step, (x, y) in enumerate(DataLoader(ds, batch_size=32), 1):
    loss = ((model(x) - y) ** 2 * sample_weight).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    log(step, loss.item())
"""

_BCAST_EXPAND_DDP = _DDP_HEAD + """
pos = torch.randn(1, 512, 16)                     # position table for 512 tokens
tokens = torch.randn(2, 600 if rank == 1 else 400, 16)
h = tokens + pos[:, : tokens.size(1)].expand(tokens.size(0), tokens.size(1), 16)
"""

# --------------------------------------------------------------------------
# pytorch/target-out-of-bounds
# --------------------------------------------------------------------------
_TARGET_ONE_BASED = _LOOP_HEAD + """
labels = torch.randint(1, 11, (64,))              # classes numbered 1..10
model = nn.Linear(16, 10)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(1, 3):
    idx = torch.randint(0, 64, (16,))
    x, y = torch.randn(16, 16), labels[idx]
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    log(step, loss.item())
"""

_TARGET_SEG_VOID = _LOOP_HEAD + """
num_classes = 21
logits = torch.randn(2, num_classes, 16, 16, requires_grad=True)
mask = torch.randint(0, num_classes, (2, 16, 16))
mask[0, :2, :] = 255                              # void border in VOC-style masks
loss = nn.CrossEntropyLoss()(logits, mask)
"""

_TARGET_PAD_DDP = _DDP_HEAD + """
logits = torch.randn(6, 4)
labels = torch.tensor([0, 1, 3, 2, -1, -1])       # padded with -1, ignore_index is -100
loss = F.cross_entropy(logits, labels)
"""

# --------------------------------------------------------------------------
# pytorch/conv-channel-mismatch
# --------------------------------------------------------------------------
_CONV_GRAYSCALE = _LOOP_HEAD + """
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
batch = torch.rand(8, 1, 64, 64)                  # grayscale X-ray images
print("batch", tuple(batch.shape), flush=True)
out = model(batch)
"""

_CONV_NHWC = """
import numpy as np, torch, torch.nn as nn
images = np.random.rand(4, 224, 224, 3).astype("float32")   # from OpenCV/PIL: H, W, C
conv = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
x = torch.from_numpy(images)
y = conv(x)
"""

_CONV1D_DDP = _DDP_HEAD + """
conv = nn.Conv1d(80, 128, kernel_size=3, padding=1)     # expects [N, 80 mel bins, T]
mel = torch.randn(2, 300, 80)                           # [N, T, 80]
out = conv(mel)
"""

_CONV_5D = """
import torch, torch.nn as nn
conv = nn.Conv2d(3, 8, 3)
clip = torch.randn(2, 3, 16, 112, 112)            # a video batch fed to a 2-D conv
conv(clip)
"""

# --------------------------------------------------------------------------
# pytorch/anomaly-nan-in-backward
# --------------------------------------------------------------------------
_NAN_SQRT = _LOOP_HEAD + """
torch.autograd.set_detect_anomaly(True)
emb = nn.Embedding(10, 8)
a = emb(torch.tensor([1, 2, 3, 3]))
b = emb(torch.tensor([4, 2, 5, 3]))                # identical pairs give distance 0
dist = torch.sqrt(((a - b) ** 2).sum(-1))
loss = dist.mean()
loss.backward()
"""

_NAN_LOG_LOOP = _LOOP_HEAD + """
model = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=-1))
opt = torch.optim.SGD(model.parameters(), lr=5.0)
with torch.autograd.detect_anomaly():
    for step in range(1, 200):
        x = torch.randn(16, 4) * 10
        y = torch.randint(0, 3, (16,))
        p = model(x)
        loss = -torch.log(p[torch.arange(16), y]).mean()     # log of a softmax that reaches 0
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 20 == 0:
            log(step, loss.item())
"""

_NAN_DIV_DDP = _DDP_HEAD + """
torch.autograd.set_detect_anomaly(True)
w = nn.Parameter(torch.randn(4, 8))
x = torch.randn(4, 8)
if rank == 1:
    x[2] = 0.0
v = x * w
normed = v / v.norm(dim=-1, keepdim=True)
normed.sum().backward()
"""

# --------------------------------------------------------------------------
# pytorch/batchnorm-single-value-per-channel
# --------------------------------------------------------------------------
_BN_LAST_BATCH = _LOOP_HEAD + """
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.randn(97, 20), torch.randint(0, 3, (97,)))   # 97 = 3 * 32 + 1
model = nn.Sequential(nn.Linear(20, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for step, (x, y) in enumerate(DataLoader(ds, batch_size=32, shuffle=True)):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        print(f"epoch {epoch} step {step} batch {x.size(0)} loss {loss.item():.4f}", flush=True)
"""

_BN_POOLED_SINGLE = """
import torch, torch.nn as nn
head = nn.Sequential(nn.Conv2d(3, 32, 3), nn.AdaptiveAvgPool2d(1), nn.BatchNorm2d(32))
img = torch.rand(1, 3, 64, 64)
pred = head(img)          # model still in train() mode
"""

_BN_DDP = _DDP_HEAD + """
model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16))
n = 1 if rank == 1 else 4          # 5 samples split over 2 ranks
out = model(torch.randn(n, 8))
"""

# --------------------------------------------------------------------------
# pytorch/optimizer-empty-parameter-list
# --------------------------------------------------------------------------
_OPT_PYTHON_LIST = """
import torch, torch.nn as nn
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(32, 32) for _ in range(4)]   # plain list: not registered
    def forward(self, x):
        for l in self.layers:
            x = torch.relu(l(x))
        return x
model = MLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
"""

_OPT_FROZEN_FILTER = _LOOP_HEAD + """
backbone = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64))
backbone.requires_grad_(False)
print("trainable params: 0 || all params:", sum(p.numel() for p in backbone.parameters()), flush=True)
optimizer = torch.optim.AdamW(filter(lambda p: p.requires_grad, backbone.parameters()), lr=2e-4)
backbone.add_module("adapter", nn.Linear(64, 64))     # adapters added after the optimizer
"""

_OPT_GENERATOR_DDP = _DDP_HEAD + """
model = nn.Linear(8, 8)
params = model.parameters()
n_params = sum(p.numel() for p in params)
if rank == 0:
    print(f"model has {n_params} parameters", flush=True)
optimizer = torch.optim.SGD(params, lr=0.1)
"""

# --------------------------------------------------------------------------
# pytorch/collate-unsupported-type
# --------------------------------------------------------------------------
_COLLATE_PIL = """
import torch
from dataclasses import dataclass
from torch.utils.data import DataLoader, Dataset

@dataclass
class Example:
    pixels: list
    caption: str

class Photos(Dataset):
    def __len__(self):
        return 16
    def __getitem__(self, i):
        return Example([i] * 4, f"photo {i}"), i % 2     # a raw record object, no transform to tensors

if __name__ == "__main__":
    for imgs, labels in DataLoader(Photos(), batch_size=4):
        print(imgs.shape)
"""

_COLLATE_NONE_WORKERS = _LOOP_HEAD + """
from torch.utils.data import DataLoader, Dataset

class Records(Dataset):
    def __len__(self):
        return 200
    def __getitem__(self, i):
        if i == 128:                        # unreadable record: the loader "skips" it by returning None
            return None
        return torch.randn(12), i % 3

def main():
    model = nn.Linear(12, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (x, y) in enumerate(DataLoader(Records(), batch_size=16, num_workers=2), 1):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 2 == 0:
            log(step, loss.item())

if __name__ == "__main__":
    main()
"""

_COLLATE_OBJECT_ARRAY = """
import numpy as np, torch
from torch.utils.data import DataLoader, Dataset

class Boxes(Dataset):
    def __len__(self):
        return 8
    def __getitem__(self, i):
        boxes = [[0, 0, 10, 10]] * (i % 3 + 1)
        return np.array([boxes, [1]], dtype=object)      # ragged: an object array

if __name__ == "__main__":
    next(iter(DataLoader(Boxes(), batch_size=4)))
"""

# --------------------------------------------------------------------------
# pytorch/sampler-shuffle-mutually-exclusive
# --------------------------------------------------------------------------
_SAMPLER_DDP = _DDP_HEAD + """
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
ds = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
if rank == 0:
    print(f"world size {dist.get_world_size()}, {len(ds)} samples", flush=True)
loader = DataLoader(ds, batch_size=8, shuffle=True, sampler=DistributedSampler(ds), num_workers=2)
"""

_SAMPLER_WEIGHTED = """
import torch
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler
ds = TensorDataset(torch.randn(100, 4), torch.randint(0, 2, (100,)))
sampler = WeightedRandomSampler(torch.rand(100), num_samples=100)
loader = DataLoader(ds, batch_size=16, sampler=sampler, shuffle=True)
"""

_BATCH_SAMPLER = """
import torch
from torch.utils.data import DataLoader, TensorDataset, BatchSampler, SequentialSampler
ds = TensorDataset(torch.randn(100, 4))
bs = BatchSampler(SequentialSampler(ds), batch_size=16, drop_last=False)
loader = DataLoader(ds, batch_sampler=bs, batch_size=16)
"""

# --------------------------------------------------------------------------
# pytorch/zip-archive-central-directory
# --------------------------------------------------------------------------
_ZIP_TRUNCATED = _LOOP_HEAD + """
import os
model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
torch.save({"model": model.state_dict(), "epoch": 7}, "checkpoint_epoch7.pt")
data = open("checkpoint_epoch7.pt", "rb").read()
open("checkpoint_epoch7.pt", "wb").write(data[: len(data) * 3 // 5])     # disk filled up mid-save
print("resuming from checkpoint_epoch7.pt", os.path.getsize("checkpoint_epoch7.pt"), "bytes", flush=True)
ckpt = torch.load("checkpoint_epoch7.pt", map_location="cpu")
"""

_ZIP_DDP_RACE = _DDP_HEAD + """
import os
model = nn.Linear(512, 512)
if rank == 0:
    torch.save(model.state_dict(), "last.pt")
    data = open("last.pt", "rb").read()
    open("last.pt", "wb").write(data[:4096])          # rank 0 is still writing when rank 1 reads
dist.barrier()
state = torch.load("last.pt", map_location="cpu")
"""

_ZIP_CORRUPT = """
import torch
torch.save({"w": torch.randn(1000)}, "weights.pt")
raw = bytearray(open("weights.pt", "rb").read())
i = raw.find(b"PK\\x03\\x04", 100)
raw[i:i + 4] = b"\\x00\\x00\\x00\\x00"                   # bit rot / bad copy inside the archive
open("weights.pt", "wb").write(raw)
torch.load("weights.pt")
"""

# --------------------------------------------------------------------------
# pytorch/unpickling-invalid-load-key
# --------------------------------------------------------------------------
_PICKLE_LFS = """
import torch
open("pytorch_model.bin", "w").write(
    "version https://git-lfs.github.com/spec/v1\\n"
    "oid sha256:4f5e9d1c8b2a7e6f3d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e\\n"
    "size 438007537\\n")
state = torch.load("pytorch_model.bin", map_location="cpu", weights_only=False)
"""

_PICKLE_HTML = _LOOP_HEAD + """
open("resnet50_finetuned.pth", "w").write(
    "<!DOCTYPE html><html><head><title>Google Drive - Virus scan warning</title></head><body></body></html>")
print("=> loading checkpoint 'resnet50_finetuned.pth'", flush=True)
checkpoint = torch.load("resnet50_finetuned.pth", weights_only=False)
"""

_PICKLE_ZEROS_DDP = _DDP_HEAD + """
if rank == 0:
    open("ckpt.pth", "wb").write(b"\\x00" * 400)      # zero-filled head of an interrupted copy
dist.barrier()
print(f"[rank {rank}] loading checkpoint ckpt.pth", flush=True)
state = torch.load("ckpt.pth", map_location="cpu", weights_only=False)
"""

# --------------------------------------------------------------------------
# pytorch/multiprocessing-bootstrapping-phase
# --------------------------------------------------------------------------
_BOOT_DATALOADER = """
import torch
from torch.utils.data import DataLoader, TensorDataset

ds = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
loader = DataLoader(ds, batch_size=8, num_workers=2, multiprocessing_context="spawn")
for x, y in loader:                  # top level, no if __name__ == "__main__":
    print(x.shape)
"""

_BOOT_MP_SPAWN = """
import torch.multiprocessing as mp

def worker(rank):
    print("worker", rank)

mp.set_start_method("forkserver", force=True)
mp.spawn(worker, nprocs=2)
"""

# --------------------------------------------------------------------------
# pytorch/dataloader-too-many-open-files
# --------------------------------------------------------------------------
_FDS_MAIN = """
import resource, torch
from torch.utils.data import DataLoader, Dataset

class Crops(Dataset):
    def __len__(self):
        return 10000
    def __getitem__(self, i):
        return [torch.randn(4) for _ in range(20)]   # many small tensors per sample

def keep_list(batch):
    return batch

if __name__ == "__main__":
    seen = []
    it = iter(DataLoader(Crops(), batch_size=8, num_workers=2, collate_fn=keep_list, timeout=60))
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))    # a low `ulimit -n` on the main process
    for step, batch in enumerate(it):
        seen.append(batch)                                     # batches kept alive
        if step % 2 == 0:
            print(f"step {step}: {len(seen)} batches cached", flush=True)
"""

_FDS_WORKER = """
import resource, torch
from torch.utils.data import DataLoader, Dataset
resource.setrlimit(resource.RLIMIT_NOFILE, (100, 100))

class Crops(Dataset):
    def __len__(self):
        return 10000
    def __getitem__(self, i):
        return [torch.randn(4) for _ in range(20)]

def keep_list(batch):
    return batch

if __name__ == "__main__":
    seen = []
    for step, batch in enumerate(DataLoader(Crops(), batch_size=8, num_workers=2, collate_fn=keep_list, timeout=20)):
        seen.append(batch)
"""

# --------------------------------------------------------------------------
# pytorch/dataloader-timeout
# --------------------------------------------------------------------------
_TIMEOUT_SLOW_IO = _LOOP_HEAD + """
from torch.utils.data import DataLoader, Dataset

class RemoteShards(Dataset):
    def __len__(self):
        return 400
    def __getitem__(self, i):
        if i >= 96:
            time.sleep(600)              # object-store read that never returns
        return torch.randn(16), i % 4

def main():
    model = nn.Linear(16, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(RemoteShards(), batch_size=16, num_workers=2, timeout=5)
    for step, (x, y) in enumerate(loader, 1):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        log(step, loss.item())

if __name__ == "__main__":
    main()
"""

_TIMEOUT_DDP = _DDP_HEAD + """
import time
from torch.utils.data import DataLoader, Dataset, DistributedSampler

class Slow(Dataset):
    def __len__(self):
        return 64
    def __getitem__(self, i):
        if rank == 1:
            time.sleep(60)
        return torch.randn(4)

ds = Slow()
loader = DataLoader(ds, batch_size=4, sampler=DistributedSampler(ds), num_workers=1, timeout=4)
for step, x in enumerate(loader):
    print(f"rank {rank} step {step}", flush=True)
    if step == 3:
        break
"""

# --------------------------------------------------------------------------
# pytorch/view-size-not-compatible
# --------------------------------------------------------------------------
_VIEW_ATTN = _LOOP_HEAD + """
B, T, H, D = 2, 16, 4, 8
q = torch.randn(B, H, T, D)
attn = torch.softmax(q @ q.transpose(-2, -1) / D ** 0.5, dim=-1)
out = attn @ q                                     # [B, H, T, D]
out = out.transpose(1, 2).view(B, T, H * D)        # merge heads
"""

_VIEW_PERMUTE_DDP = _DDP_HEAD + """
x = torch.randn(4, 3, 8, 8)
x = x.permute(0, 2, 3, 1)           # to channels-last for a patch embedding
patches = x.view(4, 3, -1)
"""

_VIEW_T = """
import torch
w = torch.randn(64, 32)
flat = w.t().view(-1)
"""

# --------------------------------------------------------------------------
# pytorch/optimizer-state-group-mismatch
# --------------------------------------------------------------------------
_OPTSTATE_UNFROZEN = _LOOP_HEAD + """
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
model[0].requires_grad_(False)                             # stage 1: backbone frozen
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
for step in range(1, 4):
    loss = F.cross_entropy(model(torch.randn(8, 16)), torch.randint(0, 4, (8,)))
    opt.zero_grad(); loss.backward(); opt.step(); log(step, loss.item())
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, "stage1.pt")

print("stage 2: unfreezing backbone, resuming from stage1.pt", flush=True)
model[0].requires_grad_(True)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
ckpt = torch.load("stage1.pt")
model.load_state_dict(ckpt["model"])
opt.load_state_dict(ckpt["optimizer"])
"""

_OPTSTATE_GROUPS_DDP = _DDP_HEAD + """
model = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8), nn.Linear(8, 2))
decay = [p for n, p in model.named_parameters() if n.endswith("weight") and p.dim() > 1]
no_decay = [p for n, p in model.named_parameters() if not (n.endswith("weight") and p.dim() > 1)]
old = torch.optim.AdamW(model.parameters(), lr=1e-3)               # the run that saved the checkpoint
state = old.state_dict()
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-3)
opt.load_state_dict(state)
"""

_OPTSTATE_LORA = """
import torch, torch.nn as nn
base = nn.Linear(32, 32)
lora_a, lora_b = nn.Linear(32, 4, bias=False), nn.Linear(4, 32, bias=False)
saved = torch.optim.AdamW(list(lora_a.parameters()) + list(lora_b.parameters()), lr=2e-4).state_dict()
head = nn.Linear(32, 2)                                      # a new classification head trained too
opt = torch.optim.AdamW(list(lora_a.parameters()) + list(lora_b.parameters()) + list(head.parameters()), lr=2e-4)
opt.load_state_dict(saved)
"""

# --------------------------------------------------------------------------
# pytorch/inductor-backend-compiler-failed
# --------------------------------------------------------------------------
_INDUCTOR_DIRECT = """
import torch
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Linear(64, 8))
compiled = torch.compile(model)
print("compiling...", flush=True)
out = compiled(torch.randn(4, 32))
"""

_INDUCTOR_LOOP = _LOOP_HEAD + """
model = torch.compile(nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
print("torch.compile enabled (backend=inductor)", flush=True)
for step in range(3):
    loss = F.cross_entropy(model(torch.randn(8, 16)), torch.randint(0, 2, (8,)))
    opt.zero_grad(); loss.backward(); opt.step()
"""

# --------------------------------------------------------------------------
# pytorch/dynamo-recompile-limit
# --------------------------------------------------------------------------
_RECOMPILE_FLOAT_LR = _LOOP_HEAD + """
tasks = ["sst2", "mnli", "qqp", "qnli", "rte", "wnli", "cola", "stsb", "mrpc", "boolq", "copa", "wic"]
heads = nn.ModuleDict({t: nn.Linear(16, 2) for t in tasks})
body = nn.Linear(16, 16)

@torch.compile(backend="eager")
def forward(x, task):
    return heads[task](torch.relu(body(x)))     # a new task name each step: a new guard each time

for step, task in enumerate(tasks * 2, 1):
    x, y = torch.randn(8, 16), torch.randint(0, 2, (8,))
    loss = F.cross_entropy(forward(x, task), y)
    loss.backward()
    if step % 4 == 0:
        print(f"step {step} task {task} loss {loss.item():.4f}", flush=True)
"""

_RECOMPILE_MODE_STRING = """
import torch

@torch.compile(backend="eager")
def augment(x, name):
    return x.flip(-1) if name.endswith("flip") else x * 1.0

for i in range(10):
    augment(torch.randn(3, 8, 8), f"sample_{i}_flip")
"""

_RECOMPILE_FULLGRAPH_DDP = _DDP_HEAD + """
@torch.compile(backend="eager", fullgraph=True)
def scale(x, key):
    return x * 2 if key.startswith("img") else x

for i in range(12):
    scale(torch.randn(4), f"img_{rank}_{i}")
"""

# --------------------------------------------------------------------------
# pytorch/bce-target-size-mismatch
# --------------------------------------------------------------------------
_BCE_SINGLE_UNIT = _LOOP_HEAD + """
model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 1))   # one logit per sample
criterion = nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(32, 10), torch.randint(0, 2, (32,)).float()
loss = criterion(model(x), y)
"""

_BCE_MULTILABEL_DDP = _DDP_HEAD + """
head = nn.Linear(16, 5)                 # 5 tags per sample (multi-label)
labels = torch.randint(0, 5, (8, 1)).float()   # one tag index per sample instead of a multi-hot row
loss = F.binary_cross_entropy_with_logits(head(torch.randn(8, 16)), labels)
"""

_BCE_PROBS = """
import torch, torch.nn.functional as F
probs = torch.sigmoid(torch.randn(4))
targets = torch.tensor([1., 0., 1., 1., 0.])
F.binary_cross_entropy(probs, targets)
"""


def generate() -> None:
    e = "pytorch/tensor-does-not-require-grad"
    _run(e, "frozen-model-direct", _NOGRAD_FROZEN)
    _run(e, "no-grad-helper-after-steps", _NOGRAD_EVAL_HELPER)
    _run(e, "reentrant-checkpoint-frozen-embeddings", _NOGRAD_CHECKPOINT)
    _run(e, "inference-mode-torchrun", _NOGRAD_DDP, torchrun=TR2)

    e = "pytorch/dataloader-worker-exception"
    _run(e, "keyerror-in-getitem", _WORKER_KEYERROR)
    _run(e, "missing-file-tail", _WORKER_FILENOTFOUND, keep="tail:24")
    _run(e, "valueerror-torchrun", _WORKER_DDP_VALUEERROR, torchrun=TR2)

    e = "pytorch/collate-stack-unequal-size"
    _run(e, "token-ids-no-padding", _STACK_TOKENS)
    _run(e, "grayscale-image-in-worker", _STACK_IMAGES_WORKERS)
    _run(e, "resize-storage-worker", _STACK_RESIZE_STORAGE)
    _run(e, "token-ids-tail", _STACK_TOKENS, keep="tail:2")

    e = "pytorch/embedding-index-out-of-range"
    _run(e, "added-special-tokens-mid-training", _EMB_ADDED_TOKENS)
    _run(e, "positions-longer-than-table", _EMB_POSITIONS)
    _run(e, "negative-id-torchrun", _EMB_DDP, torchrun=TR2)

    e = "pytorch/batch-size-mismatch-input-target"
    _run(e, "cnn-wrong-view", _BS_CNN_VIEW)
    _run(e, "lm-sequence-labels", _BS_LM_LABELS)
    _run(e, "nllloss-torchrun", _BS_DDP, torchrun=TR2)
    _run(e, "cnn-wrong-view-tail", _BS_CNN_VIEW, keep="tail:1")

    e = "pytorch/state-dict-size-mismatch"
    _run(e, "classifier-head-1000-vs-10", _SD_HEAD_CLASSES)
    _run(e, "transformers-num-labels", _SD_HF_NUM_LABELS)
    _run(e, "resized-vocab-torchrun", _SD_VOCAB_DDP, torchrun=TR2)

    e = "pytorch/deserialize-cuda-on-cpu-machine"
    _run(e, "gpu-checkpoint-on-laptop", _DESER_DIRECT)
    _run(e, "gpu-checkpoint-torchrun-gloo", _DESER_DDP, torchrun=TR2)
    _run(e, "gpu-checkpoint-tail", _DESER_DIRECT, keep="tail:3")

    e = "pytorch/meta-tensor-copy-out"
    _run(e, "meta-device-to-cpu", _META_DEVICE_TO)
    _run(e, "init-empty-weights-partial-load", _META_ACCELERATE)
    _run(e, "buffer-not-loaded-item", _META_BUFFER_ITEM)

    e = "pytorch/amp-unscale-fp16-gradients"
    _run(e, "half-model-gradscaler", _AMP_HALF_MODEL)
    _run(e, "fp16-lora-clip-grad", _AMP_LORA_CLIP)
    _run(e, "half-model-torchrun", _AMP_DDP, torchrun=TR2)

    e = "pytorch/leaf-variable-inplace"
    _run(e, "custom-init-without-no-grad", _LEAF_INIT)
    _run(e, "clamp-after-steps", _LEAF_CLAMP_LOOP)
    _run(e, "view-of-leaf-input", _LEAF_VIEW, keep="tail:2")

    e = "pytorch/grad-implicit-non-scalar"
    _run(e, "weighted-reduction-none", _NONSCALAR_REDUCTION_NONE)
    _run(e, "mse-without-mean-torchrun", _NONSCALAR_DDP, torchrun=TR2)
    _run(e, "complex-loss", _NONSCALAR_COMPLEX)

    e = "pytorch/tensor-size-mismatch-broadcast"
    _run(e, "mask-built-for-max-length", _BCAST_MASK)
    _run(e, "weights-sized-for-full-batch", _BCAST_LAST_BATCH)
    _run(e, "position-table-expand-torchrun", _BCAST_EXPAND_DDP, torchrun=TR2)

    e = "pytorch/target-out-of-bounds"
    _run(e, "labels-numbered-from-one", _TARGET_ONE_BASED)
    _run(e, "segmentation-void-255", _TARGET_SEG_VOID, keep="tail:6")
    _run(e, "minus-one-padding-torchrun", _TARGET_PAD_DDP, torchrun=TR2)

    e = "pytorch/conv-channel-mismatch"
    _run(e, "grayscale-into-rgb-model", _CONV_GRAYSCALE)
    _run(e, "numpy-nhwc-images", _CONV_NHWC)
    _run(e, "conv1d-time-major-torchrun", _CONV1D_DDP, torchrun=TR2)
    _run(e, "video-5d-into-conv2d", _CONV_5D, keep="tail:1")

    e = "pytorch/anomaly-nan-in-backward"
    _run(e, "sqrt-of-zero-distance", _NAN_SQRT)
    _run(e, "log-softmax-underflow-loop", _NAN_LOG_LOOP)
    _run(e, "normalize-zero-vector-torchrun", _NAN_DIV_DDP, torchrun=TR2)

    e = "pytorch/batchnorm-single-value-per-channel"
    _run(e, "last-batch-of-one", _BN_LAST_BATCH)
    _run(e, "pooled-single-image-train-mode", _BN_POOLED_SINGLE)
    _run(e, "split-batch-torchrun", _BN_DDP, torchrun=TR2)

    e = "pytorch/optimizer-empty-parameter-list"
    _run(e, "layers-in-python-list", _OPT_PYTHON_LIST)
    _run(e, "frozen-before-adapters", _OPT_FROZEN_FILTER)
    _run(e, "consumed-generator-torchrun", _OPT_GENERATOR_DDP, torchrun=TR2)

    e = "pytorch/collate-unsupported-type"
    _run(e, "dataclass-record", _COLLATE_PIL)
    _run(e, "none-sample-in-worker", _COLLATE_NONE_WORKERS)
    _run(e, "ragged-object-array", _COLLATE_OBJECT_ARRAY, keep="tail:1")

    e = "pytorch/sampler-shuffle-mutually-exclusive"
    _run(e, "distributed-sampler-torchrun", _SAMPLER_DDP, torchrun=TR2)
    _run(e, "weighted-sampler-shuffle", _SAMPLER_WEIGHTED)
    _run(e, "batch-sampler-with-batch-size", _BATCH_SAMPLER)

    e = "pytorch/zip-archive-central-directory"
    _run(e, "truncated-resume-checkpoint", _ZIP_TRUNCATED)
    _run(e, "read-while-writing-torchrun", _ZIP_DDP_RACE, torchrun=TR2)
    _run(e, "corrupted-local-header", _ZIP_CORRUPT, keep="tail:1")

    e = "pytorch/unpickling-invalid-load-key"
    _run(e, "git-lfs-pointer", _PICKLE_LFS)
    _run(e, "html-instead-of-checkpoint", _PICKLE_HTML)
    _run(e, "zero-filled-file-torchrun", _PICKLE_ZEROS_DDP, torchrun=TR2)

    e = "pytorch/multiprocessing-bootstrapping-phase"
    _run(e, "spawn-dataloader-top-level", _BOOT_DATALOADER, timeout=90)
    _run(e, "forkserver-mp-spawn-top-level", _BOOT_MP_SPAWN, timeout=90)
    _run(e, "spawn-dataloader-tail", _BOOT_DATALOADER, keep="tail:70", timeout=90)

    e = "pytorch/dataloader-too-many-open-files"
    _run(e, "ancdata-main-process", _FDS_MAIN, timeout=150)
    _run(e, "shm-open-in-workers", _FDS_WORKER, timeout=150)
    _run(e, "ancdata-tail", _FDS_MAIN, keep="tail:3", timeout=150)

    e = "pytorch/dataloader-timeout"
    _run(e, "object-store-read-hangs", _TIMEOUT_SLOW_IO, timeout=120)
    _run(e, "slow-rank-torchrun", _TIMEOUT_DDP, torchrun=TR2, timeout=150)
    _run(e, "object-store-tail", _TIMEOUT_SLOW_IO, keep="tail:2", timeout=120)

    e = "pytorch/view-size-not-compatible"
    _run(e, "merge-heads-after-transpose", _VIEW_ATTN)
    _run(e, "channels-last-patches-torchrun", _VIEW_PERMUTE_DDP, torchrun=TR2)
    _run(e, "transposed-weight-flatten", _VIEW_T, keep="tail:1")

    e = "pytorch/optimizer-state-group-mismatch"
    _run(e, "resume-after-unfreezing", _OPTSTATE_UNFROZEN)
    _run(e, "weight-decay-groups-torchrun", _OPTSTATE_GROUPS_DDP, torchrun=TR2)
    _run(e, "new-head-with-lora", _OPTSTATE_LORA, keep="tail:4")

    e = "pytorch/inductor-backend-compiler-failed"
    no_cxx = {"CXX": "g++-14"}   # a compiler that is not installed: what a slim image without g++ gives
    _run(e, "no-cxx-compiler", _INDUCTOR_DIRECT, env=no_cxx)
    _run(e, "no-cxx-compiler-training-tail", _INDUCTOR_LOOP, env=no_cxx, keep="tail:5")

    e = "pytorch/dynamo-recompile-limit"
    _run(e, "multitask-name-per-step", _RECOMPILE_FLOAT_LR)
    _run(e, "string-argument", _RECOMPILE_MODE_STRING)
    _run(e, "fullgraph-hard-failure-torchrun", _RECOMPILE_FULLGRAPH_DDP, torchrun=TR2)

    e = "pytorch/bce-target-size-mismatch"
    _run(e, "single-logit-vs-flat-labels", _BCE_SINGLE_UNIT)
    _run(e, "multilabel-index-targets-torchrun", _BCE_MULTILABEL_DDP, torchrun=TR2)
    _run(e, "probabilities-deprecated-size", _BCE_PROBS, keep="tail:1")
