"""Real example logs for the Hugging Face entries: Transformers, Datasets, Hub, PEFT, TRL, safetensors.

Needs, in the same venv as torch (CPU build): transformers, peft, trl, datasets, accelerate,
huggingface_hub and safetensors from the package index.  Nothing here downloads anything: models and
tokenizers are built from tiny configs in code; Hub failures come from an unreachable endpoint, offline
mode, or a small HTTP stub that this script itself serves on 127.0.0.1.
"""
from __future__ import annotations

import os
import tempfile

from generate import run_script

# a stub "Hub" on loopback that answers every request with one HTTP status (set HF_ENDPOINT before importing)
_STUB = r'''
import os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer

def serve_status(status, body=b"", headers=()):
    class H(BaseHTTPRequestHandler):
        def _answer(self):
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        do_GET = do_HEAD = _answer
        def log_message(self, *a):
            pass
    srv = HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    os.environ["HF_ENDPOINT"] = f"http://127.0.0.1:{srv.server_port}"
'''

# ------------------------------------------------------- hub (existing entry, new variants) ----
HUB_HTTPX_CONNECT = r'''
import logging
logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
from transformers import AutoModelForCausalLM
print("[2026-11-30 09:12:03] rank0: loading Qwen/Qwen2.5-0.5B ...", flush=True)
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
'''

HUB_SNAPSHOT_CONNECT = r'''
from huggingface_hub import snapshot_download
path = snapshot_download("BAAI/bge-small-en-v1.5", allow_patterns=["*.json", "*.safetensors"])
print(path)
'''

HUB_SPECIFIC_401 = _STUB + r'''
serve_status(401, b'{"error": "Invalid credentials in Authorization header"}', [("Content-Type", "application/json")])
from transformers import AutoConfig
print("mirror:", os.environ["HF_ENDPOINT"])
cfg = AutoConfig.from_pretrained("mistralai/Mistral-7B-v0.1")
'''

# ------------------------------------------------------------ peft (existing entry) ----
PEFT_ALL_EXCLUDED = r'''
from transformers import LlamaConfig, LlamaForCausalLM
from peft import LoraConfig, get_peft_model

model = LlamaForCausalLM(LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=2, num_key_value_heads=2, vocab_size=128))
# meant: "leave the embeddings and the head alone"; as a regex it fullmatches every module name
config = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], exclude_modules=r"(model|lm_head).*")
model = get_peft_model(model, config)
model.print_trainable_parameters()
'''

PEFT_FUSED_EXPERTS = r'''
from transformers import MixtralConfig, MixtralForCausalLM
from peft import LoraConfig, get_peft_model

cfg = MixtralConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                    num_key_value_heads=2, vocab_size=64, num_local_experts=4)
model = MixtralForCausalLM(cfg)
print("expert params:", [n for n, _ in model.named_parameters() if "experts" in n][:2])
# LoRA on the experts only, as in an older MoE recipe
config = LoraConfig(r=8, lora_alpha=16, target_modules=["gate_up_proj", "down_proj"], task_type="CAUSAL_LM")
model = get_peft_model(model, config)
'''

# ---------------------------------------------------------- torch.load (existing entry) ----
WO_DTYPE_CLASS = r'''
import numpy as np, torch
rng = np.random.default_rng(0)
torch.save({"model": {"w": torch.zeros(2)}, "rng_state": rng.bit_generator.state,
            "perm": np.arange(8, dtype=np.uint32)}, "ckpt.pt")
print("unsafe globals:", torch.serialization.get_unsafe_globals_in_checkpoint("ckpt.pt"))
torch.serialization.add_safe_globals([np._core.multiarray._reconstruct, np.ndarray, np.dtype])
ckpt = torch.load("ckpt.pt")
'''


