"""Real example logs of two PyTorch Lightning checks, run on CPU.

- lightning/val-check-interval-exceeds-batches: an integer Trainer(val_check_interval=N) larger than the
  number of training batches in one epoch (plain run, the pytorch_lightning namespace, torchrun with two gloo
  ranks).
- lightning/checkpoint-missing-lightning-version: a plain torch.save'd state dict (no Lightning metadata)
  given to LightningModule.load_from_checkpoint and to Trainer.fit(ckpt_path=...), and an exported {"model": ...} file to Trainer.test(ckpt_path=...) in
  the pytorch_lightning namespace.
- lightning/epoch-log-sync-dist-warning: validation_step logs a tensor on epoch level without sync_dist=True
  while training with DDP on two gloo ranks (lightning and pytorch_lightning namespaces).

Needs torch (CPU build) and lightning in the same venv. Nothing is downloaded: the data are random tensors.
"""
from __future__ import annotations

from generate import run_script
from generators.lightning import _COMMON as _BASE

VAL_CHECK = "lightning/val-check-interval-exceeds-batches"
NO_VERSION = "lightning/checkpoint-missing-lightning-version"
SYNC_DIST = "lightning/epoch-log-sync-dist-warning"

# the data and the classifier of the lightning group, plus validation/test steps and an optimizer
_EXTRA = r'''
class Module(Classifier):
    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self.net(x), y))

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_loss", nn.functional.cross_entropy(self.net(x), y))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
'''


def common(pkg: str = "lightning") -> str:
    return _BASE.replace("import lightning as L", f"import {pkg} as L") + _EXTRA


VAL_CHECK_INT = r'''
if __name__ == "__main__":
    L.seed_everything(42)
    trainer = L.Trainer(max_steps=2000, val_check_interval=500, accelerator="cpu", devices={devices},
                        strategy="{strategy}", logger=False, enable_checkpointing=False,
                        enable_progress_bar=False)
    trainer.fit(Module(), train_dataloaders=loader(), val_dataloaders=loader(16))
'''

PLAIN_CKPT_LOAD = r'''
if __name__ == "__main__":
    # weights saved by a plain PyTorch loop (or downloaded from a model hub): no Lightning metadata
    model = Module()
    torch.save({"state_dict": model.state_dict(), "epoch": 3}, "classifier.ckpt")
    print("saved classifier.ckpt with keys", list(torch.load("classifier.ckpt", weights_only=True)))
    restored = Classifier.load_from_checkpoint("classifier.ckpt")
'''

PLAIN_CKPT_RESUME = r'''
if __name__ == "__main__":
    L.seed_everything(0)
    model = Module()
    torch.save(model.state_dict(), "pretrained.ckpt")
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False)
    trainer.fit(model, train_dataloaders=loader(), val_dataloaders=loader(16), ckpt_path="pretrained.ckpt")
'''

PLAIN_CKPT_TEST = r'''
if __name__ == "__main__":
    model = Module()
    # an "exported" checkpoint: the weights under "model", as many repositories publish them
    torch.save({"model": model.state_dict(), "config": {"hidden": 32}}, "release_v1.pth")
    trainer = L.Trainer(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False)
    trainer.test(model, dataloaders=loader(16), ckpt_path="release_v1.pth")
'''

# validation_step logs "val_loss" without sync_dist; trained with DDP on two gloo ranks
SYNC_DIST_DDP = r'''
import warnings
warnings.filterwarnings("ignore", ".*smaller than the logging interval.*")
if __name__ == "__main__":
    L.seed_everything(7)
    trainer = L.Trainer(max_epochs=1, accelerator="cpu", devices=2, strategy="ddp", logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Module(), train_dataloaders=loader(), val_dataloaders=loader(16))
'''

# the same in Trainer.test: test_step logs "test_loss" without sync_dist
SYNC_DIST_TEST = r'''
if __name__ == "__main__":
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp", logger=False, enable_progress_bar=False)
    trainer.test(Module(), dataloaders=loader(32))
'''


def generate() -> None:
    run_script(VAL_CHECK, "trainer-int-interval-single-process",
               common() + VAL_CHECK_INT.replace("{devices}", "1").replace("{strategy}", "auto"), timeout=240)
    run_script(VAL_CHECK, "pytorch-lightning-namespace",
               common("pytorch_lightning") + VAL_CHECK_INT.replace("{devices}", "1").replace("{strategy}", "auto"),
               timeout=240)
    run_script(VAL_CHECK, "torchrun-ddp-two-ranks",
               common() + VAL_CHECK_INT.replace("{devices}", "2").replace("{strategy}", "ddp"),
               torchrun={"nproc_per_node": 2}, timeout=300)
    run_script(NO_VERSION, "load-from-checkpoint-plain-state-dict", common() + PLAIN_CKPT_LOAD, timeout=240)
    run_script(NO_VERSION, "trainer-fit-ckpt-path-plain-weights", common() + PLAIN_CKPT_RESUME, timeout=240)
    run_script(SYNC_DIST, "torchrun-ddp-val-loss-no-sync-dist", common() + SYNC_DIST_DDP,
               torchrun={"nproc_per_node": 2}, timeout=300)
    run_script(SYNC_DIST, "pytorch-lightning-ddp-val-loss", common("pytorch_lightning") + SYNC_DIST_DDP,
               torchrun={"nproc_per_node": 2}, timeout=300)
    run_script(SYNC_DIST, "torchrun-ddp-trainer-test-no-sync-dist", common() + SYNC_DIST_TEST,
               torchrun={"nproc_per_node": 2}, timeout=300)
    run_script(NO_VERSION, "pytorch-lightning-test-exported-weights", common("pytorch_lightning") + PLAIN_CKPT_TEST,
               timeout=240)
