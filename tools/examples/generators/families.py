"""Real example logs for the family entries (ml/...): version skew between ML libraries, missing
optional packages, a local file or folder shadowing a library, launchers that only report that a
child failed.

Needs torch (CPU build), transformers, trl, peft, accelerate and tokenizers in the same venv.  The
skew is real: names and keyword arguments that older releases had and the installed ones removed.
Nothing is downloaded: tokenizers and models are built from tiny configs in code.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from generate import run_script


def _driver(files: dict[str, str], argv: list[str]) -> str:
    """A script that writes the project's files, then runs ``argv`` in that folder (output passed through)."""
    return (
        "import os, pathlib, subprocess, sys\n"
        f"for name, text in {files!r}.items():\n"
        "    p = pathlib.Path(name); p.parent.mkdir(parents=True, exist_ok=True); p.write_text(text)\n"
        f"argv = [sys.executable if a == 'PYTHON' else a for a in {argv!r}]\n"
        "proc = subprocess.run(argv, stderr=subprocess.STDOUT)\n"
        "sys.exit(proc.returncode)\n"
    )


def _env_with_venv_bin() -> dict[str, str]:
    return {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
            "HF_HUB_DISABLE_TELEMETRY": "1", "HF_HUB_OFFLINE": "1"}


def _fix(dest: Path) -> None:
    """The generator venv lies inside the repository: map its leftover path to the neutral prefix."""
    if dest.exists():
        text = dest.read_text()
        fixed = text.replace("/workspace/.venv-gen/", "/opt/conda/")
        if fixed != text:
            dest.write_text(fixed)


def _run(entry_id: str, name: str, script: str, **kw) -> None:
    _fix(run_script(entry_id, name, script, **kw))


# ------------------------------------------------------------------------------- version skew: import
SKEW_TRL_COLLATOR = r'''
import logging, sys
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("sft")
log.info("python %s", sys.version.split()[0])
import torch, transformers, trl
log.info("torch %s transformers %s trl %s", torch.__version__, transformers.__version__, trl.__version__)
from trl import SFTTrainer, DataCollatorForCompletionOnlyLM  # written for trl 0.8-0.19
'''

SKEW_PEFT_INT8 = r'''
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from peft import LoraConfig, get_peft_model, prepare_model_for_int8_training

cfg = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4)
model = prepare_model_for_int8_training(LlamaForCausalLM(cfg))
'''

SKEW_TRANSFORMERS_UTILS = r'''
import os
rank = int(os.environ.get("RANK", 0))
print(f"[setup] rank {rank} importing model code", flush=True)
from transformers.utils import is_flash_attn_available   # renamed is_flash_attn_2_available in 4.36
'''

SKEW_SUBMODULE = r'''
print("loading DeepSpeed helpers ...", flush=True)
from transformers.deepspeed import HfDeepSpeedConfig   # moved to transformers.integrations
'''

# --------------------------------------------------------------------------- version skew: attribute
SKEW_ATTR_ADAMW = r'''
import torch, transformers
from transformers import GPT2Config, GPT2LMHeadModel
model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=100, n_positions=64))
print(f"model params: {sum(p.numel() for p in model.parameters()):,}")
optimizer = transformers.AdamW(model.parameters(), lr=5e-5, correct_bias=False)
'''

SKEW_ATTR_NUMPY = r'''
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader

class Boxes(Dataset):
    def __len__(self): return 8
    def __getitem__(self, i):
        box = np.array([i, i, i + 4, i + 4], dtype=np.float)   # alias removed in numpy 1.24
        return torch.from_numpy(box)

for batch in DataLoader(Boxes(), batch_size=4):
    print(batch.shape)
'''

SKEW_ATTR_NUMPY_NAN = r'''
import numpy as np
scores = np.array([0.1, 0.7, 0.4])
print("epoch 1 eval scores", scores)
scores[scores < 0.2] = np.NaN
'''

SKEW_ATTR_UTILS = r'''
import os, torch, transformers.utils
world = int(os.environ.get("WORLD_SIZE", 1))
print(f"world size {world}", flush=True)
if transformers.utils.is_flash_attn_available():   # renamed is_flash_attn_2_available in 4.36
    print("using flash attention")
'''

# ------------------------------------------------------------------------ version skew: keyword args
SKEW_KW_SFTCONFIG = r'''
import logging
logging.basicConfig(level=logging.INFO)
from trl import SFTConfig
logging.getLogger("train").info("building SFTConfig from recipe v2023.11")
args = SFTConfig(output_dir="out", max_seq_length=1024, packing=False, use_cpu=True)
'''