# ---------------------------------------------------------------- tiny models and data ----
_COMMON = r"""
import os, sys, tempfile, warnings
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

WORDS = ("<|endoftext|> <pad> [UNK] the a quick brown fox jumps over lazy dog hello world how are you "
         "good bad great movie film was is not very").split()

def tiny_tokenizer(pad=True):
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    kw = {"pad_token": "<pad>"} if pad else {}
    return PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                   unk_token="[UNK]", **kw)

def llama_config(**kw):
    from transformers import LlamaConfig
    return LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                       num_key_value_heads=2, vocab_size=len(WORDS), max_position_embeddings=64,
                       pad_token_id=1, bos_token_id=0, eos_token_id=0, **kw)

def tiny_llama(**kw):
    from transformers import LlamaForCausalLM
    return LlamaForCausalLM(llama_config(**kw))

def texts(n=24):
    base = ["the quick brown fox jumps over the lazy dog", "hello world", "how are you",
            "good movie", "the film was not very good", "a great film"]
    return (base * (n // len(base) + 1))[:n]

def save_tiny(path, model=None):
    if not os.path.exists(os.path.join(path, "config.json")):
        (model or tiny_llama()).save_pretrained(path)
        tiny_tokenizer().save_pretrained(path)
    return path
"""

# #60: a model loaded with a multi-entry device_map (one module offloaded), prepared under torchrun
DMAP_ACCELERATE = _COMMON + r"""
import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM

accelerator = Accelerator(cpu=True)
ckpt = os.path.join(os.getcwd(), "ckpt")
if accelerator.is_main_process:
    save_tiny(ckpt)
accelerator.wait_for_everyone()
model = AutoModelForCausalLM.from_pretrained(
    ckpt, device_map={"model.embed_tokens": "cpu", "model.layers.0": "cpu", "model.layers.1": "disk",
                      "model.norm": "cpu", "model.rotary_emb": "cpu", "lm_head": "cpu"},
    offload_folder=f"offload-{accelerator.process_index}")
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
accelerator.print(f"num_processes={accelerator.num_processes} distributed_type={accelerator.distributed_type}")
model, optimizer = accelerator.prepare(model, optimizer)
"""

# #49: Trainer, causal LM, but the batches carry no labels (DataCollatorWithPadding)
NO_LOSS_CAUSAL = _COMMON + r"""
from datasets import Dataset
from transformers import Trainer, TrainingArguments, DataCollatorWithPadding

tok = tiny_tokenizer()
model = tiny_llama()
ds = Dataset.from_dict({"text": texts()}).map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
print(ds)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, max_steps=3, report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=ds, data_collator=DataCollatorWithPadding(tok))
trainer.train()
"""

# #49: sequence classification, the label column has a name Trainer drops (remove_unused_columns)
NO_LOSS_SEQCLS = _COMMON + r"""
from datasets import Dataset
from transformers import LlamaForSequenceClassification, Trainer, TrainingArguments, DataCollatorWithPadding

tok = tiny_tokenizer()
model = LlamaForSequenceClassification(llama_config(num_labels=2))
raw = Dataset.from_dict({"text": texts(), "sentiment": [i % 2 for i in range(24)]})
ds = raw.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, num_train_epochs=1, report_to=[],
                         use_cpu=True, logging_steps=1)
trainer = Trainer(model=model, args=args, train_dataset=ds, data_collator=DataCollatorWithPadding(tok))
trainer.train()
"""

# #50: a Trainer subclass written before transformers 4.46
COMPUTE_LOSS_OLD = _COMMON + r"""
import torch
from datasets import Dataset
from transformers import LlamaForSequenceClassification, Trainer, TrainingArguments, DataCollatorWithPadding

class WeightedLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        weight = torch.tensor([1.0, 3.0])
        loss = torch.nn.functional.cross_entropy(outputs.logits, labels, weight=weight)
        return (loss, outputs) if return_outputs else loss

tok = tiny_tokenizer()
model = LlamaForSequenceClassification(llama_config(num_labels=2))
ds = Dataset.from_dict({"text": texts(), "label": [i % 2 for i in range(24)]})
ds = ds.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, max_steps=3, report_to=[], use_cpu=True)
WeightedLossTrainer(model=model, args=args, train_dataset=ds, data_collator=DataCollatorWithPadding(tok)).train()
"""

