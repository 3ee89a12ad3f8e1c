"""Real example logs: datasets (cast errors, loading scripts, glob patterns, column names),
wandb without credentials, and Lightning on a CPU-only machine.

Needs, in the same venv as torch (CPU build): datasets, fsspec, transformers, lightning and wandb from
the package index.  Nothing is downloaded: data files are written by the scripts themselves, the Hub is
switched off (HF_HUB_OFFLINE), and wandb is pointed at a closed port on 127.0.0.1 (WANDB_BASE_URL and
the proxy variables) with an empty HOME, so it never reaches the network and finds no key.
"""
from __future__ import annotations

from generate import run_script

TR2 = {"nproc_per_node": 2}

# HF offline, caches inside the run's temporary folder
_HF_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
           "TOKENIZERS_PARALLELISM": "false"}
_HF_HOME = '''
import os
os.environ["HF_HOME"] = os.path.abspath(".hf")
'''

# ------------------------------------------------------------------ datasets/generation-cast-error ----
CAST_JSONL_NEW_COLUMN = _HF_HOME + r'''
import json
os.makedirs("data", exist_ok=True)
with open("data/part-00000.jsonl", "w") as f:
    for i in range(300):
        f.write(json.dumps({"instruction": f"Summarise note {i}", "output": f"summary {i}"}) + "\n")
with open("data/part-00001.jsonl", "w") as f:   # exported later by a newer preprocessing script
    for i in range(300):
        f.write(json.dumps({"instruction": f"Translate line {i}", "output": f"line {i}", "source": "sharegpt"}) + "\n")

from datasets import load_dataset
ds = load_dataset("json", data_files="data/*.jsonl", split="train")
print(ds)
'''

CAST_CSV_FEATURES = _HF_HOME + r'''
import csv, logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("prepare_data")
with open("reviews_train.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["text", "labels"])
    for i in range(500):
        w.writerow([f"review number {i} was {'great' if i % 2 else 'bad'}", i % 2])

from datasets import ClassLabel, Features, Value, load_dataset
features = Features({"text": Value("string"), "label": ClassLabel(names=["neg", "pos"])})
log.info("loading reviews_train.csv with features %s", list(features))
ds = load_dataset("csv", data_files={"train": "reviews_train.csv"}, features=features)
log.info("loaded %s", ds)
'''

CAST_TRAINER_NUM_PROC = _HF_HOME + r'''
import json, logging, sys
logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s %(name)s: %(message)s",
                    stream=sys.stdout)
log = logging.getLogger("sft")
os.makedirs("corpus", exist_ok=True)
for shard in range(4):
    with open(f"corpus/chat-{shard:05d}.jsonl", "w") as f:
        for i in range(250):
            row = {"messages": [{"role": "user", "content": f"hi {i}"}, {"role": "assistant", "content": f"hello {i}"}]}
            if shard == 3:            # the eval dump that ended up next to the training shards
                row = {"prompt": f"hi {i}", "completion": f"hello {i}", "score": 0.5}
            f.write(json.dumps(row) + "\n")

import datasets, transformers
log.info("datasets %s, transformers %s", datasets.__version__, transformers.__version__)
log.info("building training set from corpus/*.jsonl with 2 processes")
train = datasets.load_dataset("json", data_files="corpus/*.jsonl", split="train", num_proc=2)
log.info("train rows: %d", len(train))
'''

# ---------------------------------------------------------- datasets/scripts-no-longer-supported ----
_SCRIPT_BODY = r'''
import datasets

class MyCorpus(datasets.GeneratorBasedBuilder):
    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features({"text": datasets.Value("string")}))
    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN, gen_kwargs={"path": "raw.txt"})]
    def _generate_examples(self, path):
        for i, line in enumerate(open(path)):
            yield i, {"text": line.strip()}
'''

SCRIPT_LOCAL_FOLDER = _HF_HOME + f'''
os.makedirs("my_corpus", exist_ok=True)
open("my_corpus/my_corpus.py", "w").write({_SCRIPT_BODY!r})
open("my_corpus/raw.txt", "w").write("first line\\nsecond line\\n")
from datasets import load_dataset
ds = load_dataset("./my_corpus", split="train")
print(ds)
'''

