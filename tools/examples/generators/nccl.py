"""Real example logs for the NCCL group.

Only pytorch/nccl-not-built can be produced without GPUs: the CPU build of
torch has no ProcessGroupNCCL, so asking for the "nccl" backend fails at once.
The other NCCL entries need GPUs and have composed logs instead.
"""
from __future__ import annotations

from generate import run_script

ENTRY = "pytorch/nccl-not-built"

PLAIN = '''
import os
import torch
import torch.distributed as dist

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29531")
print(f"torch {torch.__version__}, cuda available: {torch.cuda.is_available()}")
dist.init_process_group("nccl", rank=0, world_size=1)
'''

TORCHRUN = '''
import os
from datetime import timedelta
import torch
import torch.distributed as dist

rank = int(os.environ["RANK"])
local_rank = int(os.environ["LOCAL_RANK"])
print(f"[setup] rank={rank} local_rank={local_rank} world_size={os.environ['WORLD_SIZE']}", flush=True)
dist.init_process_group(backend="nccl", timeout=timedelta(seconds=20))
print("process group ready", flush=True)
'''

DEVICE_MAP = '''
import os
import torch.distributed as dist

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29532")
dist.init_process_group("cpu:gloo,cuda:nccl", rank=0, world_size=1)
'''

NEW_GROUP = '''
import os
from datetime import timedelta
import torch
import torch.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=20))
rank = dist.get_rank()
t = torch.ones(4) * (rank + 1)
dist.all_reduce(t)
print(f"rank {rank}: gloo all_reduce ok -> {t.tolist()}", flush=True)
# a tensor-parallel sub-group that the code base always creates with NCCL
tp_group = dist.new_group(ranks=[0, 1], backend="nccl")
'''


def generate() -> None:
    run_script(ENTRY, "init-nccl-plain-python", PLAIN)
    run_script(ENTRY, "init-nccl-torchrun-2procs", TORCHRUN, torchrun={"nproc_per_node": 2})
    run_script(ENTRY, "device-backend-map-short", DEVICE_MAP, keep="tail:6")
    run_script(ENTRY, "new-group-nccl-after-gloo", NEW_GROUP, torchrun={"nproc_per_node": 2})
