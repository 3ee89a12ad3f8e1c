"""Real example logs of PyTorch Lightning's configuration checks, run on CPU.

- lightning/reduce-lr-on-plateau-monitor: a LightningModule whose configure_optimizers returns a
  ReduceLROnPlateau scheduler without a "monitor" key (list form and lr-scheduler-dict form), and one
  whose monitor names a metric that is never logged; the last one also under torchrun with two CPU
  ranks (strategy="ddp", gloo).
- lightning/ddp-strategy-interactive-environment: Trainer / Fabric with a process-launching strategy created
  in an interactive session. The scripts set sys.ps1 before importing lightning, as the interactive
  interpreter and Jupyter kernels do; that attribute is what Lightning's interactivity check reads.

Needs torch (CPU build) and lightning in the same venv. Nothing is downloaded: the data are random tensors.
"""
from __future__ import annotations

from generate import run_script

_COMMON = r'''
import os, warnings
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import lightning as L

warnings.filterwarnings("ignore", ".*does not have many workers.*")
warnings.filterwarnings("ignore", ".*GPU available but not used.*")

def loader(n=64):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 16, generator=g)
    y = (x.sum(dim=1) > 0).long()
    return DataLoader(TensorDataset(x, y), batch_size=8)

class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        return loss
'''

LIST_FORM = _COMMON + r'''
class Model(Classifier):
    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=1e-3)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2)
        return [opt], [sched]

if __name__ == "__main__":
    L.seed_everything(42)
    trainer = L.Trainer(max_epochs=3, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Model(), train_dataloaders=loader())
'''

DICT_FORM = _COMMON + r'''
class Model(Classifier):
    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self.net(x), y))

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=3e-4, weight_decay=0.01)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "epoch"}}

if __name__ == "__main__":
    L.seed_everything(7)
    trainer = L.Trainer(max_epochs=5, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False)
    trainer.fit(Model(), train_dataloaders=loader(), val_dataloaders=loader(32))
'''

METRIC_NOT_LOGGED = _COMMON + r'''
class Model(Classifier):
    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min")
        return {"optimizer": opt, "lr_scheduler": sched, "monitor": "val_loss"}

if __name__ == "__main__":
    L.seed_everything(0)
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=int(os.environ.get("WORLD_SIZE", "1")),
                        strategy="ddp" if "WORLD_SIZE" in os.environ else "auto", logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Model(), train_dataloaders=loader())
'''

_INTERACTIVE = r'''
import sys
sys.ps1 = ">>> "          # set by the interactive interpreter / a Jupyter kernel
import torch
import lightning as L
'''

TRAINER_DDP_INTERACTIVE = _INTERACTIVE + r'''
trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", max_epochs=1, logger=False)
'''

TRAINER_DDP_SPAWN_INTERACTIVE = _INTERACTIVE + r'''
print("Seed set to", L.seed_everything(1234, verbose=False))
trainer = L.Trainer(accelerator="cpu", devices=4, strategy="ddp_spawn", precision="bf16-mixed", max_epochs=3)
'''

FABRIC_DDP_INTERACTIVE = _INTERACTIVE + r'''
from lightning.fabric import Fabric
fabric = Fabric(accelerator="cpu", devices=2, strategy="ddp")
fabric.launch()
'''

PLATEAU = "lightning/reduce-lr-on-plateau-monitor"
INTERACTIVE = "lightning/ddp-strategy-interactive-environment"


def generate() -> None:
    run_script(PLATEAU, "list-form-no-monitor", LIST_FORM, timeout=240)
    run_script(PLATEAU, "scheduler-dict-no-monitor", DICT_FORM, timeout=240)
    run_script(PLATEAU, "monitor-metric-never-logged", METRIC_NOT_LOGGED, timeout=240)
    run_script(PLATEAU, "torchrun-ddp-monitor-not-logged", METRIC_NOT_LOGGED, torchrun={"nproc_per_node": 2},
               timeout=300)
    run_script(INTERACTIVE, "trainer-ddp-in-notebook", TRAINER_DDP_INTERACTIVE, timeout=240)
    run_script(INTERACTIVE, "trainer-ddp-spawn-in-notebook", TRAINER_DDP_SPAWN_INTERACTIVE, timeout=240)
    run_script(INTERACTIVE, "fabric-ddp-in-notebook", FABRIC_DDP_INTERACTIVE, timeout=240)
