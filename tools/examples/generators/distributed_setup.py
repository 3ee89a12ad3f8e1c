"""Real logs: distributed setup and launcher errors, and two DDP warnings people blame.

Everything runs on CPU with the gloo backend (torchrun, mp.spawn, plain scripts):

- pytorch/process-group-initialized-twice: init_process_group on top of an existing default group
  (a fold loop, accelerate's PartialState / TrainingArguments, an mp.spawn worker).
- pytorch/elastic-signal-exception: a driver starts torchrun and sends the agent SIGTERM / SIGHUP,
  as a scheduler (time limit, preemption) or a closed terminal would.
- pytorch/ddp-find-unused-no-unused-warning: DDP with find_unused_parameters=True and no unused
  parameter (plain DDP, the HF Trainer's default, Lightning's strategy).
- pytorch/launch-local-rank-unrecognized: torch.distributed.launch passing --local-rank to scripts
  whose argparse does not know it.
- pytorch/gloo-socket-interface-not-found: GLOO_SOCKET_IFNAME naming an interface that does not exist.
- pytorch/syncbatchnorm-cpu-input: SyncBatchNorm trained on CPU tensors in a gloo group.
- pytorch/ddp-grad-strides-warning: a model converted to channels_last after DDP wrapped it.
- pytorch/mp-context-already-set: set_start_method called twice / at module level with spawn children.
"""
from __future__ import annotations

from generate import run_script

_TR = {"nproc_per_node": 2}

# A helper prepended to scripts that need MASTER_ADDR/MASTER_PORT without torchrun.
_FREE_PORT = '''
import os, socket
def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", str(_free_port()))
'''

# A driver: writes the worker script, runs `python -m <module> ...` on it, passes its output through.
def _driver(worker: str, module_argv: list[str], env: dict | None = None, signal_after: str | None = None,
            signum: str = "SIGTERM") -> str:
    return (
        "import os, signal, socket, subprocess, sys, time, pathlib\n"
        f"pathlib.Path('train.py').write_text({worker!r})\n"
        "with socket.socket() as s:\n"
        "    s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]\n"
        f"argv = [sys.executable, '-m'] + [a.replace('PORT', str(port)) for a in {module_argv!r}]\n"
        f"env = dict(os.environ, **{(env or {})!r})\n"
        "proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)\n"
        f"after, signum, sent = {signal_after!r}, {signum!r}, False\n"
        "for line in proc.stdout:\n"
        "    sys.stdout.write(line); sys.stdout.flush()\n"
        "    if after and not sent and after in line:\n"
        "        time.sleep(0.5)\n"
        "        proc.send_signal(getattr(signal, signum)); sent = True\n"
        "sys.exit(proc.wait())\n"
    )


# --------------------------------------------------------------------------
# pytorch/process-group-initialized-twice
# --------------------------------------------------------------------------
PG_TWICE = "pytorch/process-group-initialized-twice"

PG_TWICE_FOLDS = _FREE_PORT + r'''
import torch, torch.distributed as dist, torch.nn as nn

def setup():
    dist.init_process_group("gloo", rank=0, world_size=1)

def run_fold(fold):
    setup()
    model = nn.Linear(16, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        loss = model(torch.randn(8, 16)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"fold {fold}: loss={loss.item():.4f}", flush=True)

for fold in range(5):
    run_fold(fold)
'''

PG_TWICE_ACCELERATE = r'''
import logging, os
import torch, torch.distributed as dist
from transformers import TrainingArguments
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("finetune")

args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, use_cpu=True, report_to=[])
log.info("process %d/%d, device %s", args.process_index, args.world_size, args.device)

# our own distributed helpers, written for plain torchrun scripts
def init_distributed():
    dist.init_process_group(backend="gloo")
    return dist.get_rank(), dist.get_world_size()

rank, world = init_distributed()
log.info("rank %d of %d ready", rank, world)
'''