# #53: unpadded batch to tensors; nested labels with the padding collator
UNPADDED_TENSORS = _COMMON + r"""
tok = tiny_tokenizer()
batch = ["the quick brown fox jumps over the lazy dog", "hello world", "how are you"]
enc = tok(batch, truncation=True, max_length=32, return_tensors="pt")
"""

NESTED_LABELS = _COMMON + r"""
import torch
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding

tok = tiny_tokenizer()
# token-classification style labels (one per token) with the sequence-classification collator
feats = []
for t in texts(8):
    enc = tok(t)
    enc["labels"] = [0] * len(enc["input_ids"])
    feats.append(dict(enc))
loader = DataLoader(feats, batch_size=4, collate_fn=DataCollatorWithPadding(tok))
for step, batch in enumerate(loader):
    print(step, {k: tuple(v.shape) for k, v in batch.items()})
"""

# #54: a checkpoint whose model_type this transformers does not know
UNKNOWN_MODEL_TYPE = _COMMON + r"""
import json
from transformers import AutoConfig, AutoModelForCausalLM
path = os.path.join(os.getcwd(), "Qwen4-0.6B")
os.makedirs(path, exist_ok=True)
cfg = llama_config().to_dict(); cfg["model_type"] = "qwen4"; cfg["architectures"] = ["Qwen4ForCausalLM"]
json.dump(cfg, open(os.path.join(path, "config.json"), "w"), indent=2)
print("loading", path)
model = AutoModelForCausalLM.from_pretrained(path)
"""

# #56: attn_implementation="flash_attention_2" without flash-attn installed
FLASH_ATTN_MISSING = _COMMON + r"""
import torch
from transformers import AutoModelForCausalLM
path = save_tiny(os.path.join(os.getcwd(), "tiny-llama"))
model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16, attn_implementation="flash_attention_2")
"""

FLASH_ATTN_FROM_CONFIG = _COMMON + r"""
from transformers import LlamaForCausalLM
cfg = llama_config()
cfg._attn_implementation = "flash_attention_2"
model = LlamaForCausalLM(cfg)
"""

# #51: renamed arguments
EVAL_STRATEGY_RENAMED = r"""
from transformers import TrainingArguments
args = TrainingArguments(output_dir="out", evaluation_strategy="steps", eval_steps=50, save_steps=50,
                         per_device_train_batch_size=8, learning_rate=2e-5)
"""

SFT_TOKENIZER_KWARG = _COMMON + r"""
from datasets import Dataset
from trl import SFTConfig, SFTTrainer
tok = tiny_tokenizer()
ds = Dataset.from_dict({"text": texts()})
trainer = SFTTrainer(model=tiny_llama(), tokenizer=tok, train_dataset=ds,
                     args=SFTConfig(output_dir="out", max_steps=2, report_to=[], use_cpu=True))
"""

# #52
LOAD_BEST_MISMATCH = r"""
from transformers import TrainingArguments
args = TrainingArguments(output_dir="out", eval_strategy="epoch", save_strategy="steps", save_steps=500,
                         load_best_model_at_end=True, metric_for_best_model="eval_loss")
"""

# #57: a local repo with custom code (auto_map), loaded without trust_remote_code
REMOTE_CODE = _COMMON + r"""
import json
from transformers import AutoConfig, AutoModelForCausalLM
path = os.path.join(os.getcwd(), "internlm-tiny")
os.makedirs(path, exist_ok=True)
cfg = llama_config().to_dict()
cfg.update(model_type="internlm_tiny", architectures=["InternLMTinyForCausalLM"],
           auto_map={"AutoConfig": "configuration_internlm_tiny.InternLMTinyConfig",
                     "AutoModelForCausalLM": "modeling_internlm_tiny.InternLMTinyForCausalLM"})
json.dump(cfg, open(os.path.join(path, "config.json"), "w"), indent=2)
open(os.path.join(path, "configuration_internlm_tiny.py"), "w").write(
    "from transformers import LlamaConfig\nclass InternLMTinyConfig(LlamaConfig):\n    model_type = 'internlm_tiny'\n")
model = AutoModelForCausalLM.from_pretrained(path)
"""

