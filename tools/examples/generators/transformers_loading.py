"""Real example logs (transformers loading, saving, resuming and generation errors).

Needs torch (CPU build), transformers 5.x, tokenizers and datasets in the same venv.  Nothing is
downloaded: models and tokenizers are built from tiny configs in code, Hub repos are imitated by a
local cache folder read with HF_HUB_OFFLINE=1.

One deliberate trick: transformers/accelerate-required needs accelerate to be absent, and this venv
has it.  Those scripts hide it before transformers is imported (``sys.modules["accelerate"] = None``
makes ``importlib.util.find_spec("accelerate")`` return None, which is what transformers' availability
check uses).  peft is hidden the same way, because peft requires accelerate and so is never installed
where accelerate is missing (left visible, transformers.trainer_utils would import it and peft's own
``import accelerate.utils`` would fail first).  The error is then raised by transformers' own check,
exactly as with accelerate uninstalled; the hiding line is the first line of the script and never
appears in the tracebacks.
"""
from __future__ import annotations

from generate import run_script

ACC = "transformers/accelerate-required"
RESUME = "transformers/no-valid-checkpoint-to-resume"
WEIGHTS = "transformers/missing-weights-file"
TOK = "transformers/tokenizer-cant-load"
GENCFG = "transformers/generation-config-invalid"
CACHE = "transformers/use-cache-gradient-checkpointing"
PAD = "transformers/decoder-right-padding"
ROPE = "transformers/rope-scaling-invalid"
SDPA = "transformers/sdpa-not-supported"

_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false",
        "HF_DATASETS_OFFLINE": "1", "DISABLE_SAFETENSORS_CONVERSION": "1"}

_HIDE_ACCELERATE = 'import sys; sys.modules["accelerate"] = None; sys.modules["peft"] = None\n'

# a tiny Llama and a word-level tokenizer, built in code (shared by several scripts)
_TINY = r'''
def tiny_llama_config(**kw):
    from transformers import LlamaConfig
    base = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=128, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    base.update(kw)
    return LlamaConfig(**base)

def tiny_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    words = ("the a cat dog sat ran on mat rug fast slow today tomorrow question answer is what why how "
             "red blue green one two three four five yes no please write short story about").split()
    vocab = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3, **{w: i + 4 for i, w in enumerate(words)}}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>")
'''

# ================================================================================ accelerate-required
ACC_DEVICE_MAP = _HIDE_ACCELERATE + _TINY + r'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("serve")
import torch, transformers
from transformers import AutoModelForCausalLM
log.info("torch %s, transformers %s", torch.__version__, transformers.__version__)
from transformers import LlamaForCausalLM
LlamaForCausalLM(tiny_llama_config()).save_pretrained("models/tiny-chat")
log.info("loading models/tiny-chat with device_map='auto'")
model = AutoModelForCausalLM.from_pretrained("models/tiny-chat", device_map="auto", dtype=torch.float32)
log.info("model ready on %s", model.device)
'''

ACC_TRAINER = _HIDE_ACCELERATE + _TINY + r'''
import transformers
from transformers import LlamaForCausalLM, Trainer, TrainingArguments
transformers.logging.set_verbosity_info()
print(f"transformers {transformers.__version__}")
model = LlamaForCausalLM(tiny_llama_config())
print(f"model: {sum(p.numel() for p in model.parameters()):,} parameters")
args = TrainingArguments(output_dir="runs/tiny-sft", per_device_train_batch_size=4, max_steps=10,
                         learning_rate=1e-3, logging_steps=2, report_to=[])
trainer = Trainer(model=model, args=args)
trainer.train()
'''

ACC_TORCHRUN = _HIDE_ACCELERATE + _TINY + r'''
import os
import torch.distributed as dist
from transformers import AutoModelForCausalLM, LlamaForCausalLM
rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
dist.init_process_group("gloo")
if rank == 0:
    LlamaForCausalLM(tiny_llama_config()).save_pretrained("ckpt/base")