PG_TWICE_SPAWN = _FREE_PORT + r'''
import torch, torch.distributed as dist, torch.multiprocessing as mp, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

def setup(rank, world):
    dist.init_process_group("gloo", rank=rank, world_size=world)

def train(rank, world):
    setup(rank, world)
    model = DDP(nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(2):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"train done, loss {loss.item():.4f}", flush=True)
    return model

def evaluate(rank, world, model):
    setup(rank, world)          # copied from train(): initializes again
    with torch.no_grad():
        print(f"[eval] rank {rank}: {model(torch.randn(4, 8)).mean().item():.4f}")

def worker(rank, world):
    model = train(rank, world)
    evaluate(rank, world, model)

if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
'''


# --------------------------------------------------------------------------
# pytorch/elastic-signal-exception
# --------------------------------------------------------------------------
SIGEXC = "pytorch/elastic-signal-exception"

SIG_WORKER = r'''
import os, time, torch, torch.distributed as dist, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
model = DDP(nn.Linear(32, 4))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10_000):
    loss = model(torch.randn(16, 32)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    time.sleep(0.05)
'''

SIG_WORKER_CKPT = r'''
import os, signal, time, torch, torch.distributed as dist, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
stop = False
def on_term(signum, frame):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
dist.init_process_group("gloo")
rank = dist.get_rank()
model = DDP(nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
for step in range(10_000):
    loss = model(torch.randn(16, 32)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 25 == 0:
        print(f"[train] epoch 0 step {step} loss {loss.item():.4f}", flush=True)
    if stop:
        if rank == 0:
            torch.save({"step": step, "model": model.module.state_dict()}, "last.pt")
            print(f"[train] SIGTERM received: saved last.pt at step {step}", flush=True)
        break
    time.sleep(0.05)
'''


# --------------------------------------------------------------------------
# pytorch/ddp-find-unused-no-unused-warning
# --------------------------------------------------------------------------
UNUSED = "pytorch/ddp-find-unused-no-unused-warning"

UNUSED_PLAIN = r'''
import torch, torch.distributed as dist, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
model = DDP(net, find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for step in range(5):
        x, y = torch.randn(32, 20), torch.randint(0, 3, (32,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

UNUSED_TRAINER = r'''
import os, torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments
from transformers.utils import logging as hf_logging
hf_logging.set_verbosity_warning()

class Toy(Dataset):
    def __len__(self): return 64
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return {"input_ids": torch.randint(5, 100, (16,), generator=g), "labels": torch.tensor(i % 2)}

cfg = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64, max_position_embeddings=32, num_labels=2)
model = BertForSequenceClassification(cfg)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, num_train_epochs=1,
                         logging_steps=2, use_cpu=True, report_to=[], save_strategy="no",
                         disable_tqdm=True, ddp_backend="gloo")
Trainer(model=model, args=args, train_dataset=Toy()).train()
'''

UNUSED_THEN_ERROR = r'''
import torch, torch.distributed as dist, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
        self.head = nn.Linear(32, 4)
    def forward(self, x):
        return self.head(self.body(x))

model = DDP(Net(), find_unused_parameters=True)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
history = {}
for step in range(4):
    out = model(torch.randn(8, 10))
    loss = nn.functional.cross_entropy(out, torch.randint(0, 4, (8,)))
    opt.zero_grad(); loss.backward(); opt.step()
    history.setdefault("train_loss", []).append(loss.item())
if rank == 0:
    print("best val loss:", min(history["val_loss"]))
'''

UNUSED_LIGHTNING = r'''
import torch, torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, TensorDataset

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 24), nn.Tanh(), nn.Linear(24, 1))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss)
        return loss
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)

if __name__ == "__main__":
    ds = TensorDataset(torch.randn(64, 12), torch.randn(64, 1))
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp_find_unused_parameters_true",
                        max_epochs=1, enable_progress_bar=False, enable_model_summary=False,
                        logger=False, enable_checkpointing=False)
    trainer.fit(Model(), DataLoader(ds, batch_size=16))
