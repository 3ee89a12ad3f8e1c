"""Real example logs of Transformers' DeepSpeed ZeRO-3 check and PEFT's adapter-config lookup, run on CPU.

- transformers/deepspeed-zero3-device-map: a ZeRO-3 DeepSpeed config is registered by TrainingArguments
  (deepspeed=...), then from_pretrained is given a device_map ("auto" in one process; {"": LOCAL_RANK}, the
  QLoRA recipe's form, under torchrun with two gloo ranks). DeepSpeed must be importable (it is, without its
  compiled ops); the check fires before any weight is placed.
- peft/adapter-config-not-found: PeftModel.from_pretrained / PeftConfig.from_pretrained pointed at a folder
  without adapter_config.json (a full fine-tune checkpoint), at a relative path that does not exist from the
  working directory, and (AutoPeftModelForCausalLM) at a DeepSpeed global_step folder.

Needs torch (CPU build), transformers, accelerate, peft and deepspeed in the same venv. Nothing is downloaded:
the model is a tiny random Llama saved next to the script.
"""
from __future__ import annotations

from generate import run_script
from generators.accelerate import _COMMON as _TINY

ZERO3 = "transformers/deepspeed-zero3-device-map"
ADAPTER = "peft/adapter-config-not-found"
_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}

_SAVE = _TINY + r'''
os.makedirs("models", exist_ok=True)
if not os.path.isdir("models/llama-tiny"):
    tiny_llama().save_pretrained("models/llama-tiny")
'''

ZERO3_AUTO = _SAVE + r'''
from transformers import AutoModelForCausalLM, TrainingArguments
ds_config = {
    "zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}, "stage3_gather_16bit_weights_on_model_save": True},
    "bf16": {"enabled": "auto"},
    "train_micro_batch_size_per_gpu": "auto",
    "gradient_accumulation_steps": "auto",
}
args = TrainingArguments(output_dir="out/sft-z3", deepspeed=ds_config, per_device_train_batch_size=1,
                         gradient_accumulation_steps=8, report_to=[], use_cpu=True)
print("deepspeed config registered; loading model")
model = AutoModelForCausalLM.from_pretrained("models/llama-tiny", dtype=torch.bfloat16, device_map="auto")
'''

ZERO3_LOCAL_RANK = _SAVE + r'''
from transformers import AutoModelForCausalLM, TrainingArguments
local_rank = int(os.environ.get("LOCAL_RANK", 0))
args = TrainingArguments(output_dir="out/qlora-z3", deepspeed="ds_z3.json", per_device_train_batch_size=2,
                         report_to=[], use_cpu=True)
model = AutoModelForCausalLM.from_pretrained("models/llama-tiny", device_map={"": local_rank})
'''

DS_Z3_JSON = ('{"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto", '
              '"gradient_accumulation_steps": "auto"}')

ADAPTER_FULL_CKPT = _SAVE + r'''
from transformers import AutoModelForCausalLM
from peft import PeftModel
# a full fine-tune's checkpoint folder: config.json and model.safetensors, no adapter files
tiny_llama().save_pretrained("output/checkpoint-500")
print(sorted(os.listdir("output/checkpoint-500")))
base = AutoModelForCausalLM.from_pretrained("models/llama-tiny")
model = PeftModel.from_pretrained(base, "./output/checkpoint-500")
'''

ADAPTER_RELATIVE = _SAVE + r'''
from transformers import AutoModelForCausalLM
from peft import PeftModel
adapter = "saves/llama-tiny/lora/sft"   # written relative to the repository root, run from examples/
base = AutoModelForCausalLM.from_pretrained("models/llama-tiny")
model = PeftModel.from_pretrained(base, adapter)
merged = model.merge_and_unload()
'''

ADAPTER_DS_GLOBAL_STEP = r'''
import os
from peft import AutoPeftModelForCausalLM
# a DeepSpeed checkpoint: the engine's global_step folder holds optimizer/model shards, no adapter files
ckpt = os.path.join(os.getcwd(), "output", "checkpoint-200", "global_step200")
os.makedirs(ckpt, exist_ok=True)
for name in ("mp_rank_00_model_states.pt", "bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt"):
    open(os.path.join(ckpt, name), "wb").close()
print(sorted(os.listdir(ckpt)))
model = AutoPeftModelForCausalLM.from_pretrained(ckpt)
'''


def generate() -> None:
    run_script(ZERO3, "trainingarguments-zero3-device-map-auto", ZERO3_AUTO, env=_ENV, timeout=300)
    run_script(ZERO3, "torchrun-two-ranks-device-map-local-rank",
               f"open('ds_z3.json', 'w').write({DS_Z3_JSON!r})\n" + ZERO3_LOCAL_RANK,
               torchrun={"nproc_per_node": 2}, env=_ENV, timeout=300)
    run_script(ADAPTER, "full-finetune-checkpoint-no-adapter", ADAPTER_FULL_CKPT, env=_ENV, timeout=300)
    run_script(ADAPTER, "relative-adapter-path-wrong-cwd", ADAPTER_RELATIVE, env=_ENV, timeout=300)
    run_script(ADAPTER, "autopeft-deepspeed-global-step-folder", ADAPTER_DS_GLOBAL_STEP, env=_ENV, timeout=300)
