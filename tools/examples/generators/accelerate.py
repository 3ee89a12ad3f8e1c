"""Real example logs of Accelerate's checks on models loaded in 8-bit / 4-bit, run on CPU.

- transformers/device-map-auto-distributed (its 8-bit / 4-bit signatures): bitsandbytes models cannot be loaded on a CPU-only
  machine, so the scripts set on a tiny Llama the attributes that from_pretrained(load_in_8bit=True /
  load_in_4bit=True, device_map=...) sets (is_loaded_in_8bit / is_loaded_in_4bit and hf_device_map).
  Accelerator.prepare_model reads only those attributes, so the message and call path are Accelerate's
  own: a model placed on GPU 1 while this process trains on another device, a model split over two
  devices under torchrun (two CPU ranks), and a device map with CPU offload.

Needs torch (CPU build), transformers and accelerate in the same venv. Nothing is downloaded.
"""
from __future__ import annotations

from generate import run_script

_ENV = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1"}

_COMMON = r'''
import os, logging
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from accelerate import Accelerator

def tiny_llama():
    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                      num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
    return LlamaForCausalLM(cfg)

def as_loaded(model, device_map, bits=8):
    # what from_pretrained(quantization_config=BitsAndBytesConfig(...), device_map=...) leaves on the model
    setattr(model, f"is_loaded_in_{bits}bit", True)
    model.is_quantized = True
    model.hf_device_map = device_map
    return model
'''

OTHER_DEVICE = _COMMON + r'''
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("finetune")
accelerator = Accelerator(cpu=True)
log.info("process %d/%d on %s", accelerator.process_index, accelerator.num_processes, accelerator.device)
# the script loaded the 8-bit base with device_map={"": 1} (a hard-coded GPU index)
model = as_loaded(tiny_llama(), {"": 1}, bits=8)
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
model, optimizer = accelerator.prepare(model, optimizer)
'''

SPLIT_DISTRIBUTED = _COMMON + r'''
accelerator = Accelerator(cpu=True)
# device_map="auto" spread the 4-bit model over the two visible devices in every process
device_map = {"model.embed_tokens": 0, "model.layers.0": 0, "model.layers.1": 1, "model.norm": 1, "lm_head": 1}
model = as_loaded(tiny_llama(), device_map, bits=4)
print(f"[rank {accelerator.process_index}] distributed_type={accelerator.distributed_type} "
      f"devices in hf_device_map={sorted(set(device_map.values()))}", flush=True)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
model, optimizer = accelerator.prepare(model, optimizer)
'''

CPU_OFFLOAD = _COMMON + r'''
accelerator = Accelerator(cpu=True)
# device_map="auto" with max_memory too small for the GPU put the head on the CPU
device_map = {"model.embed_tokens": 0, "model.layers": 0, "model.norm": 0, "lm_head": "cpu"}
model = as_loaded(tiny_llama(), device_map, bits=4)
model = accelerator.prepare(model)
'''

QDP = "transformers/device-map-auto-distributed"


def generate() -> None:
    run_script(QDP, "8bit-model-on-gpu1-single-process", OTHER_DEVICE, env=_ENV, timeout=240)
    run_script(QDP, "torchrun-4bit-split-over-devices", SPLIT_DISTRIBUTED, env=_ENV, torchrun={"nproc_per_node": 2},
               timeout=300)
    run_script(QDP, "4bit-device-map-cpu-offload", CPU_OFFLOAD, env=_ENV, timeout=240)