'''


# --------------------------------------------------------------------------
# pytorch/launch-local-rank-unrecognized
# --------------------------------------------------------------------------
LOCAL_RANK = "pytorch/launch-local-rank-unrecognized"

LR_UNDERSCORE = r'''
import argparse, torch, torch.distributed as dist
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=0)
parser.add_argument("--epochs", type=int, default=1)
parser.add_argument("--lr", type=float, default=0.1)
args = parser.parse_args()
dist.init_process_group("gloo")
print(f"rank {dist.get_rank()} local_rank {args.local_rank}")
'''

LR_NONE = r'''
import argparse, os
parser = argparse.ArgumentParser(description="fine-tune a classifier")
parser.add_argument("--data", default="data/train.jsonl")
parser.add_argument("--batch-size", type=int, default=32)
args = parser.parse_args()
local_rank = int(os.environ.get("LOCAL_RANK", 0))
print("local rank", local_rank)
'''


# --------------------------------------------------------------------------
# pytorch/gloo-socket-interface-not-found
# --------------------------------------------------------------------------
GLOO_IF = "pytorch/gloo-socket-interface-not-found"

GLOO_IF_PLAIN = _FREE_PORT + r'''
import torch.distributed as dist
print("GLOO_SOCKET_IFNAME =", os.environ.get("GLOO_SOCKET_IFNAME"), flush=True)
dist.init_process_group("gloo", rank=0, world_size=1)
'''

GLOO_IF_TORCHRUN = r'''
import os, torch, torch.distributed as dist
rank = int(os.environ["RANK"])
print(f"[init] rank {rank}: init_process_group(gloo) via {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
dist.init_process_group("gloo")
t = torch.ones(4)
dist.all_reduce(t)
print(t)
'''

GLOO_IF_SPAWN = _FREE_PORT + r'''
import torch, torch.distributed as dist, torch.multiprocessing as mp

def worker(rank, world):
    dist.init_process_group("gloo", rank=rank, world_size=world)
    dist.barrier()

if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
'''


# --------------------------------------------------------------------------
# pytorch/syncbatchnorm-cpu-input
# --------------------------------------------------------------------------
SYNCBN = "pytorch/syncbatchnorm-cpu-input"

SYNCBN_TORCHRUN = r'''
import torch, torch.distributed as dist, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
model = nn.SyncBatchNorm.convert_sync_batchnorm(model).to(device)
model = DDP(model)
x = torch.randn(8, 3, 32, 32, device=device)
loss = nn.functional.cross_entropy(model(x), torch.randint(0, 10, (8,), device=device))
loss.backward()
'''

SYNCBN_SPAWN = _FREE_PORT + r'''
import logging, torch, torch.distributed as dist, torch.multiprocessing as mp, torch.nn as nn
logging.basicConfig(level=logging.INFO, format="%(asctime)s - seg - %(levelname)s - %(message)s")
norm_cfg = dict(type="SyncBN", requires_grad=True)

def conv_block(cin, cout):
    norm = nn.SyncBatchNorm(cout) if norm_cfg["type"] == "SyncBN" else nn.BatchNorm2d(cout)
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), norm, nn.ReLU(inplace=True))

def worker(rank, world):
    dist.init_process_group("gloo", rank=rank, world_size=world)
    if rank == 0:
        logging.info("norm_cfg = %s", norm_cfg)
    model = nn.Sequential(conv_block(3, 8), conv_block(8, 8), nn.Conv2d(8, 4, 1))
    model.train()
    img, seg = torch.randn(2, 3, 64, 64), torch.randint(0, 4, (2, 64, 64))
    loss = nn.functional.cross_entropy(model(img), seg)
    loss.backward()