SCRIPT_TRUST_REMOTE_CODE = _HF_HOME + f'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("eval_harness")
os.makedirs("loaders", exist_ok=True)
open("loaders/wiki_sections.py", "w").write({_SCRIPT_BODY!r})
import datasets
log.info("task wiki_sections: datasets %s", datasets.__version__)
ds = datasets.load_dataset("loaders/wiki_sections.py", split="train", trust_remote_code=True)
'''

SCRIPT_TORCHRUN = _HF_HOME + f'''
import datetime, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank()
if rank == 0:
    os.makedirs("corpora/medqa", exist_ok=True)
    open("corpora/medqa/medqa.py", "w").write({_SCRIPT_BODY!r})
dist.barrier()
print(f"[rank {{rank}}] loading corpora/medqa", flush=True)
from datasets import load_dataset
ds = load_dataset("corpora/medqa", split="train")
'''

# ---------------------------------------------------------------- datasets/fsspec-invalid-pattern ----
GLOB_USER_PATTERN = _HF_HOME + r'''
import json
for d in ("data/2024-05", "data/2024-06"):
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/dialogs.jsonl", "w") as f:
        for i in range(20):
            f.write(json.dumps({"text": f"turn {i}"}) + "\n")
from datasets import load_dataset
ds = load_dataset("json", data_files="data/**.jsonl", split="train")
'''

GLOB_USER_SPLIT_PATTERN = _HF_HOME + r'''
import logging, sys
import pyarrow as pa, pyarrow.parquet as pq
logging.basicConfig(level=logging.INFO, format="%(asctime)s | %(levelname)s | %(message)s", stream=sys.stdout)
log = logging.getLogger("pretrain")
os.makedirs("shards/en", exist_ok=True)
for split in ("train", "valid"):
    pq.write_table(pa.table({"text": [f"{split} doc {i}" for i in range(64)]}), f"shards/en/{split}-00000.parquet")
data_files = {"train": "shards/**train*.parquet", "validation": "shards/**valid*.parquet"}
log.info("data_files=%s", data_files)
from datasets import load_dataset
raw = load_dataset("parquet", data_files=data_files)
log.info("%s", raw)
'''

# ------------------------------------------------------------------ datasets/column-not-in-dataset ----
COL_MAP_REMOVE = _HF_HOME + r'''
from datasets import Dataset
from transformers import BertTokenizerFast
vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(50)] + ["great", "bad", "movie"]
open("vocab.txt", "w").write("\n".join(vocab))
tok = BertTokenizerFast("vocab.txt")
ds = Dataset.from_dict({"content": ["great movie", "bad movie"] * 50, "label": [1, 0] * 50})
def tokenize(batch):
    return tok(batch["content"], truncation=True, max_length=32)
tokenized = ds.map(tokenize, batched=True, remove_columns=["text"])   # copied from a notebook that used "text"
'''

COL_RENAME_TWICE = _HF_HOME + r'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("finetune")
from datasets import Dataset, DatasetDict
raw = DatasetDict({
    "train": Dataset.from_dict({"text": ["a", "b", "c", "d"], "label": [0, 1, 0, 1]}),
    "validation": Dataset.from_dict({"text": ["e", "f"], "label": [1, 0]}),
})
raw = raw.rename_column("label", "labels")
log.info("columns after rename: %s", raw["train"].column_names)
# ... a later cell of the same notebook, run again
raw = raw.rename_column("label", "labels")
'''

COL_SELECT_TORCHRUN = _HF_HOME + r'''
import datetime, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank()
from datasets import Dataset
ds = Dataset.from_dict({"input_ids": [[1, 2, 3]] * 64, "attention_mask": [[1, 1, 1]] * 64, "label": [0, 1] * 32})
ds = ds.shard(num_shards=dist.get_world_size(), index=rank)
print(f"[rank {rank}] {len(ds)} examples", flush=True)
ds = ds.select_columns(["input_ids", "attention_mask", "labels"])
ds.set_format("torch")
'''

# ----------------------------------------------------------------------- wandb/api-key-not-configured ----
_WANDB_ENV = {
    # no key anywhere, no terminal, and nothing reachable: a closed port on loopback
    "WANDB_BASE_URL": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
    "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "NO_PROXY": "", "no_proxy": "",
    "WANDB_API_KEY": "", "WANDB_MODE": "", "WANDB_SILENT": "", "WANDB_DISABLE_GIT": "true",
    "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
}
_WANDB_HOME = r'''
import os, sys
os.environ.pop("WANDB_API_KEY", None); os.environ.pop("WANDB_MODE", None); os.environ.pop("WANDB_SILENT", None)
os.environ["HOME"] = os.path.abspath("home"); os.makedirs("home", exist_ok=True)
os.environ["WANDB_DIR"] = os.path.abspath("."); os.environ["WANDB_CONFIG_DIR"] = os.path.abspath("home/.config/wandb")
os.environ["WANDB_CACHE_DIR"] = os.path.abspath("home/.cache/wandb")
'''