# #58: chat template on a base tokenizer
CHAT_TEMPLATE_MISSING = _COMMON + r"""
tok = tiny_tokenizer()
messages = [{"role": "user", "content": "how are you"}, {"role": "assistant", "content": "good"}]
ids = tok.apply_chat_template(messages, tokenize=True, add_generation_prompt=False)
"""

# #59: batched map that changes the number of rows but keeps the old columns
MAP_ROWS_CHANGED = _COMMON + r"""
from datasets import Dataset
tok = tiny_tokenizer()
ds = Dataset.from_dict({"text": [" ".join(texts(12))] * 40, "id": list(range(40))})

def chunk(batch):
    out = tok(batch["text"], truncation=True, max_length=16, return_overflowing_tokens=True, stride=0)
    out.pop("overflow_to_sample_mapping", None)
    return out

print(ds)
ds = ds.map(chunk, batched=True)
"""


# #55: what the Hub answers for a missing/private repo and for a gated one (served by the loopback stub)
HUB_REPO_NOT_FOUND = _STUB + r"""
serve_status(401, b'{"error":"Repository not found"}', [("X-Error-Code", "RepoNotFound"),
             ("X-Error-Message", "Repository not found"), ("Content-Type", "application/json")])
from transformers import AutoTokenizer
tok = AutoTokenizer.from_pretrained("meta-llama/Llama-3-8B-instruct")   # the real id is Meta-Llama-3-8B-Instruct
"""

HUB_GATED_401 = _STUB + r"""
msg = "Access to model google/gemma-2-2b-it is restricted. You must have access to it and be authenticated to access it. Please log in."
serve_status(401, b"", [("X-Error-Code", "GatedRepo"), ("X-Error-Message", msg)])
from transformers import AutoModelForCausalLM
print("HF_TOKEN set:", "HF_TOKEN" in os.environ)
model = AutoModelForCausalLM.from_pretrained("google/gemma-2-2b-it")
"""

HUB_GATED_403_DOWNLOAD = _STUB + r"""
msg = ("Access to model meta-llama/Llama-3.1-8B is restricted and you are not in the authorized list. "
       "Visit https://huggingface.co/meta-llama/Llama-3.1-8B to ask for access.")
serve_status(403, b"", [("X-Error-Code", "GatedRepo"), ("X-Error-Message", msg)])
from huggingface_hub import hf_hub_download
path = hf_hub_download("meta-llama/Llama-3.1-8B", "config.json", token="hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
"""

NO_LOSS_BACKBONE = _COMMON + r"""
from datasets import Dataset
from transformers import AutoModel, Trainer, TrainingArguments, DataCollatorWithPadding

tok = tiny_tokenizer()
path = save_tiny(os.path.join(os.getcwd(), "tiny-llama"))
model = AutoModel.from_pretrained(path)          # the bare backbone, no classification head
ds = Dataset.from_dict({"text": texts(), "label": [i % 2 for i in range(24)]})
ds = ds.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, max_steps=2, report_to=[], use_cpu=True)
Trainer(model=model, args=args, train_dataset=ds, data_collator=DataCollatorWithPadding(tok)).train()
"""

LABELS_PADDING_COLLATOR = _COMMON + r"""
from datasets import Dataset
from transformers import Trainer, TrainingArguments, DataCollatorWithPadding

tok = tiny_tokenizer()
def tokenize(batch):
    enc = tok(batch["text"], truncation=True, max_length=32)
    enc["labels"] = [ids.copy() for ids in enc["input_ids"]]     # causal-LM labels
    return enc
ds = Dataset.from_dict({"text": texts()}).map(tokenize, batched=True, remove_columns=["text"])
args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, max_steps=2, report_to=[], use_cpu=True,
                         logging_steps=1)
Trainer(model=tiny_llama(), args=args, train_dataset=ds, data_collator=DataCollatorWithPadding(tok)).train()
"""


