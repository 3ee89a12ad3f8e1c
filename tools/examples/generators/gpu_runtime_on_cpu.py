"""Real example logs (GPU runtime errors) that a CPU-only machine can produce.

Most of these entries need a GPU (CUDA runtime faults, cuDNN statuses, ECC, compute modes) and
have composed logs only.  Two can be produced for real here:

- pytorch/bf16-unsupported-device: transformers' TrainingArguments(bf16=True) checks for a bf16-capable
  GPU; on a machine where torch sees no CUDA device it raises "Your setup doesn't support bf16/gpu".
  That is the common real-world case (CUDA not visible), not an imitation of a pre-Ampere GPU.
- pytorch/sdpa-no-available-kernel: scaled_dot_product_attention restricted to the flash backend (or
  with the math backend disabled globally) on inputs the CPU flash kernel rejects prints the
  "Flash attention kernel not used because" warnings and raises "No available kernel.  Aborting execution."

Nothing is downloaded: models are built from tiny configs in code.
"""
from __future__ import annotations

from generate import run_script

BF16 = "pytorch/bf16-unsupported-device"
SDPA = "pytorch/sdpa-no-available-kernel"

_HF_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TRANSFORMERS_VERBOSITY": "info",
           "TOKENIZERS_PARALLELISM": "false"}

# ------------------------------------------------------------------------------------------- bf16
BF16_TRAINING_ARGS = r'''
import logging, sys
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("finetune")

import torch
from transformers import TrainingArguments

log.info("torch %s, cuda available: %s", torch.__version__, torch.cuda.is_available())
log.info("building training arguments (bf16 mixed precision)")
args = TrainingArguments(
    output_dir="runs/cls-bf16",
    per_device_train_batch_size=16,
    learning_rate=3e-5,
    num_train_epochs=2,
    bf16=True,
    logging_steps=20,
    report_to=[],
)
log.info("arguments ready: %s", args.output_dir)
'''

BF16_SFT_CONFIG = r'''
import logging
logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("sft")

import torch
import transformers, trl
from datasets import Dataset
from transformers import LlamaConfig, LlamaForCausalLM
from trl import SFTConfig

log.info("transformers %s / trl %s / torch %s", transformers.__version__, trl.__version__, torch.__version__)
cfg = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
model = LlamaForCausalLM(cfg)
log.info("model ready: %.2fM parameters", sum(p.numel() for p in model.parameters()) / 1e6)
train = Dataset.from_dict({"text": [f"question {i}? answer {i * 7}." for i in range(64)]})
log.info("dataset: %d rows", len(train))

config = SFTConfig(
    output_dir="out/sft-tiny",
    per_device_train_batch_size=8,
    gradient_accumulation_steps=2,
    learning_rate=2e-4,
    max_steps=50,
    bf16=True,
    logging_steps=5,
    report_to="none",
)
'''

BF16_HFARGPARSER_TORCHRUN = r'''
import os, sys
from dataclasses import dataclass, field
from transformers import HfArgumentParser, TrainingArguments

@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="tiny-llama")
    max_seq_length: int = field(default=512)

rank = int(os.environ.get("RANK", 0))
print(f"[rank {rank}] parsing arguments: {' '.join(sys.argv[1:])}", flush=True)
parser = HfArgumentParser((ModelArguments, TrainingArguments))
model_args, training_args = parser.parse_args_into_dataclasses()
print(f"[rank {rank}] output_dir={training_args.output_dir}", flush=True)
'''

# ------------------------------------------------------------------------------------------- sdpa
SDPA_FLASH_ONLY_HEAD_DIMS = r'''
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

torch.manual_seed(0)
batch, heads, seq = 2, 4, 32
q = torch.randn(batch, heads, seq, 64)
k = torch.randn(batch, heads, seq, 64)
v = torch.randn(batch, heads, seq, 96)      # value head dim differs from query/key

with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(out.shape)
'''

SDPA_STRIDED_LAST_DIM = r'''
import logging
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("train")


class Block(nn.Module):
    def __init__(self, dim=128, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        # packed as (..., head_dim, 3): q, k, v are interleaved, so their last-dim stride is 3
        qkv = self.qkv(x).view(b, t, self.heads, d // self.heads, 3)
        q, k, v = (qkv[..., i].transpose(1, 2) for i in range(3))
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


torch.manual_seed(0)
model = Block()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(3):
    x = torch.randn(8, 16, 128)
    log.info("step %d: forward", step)
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    log.info("step %d: loss %.4f", step, loss.item())
'''

SDPA_MATH_DISABLED_TORCHRUN = r'''
import os
import torch
import torch.distributed as dist
import torch.nn.functional as F

dist.init_process_group("gloo")
rank = dist.get_rank()
# a "fast attention" helper module turned the math fallback off for the whole process
torch.backends.cuda.enable_math_sdp(False)
print(f"[rank {rank}] math sdp enabled: {torch.backends.cuda.math_sdp_enabled()}", flush=True)

torch.manual_seed(rank)
q = torch.randn(4, 8, 128, 80)
k = torch.randn(4, 8, 128, 80)
v = torch.randn(4, 8, 128, 64)
out = F.scaled_dot_product_attention(q, k, v)
dist.all_reduce(out)
dist.destroy_process_group()
'''


def generate() -> None:
    run_script(BF16, "trainingargs-bf16-cuda-not-visible", BF16_TRAINING_ARGS, env=_HF_ENV)
    run_script(BF16, "trl-sftconfig-bf16-no-gpu", BF16_SFT_CONFIG, env=_HF_ENV, timeout=300)
    run_script(BF16, "torchrun-hfargparser-bf16-two-ranks", BF16_HFARGPARSER_TORCHRUN,
               args=["--output_dir", "ckpt/run1", "--bf16", "True", "--per_device_train_batch_size", "4"],
               env=_HF_ENV, torchrun={"nproc_per_node": 2}, timeout=300)

    run_script(SDPA, "flash-only-unequal-head-dims", SDPA_FLASH_ONLY_HEAD_DIMS)
    run_script(SDPA, "flash-only-strided-qkv-in-training-loop", SDPA_STRIDED_LAST_DIM)
    run_script(SDPA, "torchrun-math-sdp-disabled-globally", SDPA_MATH_DISABLED_TORCHRUN,
               torchrun={"nproc_per_node": 2}, timeout=240)