WANDB_PLAIN = _WANDB_HOME + r'''
import argparse, wandb
args = argparse.Namespace(lr=3e-4, batch_size=64, epochs=20, model="unet-small")
print(f"config: {vars(args)}", flush=True)
run = wandb.init(project="ddpm-cifar", config=vars(args))
'''

WANDB_TRAINER = _WANDB_HOME + r'''
import torch
from datasets import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments
from transformers.utils import logging as hf_logging
hf_logging.set_verbosity_info()
model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=128, n_positions=64))
ds = Dataset.from_dict({"input_ids": [[i % 128 for i in range(16)]] * 32})
ds = ds.map(lambda r: {"labels": r["input_ids"]})
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, max_steps=4, report_to="wandb",
                         run_name="gpt2-tiny-sft", logging_steps=1, use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=ds)
trainer.train()
'''

WANDB_LIGHTNING = _WANDB_HOME + r'''
import torch, lightning as L
from lightning.pytorch.loggers import WandbLogger
from torch.utils.data import DataLoader, TensorDataset

class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = torch.nn.Linear(8, 1)
    def training_step(self, batch, _):
        x, y = batch; loss = torch.nn.functional.mse_loss(self.net(x), y); self.log("train_loss", loss); return loss
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)

logger = WandbLogger(project="tabular-baselines", name="linear-seed0", log_model=False)
trainer = L.Trainer(max_epochs=1, accelerator="cpu", logger=logger, enable_progress_bar=False)
dl = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=16)
trainer.fit(Regressor(), dl)
'''

# ---------------------------------------------------------------------- lightning/epoch-end-hooks-removed ----
_LIT_HEAD = r"""
import torch, torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

def loaders():
    torch.manual_seed(0)
    x = torch.randn(96, 16); y = (x.sum(1) > 0).long()
    return (DataLoader(TensorDataset(x[:64], y[:64]), batch_size=16),
            DataLoader(TensorDataset(x[64:], y[64:]), batch_size=16))
"""

EPOCH_END_VALIDATION = _LIT_HEAD + r"""
import lightning as L

class LitClassifier(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
    def training_step(self, batch, _):
        x, y = batch; loss = F.cross_entropy(self.net(x), y); self.log("train_loss", loss); return loss
    def validation_step(self, batch, _):
        x, y = batch; return {"val_loss": F.cross_entropy(self.net(x), y)}
    def validation_epoch_end(self, outputs):            # Lightning 1.x hook
        self.log("val_loss", torch.stack([o["val_loss"] for o in outputs]).mean())
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

train_dl, val_dl = loaders()
trainer = L.Trainer(max_epochs=3, accelerator="cpu", enable_progress_bar=False, logger=False)
trainer.fit(LitClassifier(), train_dl, val_dl)
"""

EPOCH_END_TRAINING_PL = _LIT_HEAD + r"""
import logging, sys
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stdout)
log = logging.getLogger("seq2seq")
import pytorch_lightning as pl
log.info("pytorch_lightning %s, torch %s", pl.__version__, torch.__version__)

class Seq2SeqModule(pl.LightningModule):
    def __init__(self):
        super().__init__(); self.enc = torch.nn.Linear(16, 2)
    def training_step(self, batch, _):
        x, y = batch; loss = F.cross_entropy(self.enc(x), y); return {"loss": loss}
    def training_epoch_end(self, outputs):
        avg = torch.stack([o["loss"] for o in outputs]).mean()
        self.log("train_loss_epoch", avg)
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)

train_dl, _ = loaders()
trainer = pl.Trainer(max_epochs=5, accelerator="cpu", devices=1, log_every_n_steps=2, logger=False)
log.info("starting fit")
trainer.fit(Seq2SeqModule(), train_dataloaders=train_dl)
"""

