"""Real example logs (quantized models, PEFT merging, TRL, accelerate launch) on a CPU-only
machine.

- transformers/cuda-on-quantized-model, transformers/purely-quantized-fine-tuning,
  peft/merge-quantized-lora: bitsandbytes and GPTQ models cannot be loaded on a CPU-only machine, so the
  scripts set on a tiny model the attributes that from_pretrained sets on a quantized one
  (quantization_method, is_quantized, is_loaded_in_8bit/4bit; see transformers/quantizers/base.py and
  quantizer_bnb_*.py). The guards in transformers and peft read only those attributes, so the messages and
  call paths are the libraries' own.
- transformers/bitsandbytes-required: real, bitsandbytes is not installed in the generator venv.
- trl/sft-missing-text-field has no real logs: trl 1.16 reports a missing text column only as a bare
  "KeyError: 'text'" (too generic a line for a signature) and its collators as "KeyError: 'input_ids'".
- accelerate/launch-defaults-warning: real `accelerate launch` runs without a saved configuration
  (HF_HOME points to an empty folder).

Nothing is downloaded: tokenizers and models are built from tiny configs in code.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from generate import run_script

MOVE = "transformers/cuda-on-quantized-model"
PURE = "transformers/purely-quantized-fine-tuning"
BNB = "transformers/bitsandbytes-required"
MERGE = "peft/merge-quantized-lora"
LAUNCH = "accelerate/launch-defaults-warning"

_HF_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false",
           "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}
_TR = {"nproc_per_node": 2}

_COMMON = r"""
import os, sys, logging
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, LlamaConfig, LlamaForCausalLM

WORDS = ("<|endoftext|> <pad> [UNK] the a quick brown fox jumps over lazy dog hello world how are you "
         "good bad great movie film was is not very question answer summarize translate").split()

def tiny_tokenizer():
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                   unk_token="[UNK]", pad_token="<pad>")

def tiny_llama():
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                      num_key_value_heads=2, vocab_size=len(WORDS), max_position_embeddings=64,
                      pad_token_id=1, bos_token_id=0, eos_token_id=0)
    return LlamaForCausalLM(cfg)

def as_loaded_quantized(model, bits=4, method="bitsandbytes"):
    # the attributes transformers' quantizer sets in from_pretrained(quantization_config=...)
    # (quantizers/base.py, quantizer_bnb_4bit.py / quantizer_bnb_8bit.py); the guards read only these
    from transformers.utils.quantization_config import QuantizationMethod
    model.is_quantized = True
    model.quantization_method = QuantizationMethod(method)
    if method == "bitsandbytes":
        setattr(model, f"is_loaded_in_{bits}bit", True)
    return model
