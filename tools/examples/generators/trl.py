"""Real example logs of TRL's trainer-configuration checks, run on CPU.

- trl/grpo-num-generations-batch-divisibility: GRPOConfig with a generation batch (per-device batch x
  processes x steps per generation) that does not hold whole groups of num_generations completions, with
  num_generations=1, with an eval batch that does not, and the same check under torchrun on two CPU ranks.
  GRPOConfig checks this in __post_init__, before any model is loaded, so no model is needed.

Needs torch (CPU build) and trl (with transformers and accelerate) in the same venv. Nothing is downloaded.
"""
from __future__ import annotations

from generate import run_script

_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TOKENIZERS_PARALLELISM": "false",
        "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}

GRPO_TRAIN_BATCH = r'''
import logging
from trl import GRPOConfig
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
log = logging.getLogger("train_grpo")
log.info("model: Qwen/Qwen2.5-0.5B-Instruct, reward: accuracy + format")
log.info("building GRPOConfig: per_device_train_batch_size=2 gradient_accumulation_steps=3 num_generations=8")
args = GRPOConfig(output_dir="outputs/grpo-qwen", per_device_train_batch_size=2, gradient_accumulation_steps=3,
                  num_generations=8, learning_rate=1e-6, max_completion_length=256, use_cpu=True, bf16=False,
                  report_to="none")
'''

GRPO_ONE_GENERATION = r'''
from trl import GRPOConfig, TrlParser
import sys
sys.argv += ["--output_dir", "outputs/grpo-1gen", "--per_device_train_batch_size", "1", "--num_generations", "1",
             "--use_cpu", "true", "--bf16", "false", "--report_to", "none"]
(args,) = TrlParser((GRPOConfig,)).parse_args_and_config()
'''

GRPO_EVAL_BATCH = r'''
from trl import GRPOConfig
args = GRPOConfig(output_dir="outputs/grpo-eval", per_device_train_batch_size=8, num_generations=4,
                  per_device_eval_batch_size=2, eval_strategy="steps", eval_steps=50, use_cpu=True, bf16=False,
                  report_to="none")
'''

GRPO_TORCHRUN = r'''
import os
from trl import GRPOConfig
args = GRPOConfig(output_dir="outputs/grpo-2proc", per_device_train_batch_size=3, num_generations=4,
                  use_cpu=True, bf16=False, report_to="none", ddp_backend="gloo")
print(f"rank {os.environ.get('RANK')}: world_size={args.world_size} generation_batch_size={args.generation_batch_size}")
'''

GRPO = "trl/grpo-num-generations-batch-divisibility"


def generate() -> None:
    run_script(GRPO, "train-batch-not-multiple-of-generations", GRPO_TRAIN_BATCH, env=_ENV, timeout=240)
    run_script(GRPO, "trlparser-one-generation", GRPO_ONE_GENERATION, env=_ENV, timeout=240)
    run_script(GRPO, "eval-batch-not-multiple", GRPO_EVAL_BATCH, env=_ENV, timeout=240)
    run_script(GRPO, "torchrun-two-ranks", GRPO_TORCHRUN, env=_ENV, torchrun={"nproc_per_node": 2}, timeout=300)
