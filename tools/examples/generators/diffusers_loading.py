"""Real example logs for diffusers' missing-keys check (diffusers/cannot-load-keys-missing).

Needs diffusers 0.32.2 with accelerate importable next to torch, e.g.
``pip install --target DIR --no-deps diffusers==0.32.2 huggingface_hub==0.27.1 accelerate==1.2.1
safetensors regex requests importlib_metadata zipp tqdm psutil packaging pillow``, then
``PYTHONPATH=DIR python tools/examples/generate.py diffusers_loading``.  Each script saves a tiny
randomly initialised UNet/VAE, damages its weights file the way the reports describe (a cut-down
file, renamed keys), and loads it again; nothing is downloaded.
"""
from __future__ import annotations

from generate import run_script

TINY_UNET = r'''
import torch
from safetensors.torch import load_file, save_file
from diffusers import UNet2DConditionModel
unet = UNet2DConditionModel(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
                            block_out_channels=(8, 16), norm_num_groups=4, cross_attention_dim=8,
                            attention_head_dim=2,
                            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"))
unet.save_pretrained("sd-model/unet")
WEIGHTS = "sd-model/unet/diffusion_pytorch_model.safetensors"
'''

PARTIAL_WEIGHTS = TINY_UNET + r'''
sd = load_file(WEIGHTS)
keep = dict(list(sd.items())[: len(sd) // 2])      # what an interrupted copy / pruned export leaves
save_file(keep, WEIGHTS)
unet = UNet2DConditionModel.from_pretrained("sd-model", subfolder="unet")
'''

FUSED_LORA_RENAMED = TINY_UNET + r'''
sd = load_file(WEIGHTS)
# a UNet saved while LoRA layers were still wrapped: the base weights carry ".base_layer"
renamed = {k.replace("to_q.weight", "to_q.base_layer.weight").replace("to_v.weight", "to_v.base_layer.weight"): v
           for k, v in sd.items()}
save_file(renamed, WEIGHTS)
unet = UNet2DConditionModel.from_pretrained("sd-model/unet", torch_dtype=torch.float32)
'''

TRAINING_SCRIPT_LOGGING = TINY_UNET + r'''
import logging
from diffusers import AutoencoderKL
logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                    level=logging.INFO)
logger = logging.getLogger("train_dreambooth_lora")
vae = AutoencoderKL(block_out_channels=(8,), down_block_types=("DownEncoderBlock2D",),
                    up_block_types=("UpDecoderBlock2D",), latent_channels=4, norm_num_groups=4)
vae.save_pretrained("sd-model/vae")
sd = load_file("sd-model/vae/diffusion_pytorch_model.safetensors")
save_file({k: v for k, v in sd.items() if not k.startswith("decoder.")}, "sd-model/vae/diffusion_pytorch_model.safetensors")
logger.info("Distributed environment: NO\nNum processes: 1\nProcess index: 0\nMixed precision type: no")
logger.info("loading the VAE from sd-model")
vae = AutoencoderKL.from_pretrained("sd-model", subfolder="vae")
'''


def generate() -> None:
    e = "diffusers/cannot-load-keys-missing"
    run_script(e, "d0.32-partial-unet-weights", PARTIAL_WEIGHTS)
    run_script(e, "d0.32-lora-base-layer-keys", FUSED_LORA_RENAMED)
    run_script(e, "d0.32-vae-encoder-only-logging", TRAINING_SCRIPT_LOGGING)
