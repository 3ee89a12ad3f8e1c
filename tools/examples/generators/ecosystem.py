"""Real example logs for the Hugging Face / launcher ecosystem entries.

Covers: pytorch/fsdp-flatten-uniform (FSDP1 and FSDP2 on CPU with gloo),
transformers/tokenizer-missing-pad-token, peft/target-modules-not-found,
huggingface-hub/offline-cannot-connect and accelerate/multi-node-launch-hang
(a real ``accelerate launch`` whose other node never starts).

Needs, in the same venv as torch (CPU build): ``pip install transformers peft
accelerate huggingface_hub`` (pure Python apart from tokenizers/safetensors;
they do not replace torch).  Nothing here downloads anything: tokenizers and
models are built from tiny local configs, and the Hub runs are meant to fail.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from generate import _free_port, run_script

# ---------------------------------------------------------------- FSDP ----
FSDP_DTYPE = r'''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Sequential(nn.Embedding(1000, 64), nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 1000))
# the embedding was loaded from a bf16 checkpoint, the rest stayed fp32
model[0].to(torch.bfloat16)
if rank == 0:
    print(f"params: {sum(p.numel() for p in model.parameters()):,}")
    print("dtypes:", sorted({str(p.dtype) for p in model.parameters()}))
model = FSDP(model, use_orig_params=False, device_id=torch.device("cpu"))
print(f"rank {rank}: wrapped")
'''

FSDP_REQUIRES_GRAD = r'''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

# single process (world_size=1), e.g. a quick local smoke test before the real launch
dist.init_process_group("gloo", rank=0, world_size=1, timeout=datetime.timedelta(seconds=15))

class LoRALinear(nn.Module):
    def __init__(self, d, r=8):
        super().__init__()
        self.base = nn.Linear(d, d)
        self.lora_A = nn.Linear(d, r, bias=False)
        self.lora_B = nn.Linear(r, d, bias=False)
    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x))

model = nn.Sequential(LoRALinear(128), nn.ReLU(), LoRALinear(128))
for m in model:
    if isinstance(m, LoRALinear):
        m.base.requires_grad_(False)   # frozen base, trainable adapters
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"trainable params: {trainable} / {sum(p.numel() for p in model.parameters())}")
model = FSDP(model, device_id=torch.device("cpu"))
'''

FSDP_AUTOWRAP_FROZEN = r'''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
from torch.distributed.fsdp.wrap import ModuleWrapPolicy

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))

class DecoderLayer(nn.Module):
    def __init__(self, d=64, r=4):
        super().__init__()
        self.q_proj = nn.Linear(d, d)
        self.v_proj = nn.Linear(d, d)
        self.lora_A = nn.Linear(d, r, bias=False)
        self.lora_B = nn.Linear(r, d, bias=False)
    def forward(self, x):
        return self.q_proj(x) + self.v_proj(x) + self.lora_B(self.lora_A(x))

class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer() for _ in range(2))
    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

model = TinyLM()
for name, p in model.named_parameters():
    p.requires_grad_("lora_" in name)
model = FSDP(
    model,
    auto_wrap_policy=ModuleWrapPolicy({DecoderLayer}),
    sharding_strategy=ShardingStrategy.FULL_SHARD,
    use_orig_params=False,
    device_id=torch.device("cpu"),
)
'''

FSDP2_DTYPE = r'''
import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import fully_shard
from torch.distributed.device_mesh import init_device_mesh

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
mesh = init_device_mesh("cpu", (dist.get_world_size(),))

class Block(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.attn = nn.Linear(d, d)
        self.router = nn.Linear(d, 4)   # kept in fp32 on purpose
        self.mlp = nn.Linear(d, d)
    def forward(self, x):
        return self.mlp(self.attn(x).to(self.mlp.weight.dtype))

model = nn.Sequential(Block(), Block())
model.to(torch.bfloat16)
for blk in model:
    blk.router.float()
    fully_shard(blk, mesh=mesh)
fully_shard(model, mesh=mesh)
x = torch.randn(4, 64, dtype=torch.bfloat16)
for step in range(2):
    loss = model(x).float().pow(2).mean()
    loss.backward()
    print(f"step {step} loss {loss.item():.4f}")
'''

# ---------------------------------------------------------- tokenizers ----
_TINY_TOKENIZER = r'''
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

def tiny_tokenizer():
    words = "<|endoftext|> [UNK] the a quick brown fox jumps over lazy dog hello world how are you".split()
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    # like GPT-2 / Llama base checkpoints: eos and bos, but no pad token
    return PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<|endoftext|>",
                                   eos_token="<|endoftext|>", unk_token="[UNK]")
'''

TOK_CALL = _TINY_TOKENIZER + r'''
tok = tiny_tokenizer()
print("pad_token:", tok.pad_token, "eos_token:", tok.eos_token)
batch = ["the quick brown fox", "hello world", "how are you"]
enc = tok(batch, padding=True, truncation=True, max_length=16, return_tensors="pt")
'''

TOK_COLLATOR = _TINY_TOKENIZER + r'''
import torch
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding

tok = tiny_tokenizer()
texts = ["the quick brown fox jumps over the lazy dog", "hello world", "how are you", "a dog"]
features = [tok(t) for t in texts]
loader = DataLoader(features, batch_size=2, collate_fn=DataCollatorWithPadding(tok))
for step, batch in enumerate(loader):
    print(step, batch["input_ids"].shape)
'''

TOK_LM_COLLATOR = _TINY_TOKENIZER + r'''
from transformers import DataCollatorForLanguageModeling

tok = tiny_tokenizer()
collator = DataCollatorForLanguageModeling(tok, mlm=False)
examples = [tok("the quick brown fox")["input_ids"], tok("hello world")["input_ids"]]
print("lengths:", [len(e) for e in examples])
batch = collator(examples)
'''

TOK_SEQCLS = _TINY_TOKENIZER + r'''
import torch
from transformers import GPT2Config, GPT2ForSequenceClassification

tok = tiny_tokenizer()
tok.pad_token = tok.eos_token          # the tokenizer is fixed ...
cfg = GPT2Config(vocab_size=len(tok), n_positions=32, n_embd=32, n_layer=1, n_head=2, num_labels=3,
                 bos_token_id=0, eos_token_id=0)
model = GPT2ForSequenceClassification(cfg)  # ... but model.config.pad_token_id is still None
enc = tok(["the quick brown fox", "hello world"], padding=True, return_tensors="pt")
out = model(**enc)
'''

# ----------------------------------------------------------------- peft ----
PEFT_GPT2 = r'''
from transformers import GPT2Config, GPT2LMHeadModel
from peft import LoraConfig, get_peft_model

model = GPT2LMHeadModel(GPT2Config(n_embd=64, n_layer=2, n_head=2, vocab_size=500, n_positions=64,
                                   bos_token_id=0, eos_token_id=0))
# target names copied from a Llama recipe; GPT-2 calls them c_attn / c_proj / c_fc
config = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, task_type="CAUSAL_LM",
                    target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
model = get_peft_model(model, config)
model.print_trainable_parameters()
'''

PEFT_LAYERS = r'''
import torch.nn as nn
from peft import LoraConfig, get_peft_model

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(32, 32)
        self.value = nn.Linear(32, 32)
    def forward(self, x):
        return self.query(x) + self.value(x)

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(Block() for _ in range(4))
    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return x

model = Encoder()
print([n for n, _ in model.named_modules()][:6])
config = LoraConfig(r=4, target_modules=["query", "value"], layers_to_transform=[2, 3], layers_pattern="layers")
model = get_peft_model(model, config)
'''

PEFT_REGEX = r'''
from transformers import BertConfig, BertModel
from peft import LoraConfig, get_peft_model

model = BertModel(BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                             vocab_size=200))
# a regex (string) target: it must match the *full* module name
config = LoraConfig(r=4, target_modules=r"layer\.\d+\.attention\.self\.(q|v)_proj")
model = get_peft_model(model, config)
'''

# ------------------------------------------------------------------ hub ----
HUB_OFFLINE_CONFIG = r'''
from transformers import AutoConfig, AutoModelForCausalLM
print("loading meta-llama/Llama-3.2-1B ...")
config = AutoConfig.from_pretrained("meta-llama/Llama-3.2-1B")
model = AutoModelForCausalLM.from_config(config)
'''

HUB_MIRROR_TOKENIZER = r'''
from transformers import AutoTokenizer
tok = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
print(tok("hello"))
'''

HUB_DOWNLOAD = r'''
from huggingface_hub import hf_hub_download
path = hf_hub_download("openai-community/gpt2", "config.json", local_files_only=True)
print(path)
'''

HUB_SNAPSHOT = r'''
from huggingface_hub import snapshot_download
local = snapshot_download("sentence-transformers/all-MiniLM-L6-v2", allow_patterns=["*.json", "*.safetensors"])
print(local)
'''

# ----------------------------------------------------------- accelerate ----
_ACC_TRAIN = r'''
from accelerate import Accelerator
accelerator = Accelerator()
accelerator.print(accelerator.state)
'''


def _accelerate_script(shell: str, files: dict[str, str]) -> str:
    """A driver that writes the training files and runs ``shell`` under ``bash -x`` (as a job script would)."""
    return (
        "import pathlib, subprocess, sys\n"
        f"for name, text in {files!r}.items():\n"
        "    pathlib.Path(name).write_text(text)\n"
        f"proc = subprocess.run(['bash', '-xc', {shell!r}], stderr=subprocess.STDOUT)\n"
        "sys.exit(proc.returncode)\n"
    )


def _run(entry_id: str, name: str, script: str, **kw) -> Path:
    """run_script, then map the generator venv's own path (which scrub() leaves as
    /workspace/.venv-gen/...) to the neutral interpreter prefix."""
    dest = run_script(entry_id, name, script, **kw)
    text = dest.read_text()
    fixed = text.replace("/workspace/.venv-gen/", "/opt/conda/")
    if fixed != text:
        dest.write_text(fixed)
    return dest


def _env_with_venv_bin() -> dict[str, str]:
    return {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
            "HF_HUB_DISABLE_TELEMETRY": "1"}


def generate() -> None:
    # FSDP: mixed dtype / mixed requires_grad inside one flat parameter
    _run("pytorch/fsdp-flatten-uniform", "fsdp1-mixed-dtype-torchrun", FSDP_DTYPE,
               torchrun={"nproc_per_node": 2})
    _run("pytorch/fsdp-flatten-uniform", "fsdp1-frozen-base-requires-grad", FSDP_REQUIRES_GRAD,
         env={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(_free_port())}, keep="tail:12")
    _run("pytorch/fsdp-flatten-uniform", "fsdp1-auto-wrap-frozen-params", FSDP_AUTOWRAP_FROZEN,
               torchrun={"nproc_per_node": 2})
    _run("pytorch/fsdp-flatten-uniform", "fsdp2-fully-shard-mixed-dtype", FSDP2_DTYPE,
               torchrun={"nproc_per_node": 2})

    # transformers: no pad token
    tok = "transformers/tokenizer-missing-pad-token"
    _run(tok, "tokenizer-call-padding-true", TOK_CALL)
    _run(tok, "data-collator-with-padding", TOK_COLLATOR, keep="tail:12")
    _run(tok, "lm-collator-pad-samples", TOK_LM_COLLATOR)
    _run(tok, "gpt2-seqcls-no-pad-token-id", TOK_SEQCLS, keep="tail:20")

    # peft: target modules not found
    pt = "peft/target-modules-not-found"
    _run(pt, "gpt2-llama-target-names", PEFT_GPT2)
    _run(pt, "layers-to-transform-pattern", PEFT_LAYERS, keep="tail:8")
    _run(pt, "regex-target-modules", PEFT_REGEX)

    # huggingface_hub / transformers offline; the cache is empty on purpose
    hub = "huggingface-hub/offline-cannot-connect"
    with _empty_hf_home() as home:
        _run(hub, "hf-hub-offline-autoconfig", HUB_OFFLINE_CONFIG,
                   env={"HF_HOME": home, "HF_HUB_OFFLINE": "1"})
        _run(hub, "hf-endpoint-unreachable-tokenizer", HUB_MIRROR_TOKENIZER,
                   env={"HF_HOME": home, "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HUB_ETAG_TIMEOUT": "2"},
                   keep="tail:40")
        _run(hub, "hf-hub-download-local-files-only", HUB_DOWNLOAD, env={"HF_HOME": home}, keep="tail:14")
        _run(hub, "snapshot-download-offline", HUB_SNAPSHOT, env={"HF_HOME": home, "HF_HUB_OFFLINE": "1"})

    # accelerate: node 0 launched, the other node(s) never join the static rendezvous
    acc = "accelerate/multi-node-launch-hang"
    env = _env_with_venv_bin()
    port = _free_port()
    _run(acc, "master-cli-flags-store-timeout", _accelerate_script(
        f"accelerate launch --multi_gpu --num_machines 2 --num_processes 2 --machine_rank 0 "
        f"--main_process_ip 127.0.0.1 --main_process_port {port} --rdzv_conf timeout=10 train_accel.py",
        {"train_accel.py": _ACC_TRAIN}), env=env)
    port = _free_port()
    cfg = (
        "compute_environment: LOCAL_MACHINE\n"
        "distributed_type: MULTI_GPU\n"
        "mixed_precision: bf16\n"
        "num_machines: 3\n"
        "num_processes: 3\n"
        "machine_rank: 0\n"
        "main_process_ip: 127.0.0.1\n"
        f"main_process_port: {port}\n"
        "rdzv_backend: static\n"
        "same_network: true\n"
        "use_cpu: false\n"
    )
    _run(acc, "config-file-three-nodes-one-joined", _accelerate_script(
        "cat multinode.yaml && accelerate launch --config_file multinode.yaml --machine_rank 0 "
        "--rdzv_conf timeout=12 train_accel.py",
        {"train_accel.py": _ACC_TRAIN, "multinode.yaml": cfg}), env=env)
    port = _free_port()
    _run(acc, "stall-until-job-timeout", _accelerate_script(
        f"timeout 20 accelerate launch --multi_gpu --num_machines 2 --num_processes 4 --machine_rank 0 "
        f"--main_process_ip 127.0.0.1 --main_process_port {port} --mixed_precision bf16 train_accel.py",
        {"train_accel.py": _ACC_TRAIN}), env=env)


class _empty_hf_home:
    def __enter__(self) -> str:
        import tempfile
        self._tmp = tempfile.TemporaryDirectory(prefix="fl-hf-")
        return self._tmp.name

    def __exit__(self, *exc) -> None:
        self._tmp.cleanup()
