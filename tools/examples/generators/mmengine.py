"""Real example logs for MMEngine's registry lookup error (mmengine/not-in-registry).

Needs mmengine and its small pure-Python dependencies importable next to torch, e.g.
``pip install --target DIR --no-deps mmengine==0.10.7`` plus ``pip install --target DIR addict
termcolor yapf rich packaging``, then ``PYTHONPATH=DIR python tools/examples/generate.py mmengine``.
The scripts build their own child registry (scope "mmdet") the way OpenMMLab projects do, so no
downstream package is needed.
"""
from __future__ import annotations

from generate import run_script

SETUP = r'''
import torch.nn as nn
from mmengine.registry import MODELS as MMENGINE_MODELS, Registry, DefaultScope
MODELS = Registry("model", parent=MMENGINE_MODELS, scope="mmdet", locations=[])
DefaultScope.get_instance("train", scope_name="mmdet")

@MODELS.register_module()
class ResNet(nn.Module):
    def __init__(self, depth=50):
        super().__init__()
'''

DIRECT_BUILD = SETUP + r'''
# the config names a detector that lives in a project module nobody imported
model = MODELS.build(dict(type="MyYOLOV3", backbone=dict(type="ResNet")))
'''

NESTED_BACKBONE = SETUP + r'''
@MODELS.register_module()
class MaskRCNN(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = MODELS.build(backbone)

# the backbone class is defined in projects/rmt/backbone.py, which the config does not import
model = MODELS.build(dict(type="MaskRCNN", backbone=dict(type="RMT", embed_dim=64)))
'''

CONFIG_WITH_LOGGING = SETUP + r'''
import logging, os
from mmengine.config import Config
from mmengine.logging import MMLogger
logger = MMLogger.get_instance("mmengine", log_level="INFO")
with open("femtodet_cfg.py", "w") as fh:
    fh.write("model = dict(type='FemtoDet', backbone=dict(type='ResNet', depth=18))\n"
             "# custom_imports = dict(imports=['projects.femtodet'], allow_failed_imports=False)\n")
cfg = Config.fromfile("femtodet_cfg.py")
logger.info("Config:\n" + cfg.pretty_text)
logger.info("building model")
model = MODELS.build(cfg.model)
'''


def generate() -> None:
    e = "mmengine/not-in-registry"
    run_script(e, "mme0.10-direct-build", DIRECT_BUILD)
    run_script(e, "mme0.10-nested-backbone", NESTED_BACKBONE)
    run_script(e, "mme0.10-config-logging", CONFIG_WITH_LOGGING)