SKEW_KW_ACCELERATOR = r'''
from accelerate import Accelerator
accelerator = Accelerator(logging_dir="runs", log_with="tensorboard")
'''

SKEW_KW_TRAININGARGS = r'''
import os
from transformers import TrainingArguments
print(f"rank {os.environ.get('RANK')} building TrainingArguments", flush=True)
args = TrainingArguments(output_dir="ckpt", per_device_train_batch_size=2, no_cuda=True, report_to=[])
'''

# -------------------------------------------------------------------------- missing optional packages
MISSING_FLASH = r'''
import torch
print("torch", torch.__version__)
from flash_attn import flash_attn_func
'''

MISSING_BNB_TORCHRUN = r'''
import os, torch
import bitsandbytes as bnb
'''

MISSING_DEEPSPEED_HF = r'''
from transformers import TrainingArguments
args = TrainingArguments(output_dir="out", deepspeed={"zero_optimization": {"stage": 2}, "train_batch_size": "auto"},
                         use_cpu=True, report_to=[])
'''

MISSING_REMOTE_CODE_CONFIG = r'''{
  "architectures": ["TinyForCausalLM"],
  "auto_map": {"AutoConfig": "configuration_tiny.TinyConfig", "AutoModelForCausalLM": "modeling_tiny.TinyForCausalLM"},
  "model_type": "tiny", "hidden_size": 16
}
'''
MISSING_REMOTE_CODE_FILES = {
    "tiny-model/config.json": MISSING_REMOTE_CODE_CONFIG,
    "tiny-model/configuration_tiny.py": (
        "from transformers import PretrainedConfig\n"
        "class TinyConfig(PretrainedConfig):\n    model_type = 'tiny'\n"),
    "tiny-model/modeling_tiny.py": (
        "import torch\nfrom flash_attn import flash_attn_func\nfrom einops import rearrange\n"
        "from transformers import PreTrainedModel\nfrom .configuration_tiny import TinyConfig\n"
        "class TinyForCausalLM(PreTrainedModel):\n    config_class = TinyConfig\n"),
    "load.py": (
        "from transformers import AutoModelForCausalLM\n"
        "print('loading ./tiny-model with trust_remote_code=True', flush=True)\n"
        "model = AutoModelForCausalLM.from_pretrained('./tiny-model', trust_remote_code=True)\n"),
}

# --------------------------------------------------------------------------------- shadowing modules
SHADOW_FILE = {
    "transformers.py": "# quick notes on the transformer architecture\nd_model = 512\nn_heads = 8\n",
    "train.py": "import torch\nprint('torch', torch.__version__, flush=True)\nfrom transformers import AutoTokenizer, AutoModelForCausalLM\n",
}
SHADOW_FOLDER = {
    # a folder of DeepSpeed configs called deepspeed/ (no __init__.py), deepspeed itself not installed
    "deepspeed/zero2.json": '{"zero_optimization": {"stage": 2}, "train_batch_size": "auto"}\n',
    "deepspeed/zero3.json": '{"zero_optimization": {"stage": 3}, "train_batch_size": "auto"}\n',
    "finetune.py": ("import json, torch\nprint('config', json.load(open('deepspeed/zero2.json')), flush=True)\n"
                    "from deepspeed import zero\n"),
}
SHADOW_PACKAGE = {
    "peft/__init__.py": "# our parameter-efficient experiments\n",
    "peft/adapters.py": "RANK = 8\n",
    "train_lora.py": "import torch\nfrom peft import LoraConfig, get_peft_model\n",
}
SHADOW_SELF = {
    # the user named the script itself after the library
    "torch.py": "import torch\nimport torch.nn as nn\nmodel = nn.Linear(4, 2)\nprint(model)\n",
}
SHADOW_SELF_ATTR = {
    "wandb.py": "import wandb\nwandb.init(project='sweep-test', mode='offline')\n",
    "torch.py": "import torch\ntorch.manual_seed(0)\nx = torch.randn(3)\n",
}

# -------------------------------------------------------------------------------------- launchers
LAUNCH_TRAIN = r'''
import json, sys
from accelerate import Accelerator
acc = Accelerator(cpu=True)
acc.print(f"num processes: {acc.num_processes}")
with open("data/train.json") as fh:   # the user's data file, missing on this machine
    rows = json.load(fh)
'''