"""

# ------------------------------------------------------------------- moving / casting quantized models
MOVE_CUDA_8BIT = _COMMON + r'''
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("serve")
log.info("loading checkpoint in 8-bit (LLM.int8)")
model = as_loaded_quantized(tiny_llama(), bits=8)
log.info("memory footprint: %.2f MB", model.get_memory_footprint() / 2**20)
device = "cuda"
model = model.cuda()          # left over from the fp16 version of this script
model.eval()
'''

MOVE_TO_8BIT_TORCHRUN = _COMMON + r'''
local_rank = int(os.environ.get("LOCAL_RANK", 0))
print(f"[rank {local_rank}] loading reward model in 8-bit", flush=True)
reward_model = as_loaded_quantized(tiny_llama(), bits=8)
reward_model = reward_model.to(f"cuda:{local_rank}")
'''

MOVE_HALF_4BIT = _COMMON + r'''
import argparse
p = argparse.ArgumentParser()
p.add_argument("--half", action="store_true", default=True)
args = p.parse_args([])
tok = tiny_tokenizer()
model = as_loaded_quantized(tiny_llama(), bits=4)
print(f"model: {model.__class__.__name__}, quantized={model.is_quantized}", flush=True)
if args.half:
    model = model.half()      # "to save memory"
batch = tok(["how are you", "hello world"], return_tensors="pt", padding=True)
print(model.generate(**batch, max_new_tokens=4))
'''

MOVE_CAST_DTYPE = _COMMON + r'''
def build_scorer(model, dtype=torch.bfloat16):
    """Wrap a causal LM as a log-prob scorer."""
    model = model.to(dtype)
    model.eval()
    return model

tok = tiny_tokenizer()
print("building scorer from 4-bit base", flush=True)
scorer = build_scorer(as_loaded_quantized(tiny_llama(), bits=4))
'''

# ------------------------------------------------------------------------ purely quantized fine-tuning
PURE_WRONG_VARIABLE = _COMMON + r'''
from datasets import Dataset
from peft import LoraConfig, get_peft_model
from transformers import Trainer, TrainingArguments, DataCollatorForLanguageModeling

tok = tiny_tokenizer()
model = as_loaded_quantized(tiny_llama(), bits=4)
lora = LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
peft_model = get_peft_model(model, lora)
peft_model.print_trainable_parameters()
ds = Dataset.from_dict({"text": ["the quick brown fox", "hello world", "how are you"] * 4})
ds = ds.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
args = TrainingArguments(output_dir="qlora-out", per_device_train_batch_size=2, max_steps=3,
                         report_to=[], use_cpu=True, logging_steps=1)
trainer = Trainer(model=model, args=args, train_dataset=ds,      # should be peft_model
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
'''

PURE_TORCHRUN = _COMMON + r'''
from datasets import Dataset
from transformers import Trainer, TrainingArguments, DataCollatorForLanguageModeling

rank = int(os.environ.get("RANK", 0))
tok = tiny_tokenizer()
model = as_loaded_quantized(tiny_llama(), bits=8)
print(f"rank {rank}: loaded base model in 8-bit", flush=True)
ds = Dataset.from_dict({"text": ["the quick brown fox", "hello world", "how are you"] * 4})
ds = ds.map(lambda b: tok(b["text"]), batched=True, remove_columns=["text"])
args = TrainingArguments(output_dir="ft-out", per_device_train_batch_size=2, max_steps=3,
                         report_to=[], use_cpu=True, ddp_backend="gloo")
trainer = Trainer(model=model, args=args, train_dataset=ds,
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
'''

PURE_SFT = _COMMON + r'''
from datasets import Dataset
from trl import SFTConfig, SFTTrainer
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("sft")
tok = tiny_tokenizer()
model = as_loaded_quantized(tiny_llama(), bits=4)
log.info("base model loaded with BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4')")
ds = Dataset.from_dict({"text": ["the quick brown fox jumps over the lazy dog", "hello world"] * 6})
cfg = SFTConfig(output_dir="sft-out", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tok)   # peft_config forgotten
trainer.train()
'''

# ------------------------------------------------------------------------- bitsandbytes not installed
_SAVE_TINY = r'''
path = "tiny-llama"
if not os.path.exists(os.path.join(path, "config.json")):
    tiny_llama().save_pretrained(path)
    tiny_tokenizer().save_pretrained(path)
'''

BNB_4BIT_PLAIN = _COMMON + _SAVE_TINY + r'''
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
bnb_config = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
                                bnb_4bit_compute_dtype=torch.bfloat16, bnb_4bit_use_double_quant=True)
model = AutoModelForCausalLM.from_pretrained(path, quantization_config=bnb_config, device_map="auto")
'''

BNB_8BIT_LOGGING = _COMMON + _SAVE_TINY + r'''
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig
import transformers
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("eval")
log.info("torch %s, transformers %s, cuda available: %s", torch.__version__, transformers.__version__,
         torch.cuda.is_available())
tok = AutoTokenizer.from_pretrained(path)
log.info("loading %s in 8-bit", path)
model = AutoModelForCausalLM.from_pretrained(path, quantization_config=BitsAndBytesConfig(load_in_8bit=True))
'''

BNB_TORCHRUN = _COMMON + r'''
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
local_rank = int(os.environ.get("LOCAL_RANK", 0))
path = f"tiny-llama-{local_rank}"
tiny_llama().save_pretrained(path)
print(f"[rank {local_rank}] QLoRA: loading base with device_map={{'': {local_rank}}}", flush=True)
bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained(path, quantization_config=bnb, device_map={"": local_rank})
'''

# ------------------------------------------------------------------------------- peft merge on quantized
MERGE_IA3_8BIT = _COMMON + r'''
from peft import IA3Config, get_peft_model
base = tiny_llama()
cfg = IA3Config(target_modules=["k_proj", "v_proj", "down_proj"], feedforward_modules=["down_proj"],
                task_type="CAUSAL_LM")
model = get_peft_model(base, cfg)
# peft picks bnb layer classes from these attributes when it injects, so set them once the adapter is in
as_loaded_quantized(model.get_base_model(), bits=8)
model.print_trainable_parameters()
merged = model.merge_and_unload()
merged.save_pretrained("ia3-merged")
'''

MERGE_IA3_4BIT_EXPORT = _COMMON + r'''
from peft import IA3Config, PeftModel, get_peft_model
logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s export: %(message)s")
log = logging.getLogger("export")
# a trained adapter on disk (saved from a 4-bit run)
get_peft_model(tiny_llama(), IA3Config(target_modules=["k_proj", "v_proj", "down_proj"],
               feedforward_modules=["down_proj"], task_type="CAUSAL_LM")).save_pretrained("adapter")
log.info("loading base model with load_in_4bit=True to save memory")
base = tiny_llama()
log.info("attaching adapter from ./adapter")
model = PeftModel.from_pretrained(base, "adapter")
as_loaded_quantized(model.get_base_model(), bits=4)
log.info("merging adapter into base weights")
model = model.merge_and_unload()
log.info("saving to ./merged")
'''

MERGE_LORA_GPTQ = _COMMON + r'''
from peft import LoraConfig, get_peft_model
print("base: TinyLlama-GPTQ (4-bit, group_size=128)", flush=True)
base = as_loaded_quantized(tiny_llama(), method="gptq")
model = get_peft_model(base, LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                                        task_type="CAUSAL_LM"))
model.print_trainable_parameters()
print("training done, merging LoRA for deployment", flush=True)
model = model.merge_and_unload()
'''

# ------------------------------------------------------------------------------ TRL text column missing
# ---------------------------------------------------------------------------- accelerate launch defaults
_TRAIN_OK = r'''
import torch
from accelerate import Accelerator
acc = Accelerator()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
data = torch.utils.data.TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
dl = torch.utils.data.DataLoader(data, batch_size=16, shuffle=True)
model, opt, dl = acc.prepare(model, opt, dl)
for epoch in range(2):
    for x, y in dl:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        acc.backward(loss)
        opt.step(); opt.zero_grad()
    acc.print(f"epoch {epoch}: loss {loss.item():.4f} (device={acc.device}, mixed_precision={acc.mixed_precision})")
acc.print("done")
'''

_TRAIN_BAD_LABELS = r'''
import torch
from accelerate import Accelerator
acc = Accelerator()
num_classes = 5
model = torch.nn.Linear(16, num_classes)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
labels = torch.tensor([0, 3, 1, 5, 2, 4, 1, 0])          # label 5 with 5 classes
data = torch.utils.data.TensorDataset(torch.randn(8, 16), labels)
dl = torch.utils.data.DataLoader(data, batch_size=8)
model, opt, dl = acc.prepare(model, opt, dl)
acc.print(f"training on {acc.device} with {acc.num_processes} process(es)")
for x, y in dl:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    acc.backward(loss)
'''


def _launch_driver(script: str, launch_args: list[str]) -> str:
    """A driver that writes ``train.py`` and runs it with `accelerate launch` (no saved config)."""
    return (
        "import os, pathlib, subprocess, sys\n"
        f"pathlib.Path('train_acc.py').write_text({script!r})\n"
        "os.makedirs('hf_home', exist_ok=True)\n"
        "env = {**os.environ, 'HF_HOME': os.path.abspath('hf_home')}\n"
        f"argv = [sys.executable, '-m', 'accelerate.commands.launch', *{launch_args!r}, 'train_acc.py']\n"
        "print('$ accelerate launch ' + ' '.join(argv[3:]), flush=True)\n"
        "sys.exit(subprocess.run(argv, env=env, stderr=subprocess.STDOUT).returncode)\n"
    )


def generate() -> None:
    env = dict(_HF_ENV)
    # moving / casting
    run_script(MOVE, "transformers5.24-cuda-8bit-logging", MOVE_CUDA_8BIT, env=env)
    run_script(MOVE, "transformers5.24-torchrun-to-8bit-reward-model", MOVE_TO_8BIT_TORCHRUN, torchrun=_TR, env=env)
    run_script(MOVE, "transformers5.24-half-4bit-generate", MOVE_HALF_4BIT, env=env)
    run_script(MOVE, "transformers5.24-cast-bf16-scorer", MOVE_CAST_DTYPE, env=env)
    # purely quantized
    run_script(PURE, "transformers5.24-trainer-base-variable", PURE_WRONG_VARIABLE, env=env)
    run_script(PURE, "transformers5.24-torchrun-8bit-trainer", PURE_TORCHRUN, torchrun=_TR, env=env)
    run_script(PURE, "trl1.16-sfttrainer-no-peft-config", PURE_SFT, env=env)
    # bitsandbytes missing
    run_script(BNB, "transformers5.24-4bit-nf4-device-map-auto", BNB_4BIT_PLAIN, env=env)
    run_script(BNB, "transformers5.24-8bit-eval-logging", BNB_8BIT_LOGGING, env=env)
    run_script(BNB, "transformers5.24-torchrun-qlora-load", BNB_TORCHRUN, torchrun=_TR, env=env)
    # peft merge
    run_script(MERGE, "peft0.21-ia3-8bit-merge", MERGE_IA3_8BIT, env=env)
    run_script(MERGE, "peft0.21-ia3-4bit-export-script", MERGE_IA3_4BIT_EXPORT, env=env)
    run_script(MERGE, "peft0.21-lora-gptq-merge", MERGE_LORA_GPTQ, env=env)
    # accelerate launch defaults (benign)
    run_script(LAUNCH, "accelerate1.16-cpu-run-completes", _launch_driver(_TRAIN_OK, []), env=env)
    run_script(LAUNCH, "accelerate1.16-then-target-out-of-bounds", _launch_driver(_TRAIN_BAD_LABELS, []), env=env)
    run_script(LAUNCH, "accelerate1.16-bf16-passed-others-defaulted",
               _launch_driver(_TRAIN_OK, ["--mixed_precision", "bf16"]), env=env)