dist.barrier()
print(f"[rank {rank}] loading ckpt/base onto local device {local_rank}", flush=True)
model = AutoModelForCausalLM.from_pretrained("ckpt/base", device_map={"": local_rank})
'''

# =========================================================================== no-valid-checkpoint-to-resume
_TRAIN_HELPERS = _TINY + r'''
import torch
from torch.utils.data import Dataset

class Toy(Dataset):
    def __len__(self): return 64
    def __getitem__(self, i):
        ids = torch.tensor([1] + [4 + (i + k) % 40 for k in range(14)] + [2])
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}
'''

RESUME_WRONG_STEP = _TRAIN_HELPERS + r'''
import os, transformers
from transformers import LlamaForCausalLM, Trainer, TrainingArguments
transformers.logging.set_verbosity_warning()
torch.manual_seed(0)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, max_steps=6, save_steps=2,
                         save_total_limit=2, logging_steps=2, learning_rate=1e-3, report_to=[],
                         disable_tqdm=True, use_cpu=True)
Trainer(model=LlamaForCausalLM(tiny_llama_config()), args=args, train_dataset=Toy()).train()
print("checkpoints on disk:", sorted(d for d in os.listdir("out") if d.startswith("checkpoint-")), flush=True)
print("--- job restarted after preemption: resuming from out/checkpoint-2 (from the launcher config) ---", flush=True)
args2 = TrainingArguments(output_dir="out", per_device_train_batch_size=8, max_steps=12, save_steps=2,
                          logging_steps=2, learning_rate=1e-3, report_to=[], disable_tqdm=True, use_cpu=True)
trainer = Trainer(model=LlamaForCausalLM(tiny_llama_config()), args=args2, train_dataset=Toy())
trainer.train(resume_from_checkpoint="out/checkpoint-2")
'''

RESUME_TRUE_FIRST_RUN = _TRAIN_HELPERS + r'''
import logging, sys
import transformers
from transformers import LlamaForCausalLM, Trainer, TrainingArguments
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                    handlers=[logging.StreamHandler(sys.stdout)])
log = logging.getLogger("finetune")
transformers.utils.logging.set_verbosity_info()
transformers.utils.logging.enable_propagation()
transformers.utils.logging.disable_default_handler()
args = TrainingArguments(output_dir="outputs/run-7", per_device_train_batch_size=8, num_train_epochs=1,
                         logging_steps=5, report_to=[], use_cpu=True)
log.info("output_dir=%s, resume=True (always resume if possible)", args.output_dir)
trainer = Trainer(model=LlamaForCausalLM(tiny_llama_config()), args=args, train_dataset=Toy())
trainer.train(resume_from_checkpoint=True)
'''

RESUME_TORCHRUN_INCOMPLETE = _TRAIN_HELPERS + r'''
import json, os
import torch.distributed as dist
from transformers import LlamaForCausalLM, Trainer, TrainingArguments
rank = int(os.environ["RANK"])
ckpt = "shared/llama-sft/checkpoint-1200"
if rank == 0:
    # what a job killed in the middle of a save leaves behind: optimizer and state, no model weights
    os.makedirs(ckpt, exist_ok=True)
    torch.save({"state": {}, "param_groups": []}, os.path.join(ckpt, "optimizer.pt"))
    torch.save({"last_epoch": 1200}, os.path.join(ckpt, "scheduler.pt"))
    json.dump({"global_step": 1200, "epoch": 0.62}, open(os.path.join(ckpt, "trainer_state.json"), "w"))
args = TrainingArguments(output_dir="shared/llama-sft", per_device_train_batch_size=4, max_steps=2000,
                         save_steps=400, logging_steps=50, report_to=[], use_cpu=True, ddp_backend="gloo")