LAUNCH_SKEW_TRAIN = r'''
from accelerate import Accelerator
acc = Accelerator(cpu=True)
from trl import DataCollatorForCompletionOnlyLM
'''

RUN_PIPELINE = r'''
import subprocess, sys
stages = [["PYTHON", "prepare.py"], ["PYTHON", "train_sft.py", "--epochs", "1"]]
for cmd in stages:
    cmd = [sys.executable if c == "PYTHON" else c for c in cmd]
    print(">>>", " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, check=True)
'''
RUN_PIPELINE_FILES = {
    "prepare.py": "print('prepared 1200 examples')\n",
    "train_sft.py": "import sys\nexamples = [{'prompt': 'hi'}]\nprint('epoch 1')\nprint(examples[0]['response'])\n",
    "run_all.py": RUN_PIPELINE,
}

def generate() -> None:
    env = _env_with_venv_bin()
    imp = "ml/version-skew-import"
    _run(imp, "trl-completion-only-collator", SKEW_TRL_COLLATOR)
    _run(imp, "peft-prepare-int8-short", SKEW_PEFT_INT8, keep="tail:6")
    _run(imp, "transformers-utils-torchrun", SKEW_TRANSFORMERS_UTILS, torchrun={"nproc_per_node": 2})
    _run(imp, "transformers-deepspeed-submodule", SKEW_SUBMODULE)
    _run(imp, "accelerate-launch-trl-collator", _driver({"sft.py": LAUNCH_SKEW_TRAIN},
         ["accelerate", "launch", "--cpu", "--num_processes", "1", "--num_machines", "1", "--mixed_precision", "no",
          "--dynamo_backend", "no", "sft.py"]), env=env)

    att = "ml/version-skew-attribute"
    _run(att, "transformers-adamw", SKEW_ATTR_ADAMW)
    _run(att, "numpy-float-alias-dataloader", SKEW_ATTR_NUMPY)
    _run(att, "numpy2-nan-removed", SKEW_ATTR_NUMPY_NAN, keep="tail:5")
    _run(att, "transformers-utils-flash-torchrun", SKEW_ATTR_UTILS, torchrun={"nproc_per_node": 2})

    kw = "ml/version-skew-unexpected-kwarg"
    _run(kw, "trl-sftconfig-max-seq-length", SKEW_KW_SFTCONFIG)
    _run(kw, "accelerator-logging-dir", SKEW_KW_ACCELERATOR, keep="tail:4")
    _run(kw, "trainingargs-no-cuda-torchrun", SKEW_KW_TRAININGARGS, torchrun={"nproc_per_node": 2})

    opt = "ml/missing-optional-package"
    _run(opt, "flash-attn-import", MISSING_FLASH)
    _run(opt, "bitsandbytes-torchrun", MISSING_BNB_TORCHRUN, torchrun={"nproc_per_node": 2})
    _run(opt, "deepspeed-trainingargs", MISSING_DEEPSPEED_HF, keep="tail:12")
    _run(opt, "remote-code-requires-flash-attn", _driver(MISSING_REMOTE_CODE_FILES, ["PYTHON", "load.py"]), env=env)

    sh = "ml/local-module-shadowing"
    _run(sh, "transformers-py-file", _driver(SHADOW_FILE, ["PYTHON", "train.py"]))
    _run(sh, "deepspeed-config-folder", _driver(SHADOW_FOLDER, ["PYTHON", "finetune.py"]))
    _run(sh, "peft-package-folder", _driver(SHADOW_PACKAGE, ["PYTHON", "train_lora.py"]), keep="tail:5")
    _run(sh, "script-named-torch", _driver(SHADOW_SELF, ["PYTHON", "torch.py"]))
    _run(sh, "script-named-torch-manual-seed", _driver(SHADOW_SELF_ATTR, ["PYTHON", "torch.py"]))

    la = "ml/launcher-subprocess-failed"
    _run(la, "accelerate-launch-user-error", _driver({"train.py": LAUNCH_TRAIN},
         ["accelerate", "launch", "--cpu", "--num_processes", "1", "--num_machines", "1", "--mixed_precision", "no",
          "--dynamo_backend", "no", "train.py", "--config", "configs/sft.yaml"]), env=env)
    _run(la, "pipeline-check-true", _driver(RUN_PIPELINE_FILES, ["PYTHON", "run_all.py"]))