TRAINER_TOKENIZER_KWARG = _COMMON + r"""
from transformers import Trainer, TrainingArguments
tok = tiny_tokenizer()
args = TrainingArguments(output_dir="out", eval_strategy="no", report_to=[], use_cpu=True)
trainer = Trainer(model=tiny_llama(), args=args, tokenizer=tok)
"""


LOAD_BEST_STEPS = r"""
from transformers import TrainingArguments
args = TrainingArguments(output_dir="out", eval_strategy="steps", eval_steps=300, save_strategy="steps",
                         save_steps=500, load_best_model_at_end=True, metric_for_best_model="eval_loss")
"""

LOAD_BEST_NO_EVAL = r"""
import sys
from transformers import HfArgumentParser, TrainingArguments
sys.argv = ["train.py", "--output_dir", "out", "--load_best_model_at_end", "--metric_for_best_model", "accuracy",
            "--per_device_train_batch_size", "16", "--num_train_epochs", "3"]
print("argv:", " ".join(sys.argv[1:]))
(args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()
"""

REMOTE_CODE_CONFIG = REMOTE_CODE.replace("model = AutoModelForCausalLM.from_pretrained(path)",
                                         "config = AutoConfig.from_pretrained(path)")

CHAT_SFT_MESSAGES = _COMMON + r"""
from datasets import Dataset
from trl import SFTConfig, SFTTrainer
tok = tiny_tokenizer()
conv = [[{"role": "user", "content": "how are you"}, {"role": "assistant", "content": "good"}]] * 8
ds = Dataset.from_dict({"messages": conv})
trainer = SFTTrainer(model=tiny_llama(), processing_class=tok, train_dataset=ds,
                     args=SFTConfig(output_dir="out", max_steps=2, report_to=[], use_cpu=True))
"""

MAP_GROUP_TEXTS = _COMMON + r"""
from datasets import Dataset
tok = tiny_tokenizer()
ds = Dataset.from_dict({"text": texts(60)}).map(lambda b: tok(b["text"]), batched=True)
block = 16
def group_texts(examples):
    ids = sum(examples["input_ids"], [])
    total = (len(ids) // block) * block
    return {"input_ids": [ids[i:i + block] for i in range(0, total, block)]}
print(ds)
lm = ds.map(group_texts, batched=True)          # forgot remove_columns=ds.column_names
"""

# #36: a Git LFS pointer / truncated download in place of a .safetensors file
ST_LFS_POINTER = _COMMON + r"""
from transformers import AutoModelForCausalLM
path = save_tiny(os.path.join(os.getcwd(), "tiny-llama"))
pointer = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:4f1c7d0e3a5b2c8d9e6f7a1b0c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d\nsize 2471645608\n")
open(os.path.join(path, "model.safetensors"), "w").write(pointer)   # git clone without git lfs
print("model.safetensors:", os.path.getsize(os.path.join(path, "model.safetensors")), "bytes")
model = AutoModelForCausalLM.from_pretrained(path)
"""

ST_TRUNCATED = r"""
import os, torch
from safetensors.torch import save_file, load_file
save_file({"w": torch.zeros(256, 256)}, "adapter_model.safetensors")
size = os.path.getsize("adapter_model.safetensors")
with open("adapter_model.safetensors", "r+b") as f:
    f.truncate(size // 3)                       # copy interrupted / disk full
print("truncated to", size // 3, "bytes")
sd = load_file("adapter_model.safetensors")
"""

ST_HEADER_SMALL = r"""
import torch
from safetensors.torch import load_file
open("model.safetensors", "wb").write(b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head></html>\n")
sd = load_file("model.safetensors")
"""

# #37: safetensors refuses tied weights
ST_SHARED = r"""
import torch, torch.nn as nn
from safetensors.torch import save_file
class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.head = nn.Linear(16, 100, bias=False)
        self.head.weight = self.embed.weight          # tied input/output embeddings
model = TinyLM()
save_file(model.state_dict(), "model.safetensors")
"""