trainer = Trainer(model=LlamaForCausalLM(tiny_llama_config()), args=args, train_dataset=Toy())
print(f"[rank {rank}] contents of {ckpt}: {sorted(os.listdir(ckpt))}", flush=True)
trainer.train(resume_from_checkpoint=ckpt)
'''

# =================================================================================== missing-weights-file
WEIGHTS_DEEPSPEED_DIR = _TINY + r'''
import json, os, torch
from transformers import AutoModelForCausalLM
ckpt = "out/checkpoint-2000"
cfg = tiny_llama_config()
cfg.save_pretrained(ckpt)
os.makedirs(f"{ckpt}/global_step2000", exist_ok=True)
torch.save({"module": {}}, f"{ckpt}/global_step2000/mp_rank_00_model_states.pt")
torch.save({}, f"{ckpt}/global_step2000/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt")
open(f"{ckpt}/latest", "w").write("global_step2000")
open(f"{ckpt}/zero_to_fp32.py", "w").write("# DeepSpeed helper\n")
json.dump({"global_step": 2000}, open(f"{ckpt}/trainer_state.json", "w"))
print("$ ls", ckpt); print("\n".join(sorted(os.listdir(ckpt))), flush=True)
print("evaluating", ckpt, flush=True)
model = AutoModelForCausalLM.from_pretrained(ckpt, dtype=torch.bfloat16)
'''

WEIGHTS_HUB_CACHE = 'import os; os.environ["HF_HUB_CACHE"] = os.path.abspath("hf-cache/hub")\n' + _TINY + r'''
import json, os, pathlib
# a Hub cache in which only the config of the repo was ever downloaded (the weights download was interrupted)
cache = pathlib.Path("hf-cache/hub")
repo = cache / "models--acme--tiny-llama"
sha = "3f1c2a9b7d4e5f60718293a4b5c6d7e8f9012345"
(repo / "refs").mkdir(parents=True); (repo / "refs" / "main").write_text(sha)
snap = repo / "snapshots" / sha; snap.mkdir(parents=True)
tiny_llama_config().save_pretrained(snap)
import logging, transformers
from transformers import AutoModelForCausalLM
logging.basicConfig(level=logging.INFO, format="%(asctime)s | %(levelname)-7s | %(name)s | %(message)s")
logging.getLogger("embed-worker").info("HF_HUB_OFFLINE=%s, loading acme/tiny-llama", os.environ.get("HF_HUB_OFFLINE"))
model = AutoModelForCausalLM.from_pretrained("acme/tiny-llama")
'''

WEIGHTS_TORCHRUN_SAFETENSORS = _TINY + r'''
import os, torch
import torch.distributed as dist
from transformers import AutoModelForCausalLM
rank = int(os.environ["RANK"])
dist.init_process_group("gloo")
export = "export/final"
if rank == 0:
    # the export step saved config and tokenizer, but the weights were written with torch.save by hand
    tiny_llama_config().save_pretrained(export)
    tiny_tokenizer().save_pretrained(export)
    torch.save({}, os.path.join(export, "pytorch_model.bin"))
dist.barrier()
print(f"[rank {rank}] loading {export} (use_safetensors=True)", flush=True)
model = AutoModelForCausalLM.from_pretrained(export, use_safetensors=True)
'''

# ==================================================================================== tokenizer-cant-load
# 5.24 no longer raises "Can't load tokenizer for" for a folder without tokenizer files (see the entry);
# for a Llama config it raises "Couldn't instantiate the backend tokenizer from one of".
TOK_CHECKPOINT_NO_TOKENIZER = _TINY + r'''
import os
from transformers import AutoTokenizer, LlamaForCausalLM
ckpt = "outputs/checkpoint-500"
LlamaForCausalLM(tiny_llama_config()).save_pretrained(ckpt)     # Trainer without processing_class: model only
print("$ ls", ckpt, "->", " ".join(sorted(os.listdir(ckpt))), flush=True)
tokenizer = AutoTokenizer.from_pretrained(ckpt)
'''

TOK_TORCHRUN_MERGED = _TINY + r'''
import logging, os
import torch.distributed as dist
from transformers import AutoTokenizer, LlamaForCausalLM
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - dpo - %(message)s")
dist.init_process_group("gloo")
rank = dist.get_rank()
merged = "ckpt/sft/merged"
if rank == 0:
    LlamaForCausalLM(tiny_llama_config()).save_pretrained(merged)   # merge_and_unload().save_pretrained() only