if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
'''

SYNCBN_SINGLE = _FREE_PORT + r'''
import torch, torch.distributed as dist, torch.nn as nn
# a one-process "distributed" debug run on a laptop, with the same script as the GPU cluster
dist.init_process_group("gloo", rank=0, world_size=1)
print(f"world_size={dist.get_world_size()} cuda={torch.cuda.is_available()}", flush=True)
backbone = nn.Sequential(nn.Conv1d(1, 8, 5), nn.BatchNorm1d(8), nn.GELU(), nn.Conv1d(8, 8, 5), nn.BatchNorm1d(8))
backbone = nn.SyncBatchNorm.convert_sync_batchnorm(backbone)
out = backbone(torch.randn(4, 1, 100))
'''


# --------------------------------------------------------------------------
# pytorch/ddp-grad-strides-warning
# --------------------------------------------------------------------------
STRIDES = "pytorch/ddp-grad-strides-warning"

STRIDES_TORCHRUN = r'''
import torch, torch.distributed as dist, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
net = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Conv2d(16, 16, 3), nn.AdaptiveAvgPool2d(1),
                    nn.Flatten(), nn.Linear(16, 5))
model = DDP(net)
model = model.to(memory_format=torch.channels_last)   # converted after wrapping
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(3):
    x = torch.randn(8, 3, 24, 24).to(memory_format=torch.channels_last)
    loss = nn.functional.cross_entropy(model(x), torch.randint(0, 5, (8,)))
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

STRIDES_SPAWN_THEN_ERROR = _FREE_PORT + r'''
import torch, torch.distributed as dist, torch.multiprocessing as mp, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

def worker(rank, world):
    dist.init_process_group("gloo", rank=rank, world_size=world)
    net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Conv2d(4, 4, 3))
    model = DDP(net, gradient_as_bucket_view=True)
    net.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        out = model(torch.randn(2, 1, 12, 12))
        out.mean().backward(); opt.step(); opt.zero_grad()
    metrics = {"loss": out.mean().item()}
    if rank == 0:
        print("epoch 0 done", metrics, flush=True)
        print("accuracy:", metrics["acc"])

if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
'''

STRIDES_ACCELERATE = r'''
import torch, torch.nn as nn
from accelerate import Accelerator
acc = Accelerator(cpu=True)
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2))
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
model, opt = acc.prepare(net, opt)
model.to(memory_format=torch.channels_last)
for step in range(4):
    x = torch.randn(4, 3, 16, 16).to(memory_format=torch.channels_last)
    loss = nn.functional.cross_entropy(model(x), torch.randint(0, 2, (4,)))
    acc.backward(loss); opt.step(); opt.zero_grad()
    acc.print(f"step {step}: loss {loss.item():.4f}")
'''


# --------------------------------------------------------------------------
# pytorch/mp-context-already-set
# --------------------------------------------------------------------------
MPCTX = "pytorch/mp-context-already-set"

MPCTX_TWICE = r'''
import multiprocessing as mp
import torch

def setup_workers():
    # helper from an inference library: wants fork for fast worker start
    mp.set_start_method("fork")

def main():
    mp.set_start_method("spawn")        # our training script wants spawn
    setup_workers()

if __name__ == "__main__":
    main()
'''

MPCTX_DATALOADER = r'''
import torch, torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset
mp.set_start_method("spawn")            # at module level: runs again in every worker

class Squares(Dataset):
    def __len__(self): return 32
    def __getitem__(self, i): return torch.tensor([float(i)]), torch.tensor([float(i * i)])

if __name__ == "__main__":
    loader = DataLoader(Squares(), batch_size=8, num_workers=2)
    for x, y in loader:
        print(x.shape, y.shape)
'''

MPCTX_QUEUE_FIRST = r'''
import torch.multiprocessing as mp

def producer(q):
    q.put("ready")

if __name__ == "__main__":
    results = mp.Queue()                 # uses (and fixes) the default context
    print("queue created", flush=True)
    mp.set_start_method("spawn")
    p = mp.Process(target=producer, args=(results,)); p.start(); print(results.get()); p.join()
'''