# peft: a model type PEFT has no default target modules for, and none given
PEFT_NO_TARGETS = r"""
import torch.nn as nn
from peft import LoraConfig, get_peft_model

class SpeechEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj_in = nn.Linear(80, 64)
        self.blocks = nn.ModuleList(nn.TransformerEncoderLayer(64, 4, 128, batch_first=True) for _ in range(2))
        self.proj_out = nn.Linear(64, 32)
    def forward(self, x):
        x = self.proj_in(x)
        for b in self.blocks:
            x = b(x)
        return self.proj_out(x)

model = SpeechEncoder()
config = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05)      # no target_modules
model = get_peft_model(model, config)
"""

PEFT_NO_TARGETS_CONFIG_TYPE = r"""
from transformers import PretrainedConfig, PreTrainedModel
import torch.nn as nn
from peft import LoraConfig, get_peft_model

class TinyCfg(PretrainedConfig):
    model_type = "my_tiny_lm"

class TinyLM(PreTrainedModel):
    config_class = TinyCfg
    def __init__(self, config):
        super().__init__(config)
        self.wqkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 32)
        self.post_init()
    def forward(self, x):
        return self.out(self.wqkv(x)[..., :32])

model = TinyLM(TinyCfg())
print("model_type:", model.config.model_type)
model = get_peft_model(model, LoraConfig(r=4, task_type="CAUSAL_LM"))
"""

def _hub(home: str, **env: str) -> dict[str, str]:
    return {"HF_HOME": home, "HF_HUB_DISABLE_TELEMETRY": "1", **env}


def _want(entry_id: str) -> bool:
    """HF_GEN_ONLY=id1,id2 restricts a run to some entries (all by default)."""
    only = os.environ.get("HF_GEN_ONLY")
    return not only or entry_id in only.split(",")