dist.barrier()
logging.info("stage 2 (DPO) starting from %s", merged)
tokenizer = AutoTokenizer.from_pretrained(merged, padding_side="left")
'''

# ============================================================================== generation-config-invalid
GENCFG_SAVE_AFTER_EDIT = _TINY + r'''
import torch
from transformers import LlamaForCausalLM
model = LlamaForCausalLM(tiny_llama_config())
# evaluation settings copied from a notebook that used sampling
model.generation_config.temperature = 0.7
model.generation_config.top_p = 0.9
model.generation_config.max_new_tokens = 128
print("saving fine-tuned model to out/final", flush=True)
model.save_pretrained("out/final")
'''

GENCFG_TRAINER_CHECKPOINT = _TRAIN_HELPERS + r'''
import transformers
from transformers import LlamaForCausalLM, Trainer, TrainingArguments
transformers.logging.set_verbosity_warning()
torch.manual_seed(0)
model = LlamaForCausalLM(tiny_llama_config())
model.generation_config.top_k = 20          # "make evaluation generations less random"
args = TrainingArguments(output_dir="ckpt", per_device_train_batch_size=8, max_steps=6, save_steps=3,
                         logging_steps=1, learning_rate=1e-3, report_to=[], use_cpu=True)
Trainer(model=model, args=args, train_dataset=Toy()).train()
'''

GENCFG_SHIPPED_JSON = _TINY + r'''
import json, os
from transformers import GenerationConfig, LlamaForCausalLM
base = "base-model"
LlamaForCausalLM(tiny_llama_config()).save_pretrained(base)
# the generation_config.json this base checkpoint ships with
json.dump({"bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0, "temperature": 0.9, "top_p": 0.6,
           "max_length": 128}, open(os.path.join(base, "generation_config.json"), "w"), indent=2)
gc = GenerationConfig.from_pretrained(base)
print("loaded generation config:", gc.to_json_string(use_diff=True).replace("\n", " "), flush=True)
gc.max_new_tokens = 256
gc.save_pretrained("export/merged")
'''

# ======================================================================= use-cache-gradient-checkpointing
CACHE_TRAINER = _TRAIN_HELPERS + r'''
import transformers
from transformers import LlamaForCausalLM, Trainer, TrainingArguments
transformers.logging.set_verbosity_warning()
torch.manual_seed(0)
model = LlamaForCausalLM(tiny_llama_config(use_cache=True))
args = TrainingArguments(output_dir="gc-run", per_device_train_batch_size=8, max_steps=4, logging_steps=1,
                         learning_rate=1e-3, gradient_checkpointing=True, report_to=[], use_cpu=True,
                         disable_tqdm=True, save_strategy="no",
                         use_cache=True)   # 5.x Trainer sets model.config.use_cache from here (default False)
result = Trainer(model=model, args=args, train_dataset=Toy()).train()
print("train_loss", round(result.training_loss, 4))
'''

CACHE_LOOP_THEN_USER_ERROR = _TINY + r'''
import torch
from transformers import LlamaForCausalLM
torch.manual_seed(0)
model = LlamaForCausalLM(tiny_llama_config())
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
batches = [torch.randint(4, 40, (4, 16)) for _ in range(3)]
for step, ids in enumerate(batches):
    out = model(input_ids=ids, labels=ids, use_cache=True)
    out.loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {out.loss.item():.4f}", flush=True)
    if step == 1:
        metrics = {"loss": out.loss.item()}
        print("eval perplexity", torch.exp(torch.tensor(metrics["eval_loss"])))
'''

CACHE_TORCHRUN = _TINY + r'''
import os, torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import LlamaForCausalLM
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = LlamaForCausalLM(tiny_llama_config())
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
for step in range(2):
    ids = torch.randint(4, 40, (2, 12), generator=torch.Generator().manual_seed(rank * 10 + step))
    loss = ddp(input_ids=ids, labels=ids).loss
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# ========================================================================================= decoder-right-padding
PAD_BATCH_GENERATE = _TINY + r'''
import torch
from transformers import LlamaForCausalLM
torch.manual_seed(0)
tok = tiny_tokenizer()
model = LlamaForCausalLM(tiny_llama_config()).eval()
prompts = ["what is the red cat", "write a short story about the dog that ran on the mat today"]
batch = tok(prompts, return_tensors="pt", padding=True)
print("padding_side:", tok.padding_side, "| attention_mask:", batch["attention_mask"].tolist(), flush=True)
out = model.generate(**batch, max_new_tokens=6, do_sample=False)
for p, o in zip(prompts, tok.batch_decode(out[:, batch["input_ids"].shape[1]:], skip_special_tokens=True)):
    print(f"{p!r} -> {o!r}")
'''

