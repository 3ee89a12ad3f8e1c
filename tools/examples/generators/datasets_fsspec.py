"""Real example logs for datasets <= 2.14.5 next to fsspec >= 2023.10.0
(datasets/cached-localfilesystem-not-supported).

Needs the pair importable next to torch, e.g. ``pip install --target DIR "fsspec[http]==2023.10.0"
pyarrow pandas "numpy<2" dill==0.3.7 multiprocess==0.70.15 xxhash tqdm requests aiohttp
huggingface_hub==0.17.3`` and ``pip install --target DIR --no-deps datasets==2.14.5`` (datasets
2.14.5 itself declares fsspec<2023.9, which is why the pair is installed in two steps, as it happens
when another package upgrades fsspec), then
``PYTHONPATH=DIR python tools/examples/generate.py datasets_fsspec``.  Only local files are read.
"""
from __future__ import annotations

from generate import run_script

JSON_FILES = r'''
import json, os
os.environ["HF_DATASETS_CACHE"] = os.path.abspath("hf_cache")
with open("train.json", "w") as fh:
    for i in range(8):
        fh.write(json.dumps({"instruction": f"q{i}", "output": f"a{i}"}) + "\n")
from datasets import load_dataset
raw = load_dataset("json", data_files={"train": "train.json"})
print(raw)
'''

TEXT_SPLITS = r'''
import os
os.environ["HF_DATASETS_CACHE"] = os.path.abspath("hf_cache")
for name in ("train", "dev", "test"):
    with open(f"{name}.txt", "w") as fh:
        fh.write("EU rejects German call to boycott British lamb .\n" * 4)
import datasets, fsspec
print("datasets", datasets.__version__, "fsspec", fsspec.__version__, flush=True)
from datasets import load_dataset
ds = load_dataset("text", data_files={"train": "train.txt", "validation": "dev.txt", "test": "test.txt"})
'''

TRAINER_STYLE_LOGGING = r'''
import logging, os, sys
os.environ["HF_DATASETS_CACHE"] = os.path.abspath("hf_cache")
logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                    datefmt="%m/%d/%Y %H:%M:%S", handlers=[logging.StreamHandler(sys.stdout)], level=logging.INFO)
logger = logging.getLogger("run_clm")
with open("corpus.csv", "w") as fh:
    fh.write("text\n" + "hello world\n" * 16)
logger.info("Training/evaluation parameters: per_device_train_batch_size=8, num_train_epochs=3")
import datasets
datasets.logging.set_verbosity_info()
from datasets import load_dataset
raw_datasets = load_dataset("csv", data_files={"train": "corpus.csv"}, cache_dir="hf_cache")
'''


def generate() -> None:
    e = "datasets/cached-localfilesystem-not-supported"
    run_script(e, "d2.14.5-fsspec2023.10-json", JSON_FILES)
    run_script(e, "d2.14.5-fsspec2023.10-text-splits", TEXT_SPLITS)
    run_script(e, "d2.14.5-fsspec2023.10-csv-logging", TRAINER_STYLE_LOGGING)
