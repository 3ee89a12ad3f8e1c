"""Real example logs for the config layer under detectron2 (detectron2/non-existent-config-key).

detectron2 has no wheels on PyPI; its CfgNode is fvcore's, which is yacs'. These scripts run that
layer directly: ``pip install --target DIR --no-deps yacs==0.1.8 fvcore==0.1.5.post20221221
iopath==0.1.10 portalocker tabulate termcolor tqdm pillow``, then
``PYTHONPATH=DIR python tools/examples/generate.py detectron2``.  The detectron2 frames of a real
run (detectron2/config/config.py) are therefore absent from these logs; the composed logs of the
entry show them.
"""
from __future__ import annotations

from generate import run_script

BASE = r'''
from fvcore.common.config import CfgNode as CN
def get_cfg():
    _C = CN()
    _C.MODEL = CN()
    _C.MODEL.META_ARCHITECTURE = "GeneralizedRCNN"
    _C.MODEL.WEIGHTS = ""
    _C.MODEL.ROI_HEADS = CN()
    _C.MODEL.ROI_HEADS.NUM_CLASSES = 80
    _C.MODEL.ROI_HEADS.BATCH_SIZE_PER_IMAGE = 512
    _C.SOLVER = CN()
    _C.SOLVER.BASE_LR = 0.001
    _C.SOLVER.IMS_PER_BATCH = 16
    return _C.clone()
'''

PROJECT_CONFIG_FILE = BASE + r'''
import logging
logging.basicConfig(level=logging.INFO, format="[%(asctime)s %(name)s]: %(message)s", datefmt="%m/%d %H:%M:%S")
logging.getLogger("detectron2").info("Command Line Args: Namespace(config_file='configs/fcos/fcos_imprv_R_50_FPN.yaml', num_gpus=1)")
with open("fcos_imprv_R_50_FPN.yaml", "w") as fh:
    fh.write("MODEL:\n  META_ARCHITECTURE: OneStageDetector\n  FCOS:\n    NUM_CLASSES: 81\n    CENTERNESS_ON_REG: True\n")
cfg = get_cfg()          # the project's add_fcos_config(cfg) was never called
cfg.merge_from_file("fcos_imprv_R_50_FPN.yaml")
'''

OPTS_TYPO = BASE + r'''
import sys
opts = ["MODEL.ROI_HEADS.NUM_CLASS", "3", "SOLVER.BASE_LR", "0.00025"]
print("opts:", opts, flush=True)
cfg = get_cfg()
cfg.merge_from_list(opts)
'''

SAVED_CONFIG_NEWER_KEYS = BASE + r'''
# a config.yaml written by another detectron2/project version, loaded into this version's defaults
with open("output_config.yaml", "w") as fh:
    fh.write("MODEL:\n  WEIGHTS: output/model_final.pth\n  ROI_HEADS:\n    NUM_CLASSES: 2\n  VOVNET:\n    CONV_BODY: V-99-eSE\n")
cfg = get_cfg()
cfg.merge_from_file("output_config.yaml")
'''


def generate() -> None:
    e = "detectron2/non-existent-config-key"
    run_script(e, "fvcore-yacs0.1.8-project-section", PROJECT_CONFIG_FILE)
    run_script(e, "fvcore-yacs0.1.8-opts-typo", OPTS_TYPO)
    run_script(e, "fvcore-yacs0.1.8-saved-config", SAVED_CONFIG_NEWER_KEYS)