def _run(entry_id: str, name: str, script: str, **kw) -> None:
    if _want(entry_id):
        kw.setdefault("env", {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"})
        run_script(entry_id, name, script, **kw)


def generate() -> None:
    hub = "huggingface-hub/offline-cannot-connect"
    if _want(hub):
        with tempfile.TemporaryDirectory(prefix="fl-hf-") as home:
            run_script(hub, "httpx-connect-refused-from-pretrained", HUB_HTTPX_CONNECT,
                       env=_hub(home, HF_ENDPOINT="http://127.0.0.1:9", HF_HUB_ETAG_TIMEOUT="2"), timeout=240)
            run_script(hub, "snapshot-download-connection-error", HUB_SNAPSHOT_CONNECT,
                       env=_hub(home, HF_ENDPOINT="http://127.0.0.1:9"), keep="tail:30", timeout=240)
            run_script(hub, "specific-connection-error-401", HUB_SPECIFIC_401, env=_hub(home), keep="tail:25")

    pt = "peft/target-modules-not-found"
    _run(pt, "exclude-modules-regex-excludes-everything", PEFT_ALL_EXCLUDED)
    _run(pt, "transformers5-mixtral-fused-experts", PEFT_FUSED_EXPERTS, keep="tail:14")

    _run("pytorch/weights-only-load-failed", "numpy-dtype-class-after-allowlist", WO_DTYPE_CLASS)

    dm = "transformers/device-map-auto-distributed"
    _run(dm, "torchrun-accelerate-prepare-offloaded-model", DMAP_ACCELERATE, torchrun={"nproc_per_node": 2})

    nl = "transformers/model-did-not-return-loss"
    _run(nl, "causal-lm-padding-collator-no-labels", NO_LOSS_CAUSAL)
    _run(nl, "seqcls-label-column-dropped", NO_LOSS_SEQCLS, keep="tail:25")
    _run(nl, "bare-automodel-backbone", NO_LOSS_BACKBONE, keep="tail:8")

    cl = "transformers/compute-loss-num-items-in-batch"
    _run(cl, "weighted-loss-trainer-override", COMPUTE_LOSS_OLD)
    _run(cl, "override-tail-only", COMPUTE_LOSS_OLD, keep="tail:6")

    ut = "transformers/unable-to-create-tensor-padding"
    _run(ut, "tokenizer-return-tensors-no-padding", UNPADDED_TENSORS)
    _run(ut, "padding-collator-per-token-labels", NESTED_LABELS, keep="tail:18")
    _run(ut, "trainer-causal-labels-padding-collator", LABELS_PADDING_COLLATOR, keep="tail:40")

    um = "transformers/unrecognized-model-type"
    _run(um, "newer-architecture-than-library", UNKNOWN_MODEL_TYPE)

    fa = "transformers/flash-attention-2-not-installed"
    _run(fa, "from-pretrained-flash-attention-2", FLASH_ATTN_MISSING)
    _run(fa, "config-attn-implementation", FLASH_ATTN_FROM_CONFIG, keep="tail:12")

    rg = "huggingface-hub/repo-not-found-or-gated"
    if _want(rg):
        with tempfile.TemporaryDirectory(prefix="fl-hf-") as home:
            run_script(rg, "repo-id-wrong-case", HUB_REPO_NOT_FOUND, env=_hub(home))
            run_script(rg, "gated-not-logged-in", HUB_GATED_401, env=_hub(home), keep="tail:30")
            run_script(rg, "gated-not-authorized-hf-hub-download", HUB_GATED_403_DOWNLOAD, env=_hub(home))

    ta = "transformers/training-arguments-renamed"
    _run(ta, "evaluation-strategy-transformers5", EVAL_STRATEGY_RENAMED)
    _run(ta, "sft-trainer-tokenizer-kwarg", SFT_TOKENIZER_KWARG, keep="tail:6")
    _run(ta, "trainer-tokenizer-kwarg", TRAINER_TOKENIZER_KWARG, keep="tail:8")

    lb = "transformers/load-best-model-strategy-mismatch"
    _run(lb, "epoch-eval-steps-save", LOAD_BEST_MISMATCH)
    _run(lb, "save-steps-not-multiple", LOAD_BEST_STEPS, keep="tail:5")
    _run(lb, "cli-no-eval-strategy", LOAD_BEST_NO_EVAL)

    rc = "transformers/trust-remote-code-required"
    _run(rc, "automodel-auto-map-local-repo", REMOTE_CODE)
    _run(rc, "autoconfig-auto-map", REMOTE_CODE_CONFIG, keep="tail:9")

    ct = "transformers/chat-template-not-set"
    _run(ct, "apply-chat-template-base-tokenizer", CHAT_TEMPLATE_MISSING)
    _run(ct, "sft-trainer-messages-dataset", CHAT_SFT_MESSAGES, keep="tail:30")

    mp = "datasets/map-column-length-mismatch"
    _run(mp, "overflowing-tokens-chunking", MAP_ROWS_CHANGED, keep="tail:30")
    _run(mp, "group-texts-without-remove-columns", MAP_GROUP_TEXTS)
    _run(mp, "chunking-tail-only", MAP_ROWS_CHANGED, keep="tail:3")

    st = "safetensors/header-too-large"
    _run(st, "git-lfs-pointer-from-pretrained", ST_LFS_POINTER, keep="tail:24")
    _run(st, "truncated-adapter-load-file", ST_TRUNCATED)
    _run(st, "html-page-saved-as-weights", ST_HEADER_SMALL)

    sh = "safetensors/shared-tensors-save"
    _run(sh, "tied-embedding-save-file", ST_SHARED)
    _run(sh, "tied-embedding-tail", ST_SHARED, keep="tail:5")

    pu = "peft/target-modules-unspecified"
    _run(pu, "plain-module-lora-no-targets", PEFT_NO_TARGETS)
    _run(pu, "custom-model-type-not-in-mapping", PEFT_NO_TARGETS_CONFIG_TYPE, keep="tail:12")
