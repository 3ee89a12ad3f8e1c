"""Real example logs for lightgbm/gpu-learner-not-enabled: asking a LightGBM build for a GPU learner
it does not contain.  Run once with a venv holding lightgbm==3.3.5 and once with lightgbm==4.6.0
(numpy, scikit-learn, pyyaml beside it); each run writes the logs of the version it finds.  A machine
without a GPU is what the messages need (no OpenCL device, no CUDA learner in the wheel).
"""
from __future__ import annotations

from generate import run_script

LGB_TRAIN_GPU = r'''
import logging, numpy as np
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train_lgbm")
import lightgbm as lgb
log.info("lightgbm %s", lgb.__version__)
rng = np.random.default_rng(0)
X = rng.random((2000, 20)); y = (X[:, 0] + X[:, 3] > 1.0).astype(int)
params = {"objective": "binary", "metric": "auc", "num_leaves": 63, "learning_rate": 0.05,
          "device": "gpu", "gpu_platform_id": 0, "gpu_device_id": 0, "verbose": 1}
log.info("training with params %s", params)
booster = lgb.train(params, lgb.Dataset(X, label=y), num_boost_round=200)
'''

LGB_SKLEARN = r'''
import numpy as np, sys
import lightgbm as lgb
X = np.random.default_rng(1).random((500, 8)); y = (X[:, 1] > 0.5).astype(int)
clf = lgb.LGBMClassifier(n_estimators=100, device=sys.argv[1])
clf.fit(X, y)
'''


def generate() -> None:
    import lightgbm
    eid = "lightgbm/gpu-learner-not-enabled"
    if lightgbm.__version__.startswith("3."):
        run_script(eid, "lgb335-train-device-gpu", LGB_TRAIN_GPU)
    else:
        run_script(eid, "lgb46-sklearn-device-gpu-no-opencl", LGB_SKLEARN, args=["gpu"])
        run_script(eid, "lgb46-sklearn-device-cuda", LGB_SKLEARN, args=["cuda"])
