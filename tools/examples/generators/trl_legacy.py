"""Real example logs of TRL releases older than the one the other generators use.

- trl/completion-only-response-key-not-found: DataCollatorForCompletionOnlyLM (trl 0.5-0.19; removed in
  0.20) warns and masks the whole example when the response template is not found in the tokenized
  text: a template that the formatting function never writes, a response cut off by max_length, and a
  training loop where every example of a batch is dropped.

Needs torch (CPU build), transformers and trl 0.19.1: install it apart and put it first on PYTHONPATH,
e.g. ``pip install --no-deps --target DIR trl==0.19.1`` then
``PYTHONPATH=DIR python tools/examples/generate.py trl_legacy``. Nothing is downloaded: the tokenizer
is a word-level one built in code.
"""
from __future__ import annotations

from generate import run_script

_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false",
        "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}

_COMMON = r'''
import logging, warnings
import torch
import trl
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from trl import DataCollatorForCompletionOnlyLM

assert trl.__version__.startswith("0.19"), trl.__version__
WORDS = ("<pad> <eos> [UNK] ### Question : Answer Response Instruction what is the capital of France Paris "
         "Germany Berlin Italy Rome name a city in please write one word").split()

def tokenizer():
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>", unk_token="[UNK]")
'''

TEMPLATE_NOT_WRITTEN = _COMMON + r'''
tok = tokenizer()
def formatting_prompts_func(ex):
    return f"### Instruction : {ex['q']} ### Response : {ex['a']}"
rows = [{"q": "what is the capital of France", "a": "Paris"}, {"q": "what is the capital of Italy", "a": "Rome"}]
# the collator was copied from a tutorial that formats with '### Answer :'
collator = DataCollatorForCompletionOnlyLM("### Answer :", tokenizer=tok)
batch = collator([tok(formatting_prompts_func(r))["input_ids"] for r in rows])
print("labels kept per example:", (batch["labels"] != -100).sum(dim=1).tolist())
'''

TRUNCATED = _COMMON + r'''
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("sft")
tok = tokenizer()
max_length = 12
log.info("max_length=%d", max_length)
long_q = "please write one word name a city in France what is the capital of France"
texts = [f"### Question : {long_q} ### Answer : Paris", "### Question : what is the capital of Germany ### Answer : Berlin"]
collator = DataCollatorForCompletionOnlyLM("### Answer :", tokenizer=tok)
batch = collator([tok(t, truncation=True, max_length=max_length)["input_ids"] for t in texts])
log.info("labels kept per example: %s", (batch["labels"] != -100).sum(dim=1).tolist())
'''

LOOP_ALL_MASKED = _COMMON + r'''
tok = tokenizer()
collator = DataCollatorForCompletionOnlyLM(" ### Answer :", tokenizer=tok, instruction_template="### Question :")
texts = ["### Question : what is the capital of Germany ### Answer: Berlin",
         "### Question : what is the capital of Italy ### Answer: Rome"]
for step in range(2):
    batch = collator([tok(t)["input_ids"] for t in texts])
    n = int((batch["labels"] != -100).sum())
    print(f"step {step}: {n} label tokens left in the batch (all masked: the loss has nothing to train on)")
'''

RK = "trl/completion-only-response-key-not-found"


def generate() -> None:
    run_script(RK, "template-not-in-formatted-text", TEMPLATE_NOT_WRITTEN, env=_ENV, timeout=240)
    run_script(RK, "response-truncated-by-max-length", TRUNCATED, env=_ENV, timeout=240)
    run_script(RK, "every-example-masked-loss-zero", LOOP_ALL_MASKED, env=_ENV, timeout=240)
