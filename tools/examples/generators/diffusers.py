"""Real example logs for diffusers releases that import huggingface_hub.cached_download
(diffusers/hub-cached-download-removed).

Needs diffusers 0.25.0 and huggingface_hub 0.26.0 (the first release without cached_download)
importable next to torch, e.g. ``pip install --target DIR diffusers==0.25.0 huggingface_hub==0.26.0``,
then ``PYTHONPATH=DIR python tools/examples/generate.py diffusers``.  The import fails before anything is downloaded.
"""
from __future__ import annotations

from generate import run_script

PIPELINE_IMPORT = r'''
from diffusers import StableDiffusionPipeline
pipe = StableDiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5")
'''

TRAIN_SCRIPT_IMPORT = r'''
import argparse, logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s")
logging.getLogger("train_dreambooth_lora").info("parsing arguments")
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
'''

ACCELERATE_STYLE_RANKS = r'''
import torch.distributed as dist
dist.init_process_group("gloo")
from diffusers.utils import check_min_version
check_min_version("0.25.0")
'''


def generate() -> None:
    e = "diffusers/hub-cached-download-removed"
    run_script(e, "d0.25-hub0.26-pipeline-import", PIPELINE_IMPORT)
    run_script(e, "d0.25-hub0.26-train-script", TRAIN_SCRIPT_IMPORT)
    run_script(e, "d0.25-hub0.26-torchrun-2-ranks", ACCELERATE_STYLE_RANKS, torchrun={"nproc_per_node": 2})