def generate() -> None:
    # process group initialized twice
    run_script(PG_TWICE, "fold-loop-setup-twice-plain", PG_TWICE_FOLDS)
    run_script(PG_TWICE, "trainingargs-then-init-torchrun", PG_TWICE_ACCELERATE, torchrun=_TR)
    run_script(PG_TWICE, "mp-spawn-train-then-eval-setup", PG_TWICE_SPAWN)

    # SignalException: torchrun's agent receives SIGTERM / SIGHUP
    tr = ["torch.distributed.run", "--nnodes=1", "--nproc_per_node=2", "--master_port=PORT", "train.py"]
    run_script(SIGEXC, "torchrun-agent-sigterm", _driver(SIG_WORKER, tr, signal_after="step 40"))
    run_script(SIGEXC, "torchrun-agent-sighup", _driver(SIG_WORKER, tr, signal_after="step 20", signum="SIGHUP"))
    run_script(SIGEXC, "torchrun-sigterm-workers-save-checkpoint",
               _driver(SIG_WORKER_CKPT, tr, signal_after="step 50"))

    # find_unused_parameters=True but nothing unused (benign)
    run_script(UNUSED, "plain-ddp-torchrun", UNUSED_PLAIN, torchrun=_TR)
    run_script(UNUSED, "hf-trainer-default-torchrun", UNUSED_TRAINER, torchrun=_TR,
               env={"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false"})
    run_script(UNUSED, "warning-then-user-keyerror-torchrun", UNUSED_THEN_ERROR, torchrun=_TR)
    run_script(UNUSED, "lightning-ddp-find-unused-true", UNUSED_LIGHTNING, timeout=240)

    # torch.distributed.launch --local-rank
    launch = ["torch.distributed.launch", "--nproc_per_node=2", "--master_port=PORT", "train.py"]
    run_script(LOCAL_RANK, "launch-underscore-only", _driver(LR_UNDERSCORE, launch + ["--epochs", "3"]))
    run_script(LOCAL_RANK, "launch-script-written-for-torchrun",
               _driver(LR_NONE, launch + ["--data", "data/train.jsonl", "--batch-size", "16"]))
    launch1 = ["torch.distributed.launch", "--nnodes=1", "--nproc_per_node=1", "--master_port=PORT", "train.py"]
    run_script(LOCAL_RANK, "launch-single-proc-extra-flag",
               _driver(LR_UNDERSCORE, launch1 + ["--lr", "0.01", "--warmup", "100"]))

    # GLOO_SOCKET_IFNAME naming a missing interface
    run_script(GLOO_IF, "plain-init-eth9", GLOO_IF_PLAIN, env={"GLOO_SOCKET_IFNAME": "eth9"})
    run_script(GLOO_IF, "torchrun-two-ranks-ens5", GLOO_IF_TORCHRUN, torchrun=_TR,
               env={"GLOO_SOCKET_IFNAME": "ens5"})
    run_script(GLOO_IF, "mp-spawn-nccl-style-exclude", GLOO_IF_SPAWN, env={"GLOO_SOCKET_IFNAME": "^docker0,lo"})

    # SyncBatchNorm on CPU
    run_script(SYNCBN, "torchrun-convert-sync-bn-cpu", SYNCBN_TORCHRUN, torchrun=_TR)
    run_script(SYNCBN, "mp-spawn-syncbn-norm-cfg", SYNCBN_SPAWN)
    run_script(SYNCBN, "single-process-world1-conv1d", SYNCBN_SINGLE)

    # Grad strides (benign)
    run_script(STRIDES, "torchrun-channels-last-after-ddp", STRIDES_TORCHRUN, torchrun=_TR)
    run_script(STRIDES, "mp-spawn-bucket-view-then-keyerror", STRIDES_SPAWN_THEN_ERROR)
    run_script(STRIDES, "accelerate-cpu-channels-last-torchrun", STRIDES_ACCELERATE, torchrun=_TR)

    # multiprocessing context already set
    run_script(MPCTX, "set-start-method-twice", MPCTX_TWICE)
    run_script(MPCTX, "module-level-spawn-dataloader-workers", MPCTX_DATALOADER)
    run_script(MPCTX, "queue-before-set-start-method", MPCTX_QUEUE_FIRST)