PAD_EVAL_LOGGING = _TINY + r'''
import logging, sys, torch, transformers
from transformers import LlamaForCausalLM
logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
transformers.utils.logging.enable_propagation()
transformers.utils.logging.disable_default_handler()
log = logging.getLogger("eval")
torch.manual_seed(0)
tok = tiny_tokenizer()
model = LlamaForCausalLM(tiny_llama_config()).eval()
questions = ["what is one", "why is the mat red today", "how", "please write a short story about two dogs"]
exact = 0
for i in range(0, len(questions), 2):
    chunk = questions[i:i + 2]
    enc = tok(chunk, return_tensors="pt", padding=True)
    gen = model.generate(**enc, max_new_tokens=4, do_sample=False)
    answers = tok.batch_decode(gen[:, enc["input_ids"].shape[1]:], skip_special_tokens=True)
    exact += sum(a.strip() == "yes" for a in answers)
    log.info("batch %d: %s", i // 2, answers)
log.info("exact match: %.2f", exact / len(questions))
'''

PAD_TORCHRUN = _TINY + r'''
import os, torch
import torch.distributed as dist
from transformers import LlamaForCausalLM
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
tok = tiny_tokenizer()
model = LlamaForCausalLM(tiny_llama_config()).eval()
shard = [["what is two", "what is the blue dog on the rug"], ["how fast", "why is the cat so slow today"]][rank]
enc = tok(shard, return_tensors="pt", padding=True)
gen = model.generate(**enc, max_new_tokens=4, do_sample=False)
print(f"[rank {rank}] generated {gen.shape[1] - enc['input_ids'].shape[1]} tokens for {len(shard)} prompts", flush=True)
dist.destroy_process_group()
'''

# ============================================================================================ rope-scaling-invalid
ROPE_CONFIG_JSON = _TINY + r'''
import json, os
from transformers import AutoModelForCausalLM
path = "converted/llama-3.1-mini"
cfg = tiny_llama_config(max_position_embeddings=1024).to_dict()
# the conversion script kept only rope_type and factor of the Llama 3.1 rope block
cfg["rope_scaling"] = {"rope_type": "llama3", "factor": 8.0}
cfg.pop("rope_parameters", None)
os.makedirs(path, exist_ok=True)
json.dump(cfg, open(os.path.join(path, "config.json"), "w"), indent=2)
print("loading", path, flush=True)
model = AutoModelForCausalLM.from_pretrained(path)
'''

ROPE_YARN_KWARGS = r'''
from transformers import AutoConfig, LlamaConfig
print("extending context to 32k with YaRN", flush=True)
config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                     max_position_embeddings=32768, rope_scaling={"rope_type": "yarn", "original_max_position_embeddings": 4096})
'''

# ============================================================================================= sdpa-not-supported
SDPA_BLOOM = r'''
import torch
from transformers import AutoModelForCausalLM, BloomConfig
config = BloomConfig(vocab_size=64, hidden_size=32, n_layer=2, n_head=4)
model = AutoModelForCausalLM.from_config(config, attn_implementation="sdpa", dtype=torch.float32)
'''

SDPA_DEBERTA_SCRIPT = r'''
import logging, torch, transformers
from transformers import AutoModelForSequenceClassification, DebertaV2Config
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("train_cls")
cfg = DebertaV2Config(vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=64, num_labels=3)
cfg.save_pretrained("models/deberta-v3-tiny")
transformers.AutoModel.from_config(cfg).save_pretrained("models/deberta-v3-tiny")
log.info("recipe: attn_implementation=sdpa, bf16=False, lr=2e-5")
model = AutoModelForSequenceClassification.from_pretrained("models/deberta-v3-tiny", num_labels=3,
                                                           attn_implementation="sdpa")
'''

