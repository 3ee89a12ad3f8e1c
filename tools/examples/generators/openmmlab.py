"""Real example logs for the OpenMMLab version checks and the mmcv 2.0 reorganisation
(mmcv/version-incompatible, mmcv/v2-moved-to-mmengine).

Needs, each in its own ``pip install --no-deps --target DIR`` folder: mmcv-lite==2.2.0 (the same
``mmcv`` package as mmcv 2.2.0, without the compiled ops), mmengine==0.10.7 with addict termcolor yapf
rich packaging, opencv-python-headless, pillow, and separately mmdet==3.3.0, mmdet==2.28.2 and
mmsegmentation==1.2.2.  Set MM_BASE to the shared folders (os.pathsep-separated) and MMDET3, MMDET2,
MMSEG to the three package folders; put all of them on PYTHONPATH too so the logs are scrubbed, then
``python tools/examples/generate.py openmmlab``.  Every script fails at import; nothing is built.
"""
from __future__ import annotations

import os

from generate import run_script

MMDET3_APIS = r'''
from mmdet.apis import init_detector, inference_detector
model = init_detector("configs/rtmdet/rtmdet_tiny_8xb32-300e_coco.py", "rtmdet_tiny.pth", device="cpu")
'''

MMDET2_TRAIN = r'''
import argparse, os
import mmcv
print(f"mmcv {mmcv.__version__}", flush=True)
import mmdet
from mmdet.apis import train_detector
'''

MMSEG_DEMO = r'''
from mmseg.apis import inference_model, init_model, show_result_pyplot
'''

MMCV_CONFIG = r'''
import argparse
from mmcv import Config, DictAction
parser = argparse.ArgumentParser()
cfg = Config.fromfile("configs/faster_rcnn_r50_fpn_1x.py")
'''

MMCV_RUNNER = r'''
import torch
from mmcv.runner import get_dist_info, init_dist, load_checkpoint
'''

MMCV_PARALLEL_LOGGING = r'''
import logging
logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(name)s - %(levelname)s - %(message)s")
logging.getLogger("tools.test").info("loading config configs/ShipRSImageNet/faster_rcnn_r50_fpn_100e.py")
from mmcv.parallel import MMDataParallel, MMDistributedDataParallel
'''


def _env(*names: str) -> dict:
    parts = [os.environ.get(n, "") for n in names]
    return {"PYTHONPATH": os.pathsep.join(p for p in parts if p)}


def generate() -> None:
    e = "mmcv/version-incompatible"
    run_script(e, "mmdet3.3-mmcv2.2-apis", MMDET3_APIS, env=_env("MMDET3", "MM_BASE"))
    run_script(e, "mmdet2.28-mmcv2.2-train", MMDET2_TRAIN, env=_env("MMDET2", "MM_BASE"))
    run_script(e, "mmseg1.2-mmcv2.2-demo", MMSEG_DEMO, env=_env("MMSEG", "MM_BASE"))
    e = "mmcv/v2-moved-to-mmengine"
    run_script(e, "mmcv2.2-import-config", MMCV_CONFIG, env=_env("MM_BASE"))
    run_script(e, "mmcv2.2-import-runner", MMCV_RUNNER, env=_env("MM_BASE"))
    run_script(e, "mmcv2.2-import-parallel-logging", MMCV_PARALLEL_LOGGING, env=_env("MM_BASE"))
