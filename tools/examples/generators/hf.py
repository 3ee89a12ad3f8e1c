"""Real example logs for the Hugging Face entries: Transformers, Datasets, Hub, PEFT, TRL, safetensors.

Needs, in the same venv as torch (CPU build): transformers, peft, trl, datasets, accelerate,
huggingface_hub and safetensors from the package index.  Nothing here downloads anything: models and
tokenizers are built from tiny configs in code; Hub failures come from an unreachable endpoint, offline
mode, or a small HTTP stub that this script itself serves on 127.0.0.1.
"""
from __future__ import annotations

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


def _hub(home: str, **env: str) -> dict[str, str]:
    return {"HF_HOME": home, "HF_HUB_DISABLE_TELEMETRY": "1", **env}


def generate() -> None:
    hub = "huggingface-hub/offline-cannot-connect"
    with tempfile.TemporaryDirectory(prefix="fl-hf-") as home:
        run_script(hub, "httpx-connect-refused-from-pretrained", HUB_HTTPX_CONNECT,
                   env=_hub(home, HF_ENDPOINT="http://127.0.0.1:9", HF_HUB_ETAG_TIMEOUT="2"), timeout=240)
        run_script(hub, "snapshot-download-connection-error", HUB_SNAPSHOT_CONNECT,
                   env=_hub(home, HF_ENDPOINT="http://127.0.0.1:9"), keep="tail:30", timeout=240)
        run_script(hub, "specific-connection-error-401", HUB_SPECIFIC_401, env=_hub(home), keep="tail:25")

    pt = "peft/target-modules-not-found"
    run_script(pt, "exclude-modules-regex-excludes-everything", PEFT_ALL_EXCLUDED)
    run_script(pt, "transformers5-mixtral-fused-experts", PEFT_FUSED_EXPERTS, keep="tail:14")

    run_script("pytorch/weights-only-load-failed", "numpy-dtype-class-after-allowlist", WO_DTYPE_CLASS)