SDPA_TORCHRUN = r'''
import os
from transformers import AutoModelForCausalLM, BloomConfig
rank = int(os.environ["RANK"])
print(f"[rank {rank}] building model (attn_implementation=sdpa from recipe)", flush=True)
model = AutoModelForCausalLM.from_config(BloomConfig(vocab_size=64, hidden_size=32, n_layer=2, n_head=4),
                                         attn_implementation="sdpa")
'''

SDPA_FLEX = r'''
from transformers import AutoModelForCausalLM, BloomConfig
model = AutoModelForCausalLM.from_config(BloomConfig(vocab_size=64, hidden_size=32, n_layer=2, n_head=4),
                                         attn_implementation="flex_attention")
'''


def generate() -> None:
    env = dict(_ENV)
    tr2 = {"nproc_per_node": 2}

    run_script(ACC, "device-map-auto-load", ACC_DEVICE_MAP, env=env)
    run_script(ACC, "trainer-training-arguments", ACC_TRAINER, env=env, keep="tail:14")
    run_script(ACC, "torchrun-device-map-local-rank", ACC_TORCHRUN, torchrun=tr2, env=env)

    run_script(RESUME, "resume-deleted-step", RESUME_WRONG_STEP, env=env)
    run_script(RESUME, "resume-true-first-run", RESUME_TRUE_FIRST_RUN, env=env)
    run_script(RESUME, "torchrun-incomplete-checkpoint", RESUME_TORCHRUN_INCOMPLETE, torchrun=tr2, env=env)

    run_script(WEIGHTS, "deepspeed-checkpoint-folder", WEIGHTS_DEEPSPEED_DIR, env=env)
    run_script(WEIGHTS, "offline-cache-config-only", WEIGHTS_HUB_CACHE, env=env)
    run_script(WEIGHTS, "torchrun-use-safetensors-bin-only", WEIGHTS_TORCHRUN_SAFETENSORS, torchrun=tr2, env=env)

    run_script(TOK, "checkpoint-saved-without-tokenizer", TOK_CHECKPOINT_NO_TOKENIZER, env=env)
    run_script(TOK, "torchrun-merged-folder", TOK_TORCHRUN_MERGED, torchrun=tr2, env=env)

    run_script(GENCFG, "save-after-setting-temperature", GENCFG_SAVE_AFTER_EDIT, env=env)
    run_script(GENCFG, "trainer-checkpoint-top-k", GENCFG_TRAINER_CHECKPOINT, env=env)
    run_script(GENCFG, "shipped-json-edited-then-saved", GENCFG_SHIPPED_JSON, env=env)

    run_script(CACHE, "trainer-gradient-checkpointing", CACHE_TRAINER, env=env)
    run_script(CACHE, "loop-then-user-keyerror", CACHE_LOOP_THEN_USER_ERROR, env=env)
    run_script(CACHE, "torchrun-ddp", CACHE_TORCHRUN, torchrun=tr2, env=env)

    run_script(PAD, "batch-generate-right-padded", PAD_BATCH_GENERATE, env=env)
    run_script(PAD, "eval-loop-logging", PAD_EVAL_LOGGING, env=env)
    run_script(PAD, "torchrun-sharded-eval", PAD_TORCHRUN, torchrun=tr2, env=env)

    run_script(ROPE, "converted-config-missing-keys", ROPE_CONFIG_JSON, env=env)
    run_script(ROPE, "yarn-without-factor", ROPE_YARN_KWARGS, env=env)

    run_script(SDPA, "bloom-from-config", SDPA_BLOOM, env=env)
    run_script(SDPA, "deberta-classification-recipe", SDPA_DEBERTA_SCRIPT, env=env)
    run_script(SDPA, "torchrun-bloom", SDPA_TORCHRUN, torchrun=tr2, env=env)
    run_script(SDPA, "bloom-flex-attention", SDPA_FLEX, env=env, keep="tail:6")