EPOCH_END_TEST_DDP = _LIT_HEAD + r"""
import lightning as L

class Detector(L.LightningModule):
    def __init__(self):
        super().__init__(); self.head = torch.nn.Linear(16, 2)
    def test_step(self, batch, _):
        x, y = batch; return {"correct": (self.head(x).argmax(1) == y).sum(), "n": len(y)}
    def test_epoch_end(self, outputs):
        self.log("test_acc", sum(o["correct"] for o in outputs) / sum(o["n"] for o in outputs))

_, test_dl = loaders()
trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", logger=False, enable_progress_bar=False)
trainer.test(Detector(), dataloaders=test_dl)
"""

# ------------------------------------------------------------- lightning/gpu-requested-none-available ----
GPU_TRAINER_GPU = r'''
import torch, lightning as L
print(f"torch {torch.__version__} (cuda {torch.version.cuda}), lightning {L.__version__}", flush=True)
trainer = L.Trainer(accelerator="gpu", devices=1, max_epochs=10, precision="16-mixed")
'''

GPU_TRAINER_CUDA_CLI = r'''
import logging, sys
logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(name)s: %(message)s", stream=sys.stdout)
log = logging.getLogger("train")
import yaml, lightning as L
cfg = yaml.safe_load("""
trainer:
  accelerator: cuda
  devices: 2
  strategy: ddp
  precision: bf16-mixed
  max_steps: 20000
model:
  hidden: 512
""")
log.info("trainer config: %s", cfg["trainer"])
trainer = L.Trainer(**cfg["trainer"])
'''

GPU_FABRIC = r'''
import torch
from lightning.fabric import Fabric
fabric = Fabric(accelerator="cuda", devices=1, precision="bf16-mixed")
fabric.launch()
model = torch.nn.Linear(32, 32)
'''


def generate() -> None:
    e = "datasets/generation-cast-error"
    run_script(e, "jsonl-shard-new-column", CAST_JSONL_NEW_COLUMN, env=_HF_ENV)
    run_script(e, "csv-features-label-vs-labels", CAST_CSV_FEATURES, env=_HF_ENV)
    run_script(e, "num-proc-eval-dump-in-glob", CAST_TRAINER_NUM_PROC, env=_HF_ENV)

    e = "datasets/scripts-no-longer-supported"
    run_script(e, "local-folder-with-script", SCRIPT_LOCAL_FOLDER, env=_HF_ENV)
    run_script(e, "trust-remote-code-ignored", SCRIPT_TRUST_REMOTE_CODE, env=_HF_ENV)
    run_script(e, "torchrun-two-ranks", SCRIPT_TORCHRUN, env=_HF_ENV, torchrun=TR2)

    e = "datasets/fsspec-invalid-pattern"
    run_script(e, "user-pattern-double-star-suffix", GLOB_USER_PATTERN, env=_HF_ENV)
    run_script(e, "user-split-patterns-parquet", GLOB_USER_SPLIT_PATTERN, env=_HF_ENV)

    e = "datasets/column-not-in-dataset"
    run_script(e, "map-remove-columns-text", COL_MAP_REMOVE, env=_HF_ENV)
    run_script(e, "rename-column-twice", COL_RENAME_TWICE, env=_HF_ENV)
    run_script(e, "select-columns-torchrun", COL_SELECT_TORCHRUN, env=_HF_ENV, torchrun=TR2)

    e = "wandb/api-key-not-configured"
    run_script(e, "wandb-init-no-tty", WANDB_PLAIN, env=_WANDB_ENV)
    run_script(e, "trainer-report-to-wandb", WANDB_TRAINER, env=_WANDB_ENV)
    run_script(e, "lightning-wandb-logger", WANDB_LIGHTNING, env=_WANDB_ENV)

    e = "lightning/epoch-end-hooks-removed"
    run_script(e, "validation-epoch-end-fit", EPOCH_END_VALIDATION)
    run_script(e, "pytorch-lightning-training-epoch-end", EPOCH_END_TRAINING_PL)
    run_script(e, "test-epoch-end-ddp-torchrun", EPOCH_END_TEST_DDP, torchrun=TR2)

    e = "lightning/gpu-requested-none-available"
    run_script(e, "trainer-accelerator-gpu", GPU_TRAINER_GPU)
    run_script(e, "trainer-cuda-from-yaml-config", GPU_TRAINER_CUDA_CLI)
    run_script(e, "fabric-cuda", GPU_FABRIC)
