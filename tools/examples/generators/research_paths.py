"""Real example logs for python/project-package-not-on-path: a research repository whose code imports
its own package ("from src.x import y", "from .x import y") started the wrong way.

Needs only CPython; the torchrun form needs torch (CPU build).  Each script writes a small
repository laid out like the reported ones, then starts it as people do (python src/train.py,
python model/train.py, torchrun src/train.py) from the repository root.
"""
from __future__ import annotations

from generate import run_script
from generators.families import _driver as families_driver


def _driver(files: dict[str, str], argv: list[str]) -> str:
    """families._driver (write the repository's files, run argv there), echoing the command first."""
    shown = " ".join("python" if a == "PYTHON" else a for a in argv)
    return f"print({'$ ' + shown!r}, flush=True)\n" + families_driver(files, argv)


SRC_LAYOUT = {
    "src/__init__.py": "",
    "src/data.py": "def build_loader(cfg):\n    return list(range(cfg))\n",
    "src/train.py": (
        "import argparse\n"
        "from src.data import build_loader\n\n"
        "def main():\n"
        "    ap = argparse.ArgumentParser(); ap.add_argument('--epochs', type=int, default=1)\n"
        "    args = ap.parse_args()\n"
        "    print(len(build_loader(8)), args.epochs)\n\n"
        "if __name__ == '__main__':\n"
        "    main()\n"
    ),
}

RELATIVE_LAYOUT = {
    "model/__init__.py": "",
    "model/modules.py": "class Encoder:\n    pass\n",
    "model/train.py": (
        "import logging\n"
        "logging.basicConfig(level=logging.INFO, format='%(asctime)s %(levelname)s %(message)s')\n"
        "logging.info('starting training, config=configs/base.yaml')\n"
        "from .modules import Encoder\n\n"
        "print(Encoder())\n"
    ),
}

TORCHRUN_LAYOUT = {
    "src/__init__.py": "",
    "src/models/__init__.py": "",
    "src/models/net.py": "import torch\nclass Net(torch.nn.Linear):\n    pass\n",
    "src/train.py": (
        "import os\n"
        "import torch\n"
        "import torch.distributed as dist\n"
        "from src.models.net import Net\n\n"
        "dist.init_process_group('gloo')\n"
        "print(Net(4, 2))\n"
    ),
}


def generate() -> None:
    run_script("python/project-package-not-on-path", "python-src-train-py",
               _driver(SRC_LAYOUT, ["PYTHON", "src/train.py", "--epochs", "3"]))
    run_script("python/project-package-not-on-path", "relative-import-run-as-script",
               _driver(RELATIVE_LAYOUT, ["PYTHON", "model/train.py"]))
    run_script("python/project-package-not-on-path", "torchrun-2ranks-src-package",
               _driver(TORCHRUN_LAYOUT, ["PYTHON", "-m", "torch.distributed.run", "--nproc_per_node", "2",
                                         "--master_port", "29613", "src/train.py"]))
