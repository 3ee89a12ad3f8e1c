"""Real logs for distributed, CUDA-runtime, FSDP and launcher entries (second set).

Everything runs on CPU: gloo process groups under torchrun or mp.spawn with
2 processes and short timeouts, so each scenario takes a few seconds.
"""
from __future__ import annotations

from generate import run_script

WORKER_KILLED = "pytorch/dataloader-worker-killed"

# --------------------------------------------------------------------------
# pytorch/dataloader-worker-killed: SIGFPE in a worker (native division by zero)
# --------------------------------------------------------------------------
_WORKER_FPE = '''
import os, signal
import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

mp.set_sharing_strategy("file_system")


class Decoded(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        if i == 37:
            os.kill(os.getpid(), signal.SIGFPE)  # what an integer division by zero in a C decoder does
        return torch.full((4,), float(i))


loader = DataLoader(Decoded(), batch_size=4, num_workers=2)
for epoch in range(2):
    for step, batch in enumerate(loader):
        print(f"epoch {epoch} step {step} mean {batch.mean():.2f}", flush=True)
'''


def generate() -> None:
    two = {"nproc_per_node": 2}
    run_script(WORKER_KILLED, "worker-sigfpe-division", _WORKER_FPE)
