"""Real example logs for webdataset's multi-node guard (webdataset/nodesplitter-required).

Needs webdataset importable next to torch, e.g. ``pip install --target DIR webdataset==0.2.100
braceexpand`` (pyyaml and numpy come with the torch environment), then
``PYTHONPATH=DIR python tools/examples/generate.py webdataset``.  The scripts write two small tar
shards and read them back under torchrun (2 CPU processes): torchrun sets RANK and WORLD_SIZE, which
is all webdataset looks at.
"""
from __future__ import annotations

from generate import run_script

MAKE_SHARDS = r'''
import io, os, tarfile
os.makedirs("shards", exist_ok=True)
for s in range(2):
    path = f"shards/train-{s:06d}.tar"
    if os.path.exists(path):
        continue
    tmp = f"{path}.{os.getpid()}.tmp"  # both ranks write the shards; each renames its own copy
    with tarfile.open(tmp, "w") as tar:
        for i in range(4):
            for ext, data in (("txt", f"caption {s}-{i}".encode()), ("cls", str(i % 2).encode())):
                info = tarfile.TarInfo(f"{s:03d}{i:05d}.{ext}"); info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, path)
'''

TORCHRUN_ITERATE = MAKE_SHARDS + r'''
import webdataset as wds
dataset = wds.WebDataset("shards/train-{000000..000001}.tar").to_tuple("txt", "cls")
for caption, label in dataset:
    print(caption, label)
'''

TORCHRUN_DATALOADER = MAKE_SHARDS + r'''
import os, torch
import torch.distributed as dist
import webdataset as wds
dist.init_process_group("gloo")
dataset = (wds.WebDataset("shards/train-{000000..000001}.tar", shardshuffle=100)
           .shuffle(100).to_tuple("txt", "cls").batched(2))
loader = wds.WebLoader(dataset, batch_size=None, num_workers=1)
for step, batch in enumerate(loader):
    print(f"rank {dist.get_rank()} step {step}", flush=True)
'''

LAUNCHER_ENV_LOGGING = MAKE_SHARDS + r'''
import logging, os
logging.basicConfig(level=logging.INFO, format="%(asctime)s [%(levelname)s] %(message)s")
log = logging.getLogger("train")
# a launcher (accelerate, a SLURM wrapper) exported the distributed environment
log.info("RANK=%s WORLD_SIZE=%s LOCAL_RANK=%s", os.environ["RANK"], os.environ["WORLD_SIZE"], os.environ["LOCAL_RANK"])
import webdataset as wds
ds = wds.WebDataset("shards/train-{000000..000001}.tar", resampled=False).decode().to_tuple("txt")
log.info("start epoch 0")
next(iter(ds))
'''


def generate() -> None:
    e = "webdataset/nodesplitter-required"
    run_script(e, "wds0.2.100-torchrun-2-ranks", TORCHRUN_ITERATE, torchrun={"nproc_per_node": 2})
    run_script(e, "wds0.2.100-torchrun-webloader-worker", TORCHRUN_DATALOADER, torchrun={"nproc_per_node": 2})
    run_script(e, "wds0.2.100-launcher-env-logging", LAUNCHER_ENV_LOGGING,
               env={"RANK": "0", "WORLD_SIZE": "8", "LOCAL_RANK": "0"})
