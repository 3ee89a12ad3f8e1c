"""The DataLoader's re-raise of a worker's exception, recognised by its frames when the paste is cut before
the message or ends in an exception that says nothing of the worker (app/matching/reraise.py).  The real
log was produced by torch 2.13 (CPU) with a dataset whose __getitem__ opens a missing file."""
from __future__ import annotations

from pathlib import Path

import pytest

from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.render.match import match_text

KB = Path(__file__).resolve().parent.parent / "kb"
REAL = (Path(__file__).resolve().parent / "data" / "recall" / "dataloader-reraise-full.real.log").read_text()
ENTRY = "pytorch/dataloader-worker-exception"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB, lenient=True).entries)


def test_the_whole_real_log_is_matched_by_the_signature(index):
    m = match_text(index, REAL)["matches"]
    assert ENTRY in [x["id"] for x in m]
    assert all(x["why"][0]["params"]["sig"] != "dataloader-reraise" for x in m)


def test_the_real_log_cut_after_the_reraise_frames(index):
    cut = REAL.split("FileNotFoundError: Caught")[0]
    assert "raise exception" in cut.splitlines()[-1]
    m = match_text(index, cut)["matches"][0]
    assert m["id"] == ENTRY and m["why"][0]["params"]["sig"] == "dataloader-reraise"


# torch 1.2-1.8: the re-raise itself fails for an exception type with required arguments
# (the form of pytorch/pytorch#25522 and #51663)
FAILED_RERAISE = """\
Traceback (most recent call last):
  File "train.py", line 148, in traineval
    for batch_idx, (inputs, targets) in enumerate(train_data_loader):
  File "/opt/conda/lib/python3.7/site-packages/torch/utils/data/dataloader.py", line 819, in __next__
    return self._process_data(data)
  File "/opt/conda/lib/python3.7/site-packages/torch/utils/data/dataloader.py", line 846, in _process_data
    data.reraise()
  File "/opt/conda/lib/python3.7/site-packages/torch/_utils.py", line 369, in reraise
    raise self.exc_type(msg)
TypeError: __init__() missing 1 required positional argument: 'cmd'
"""
# torch < 1.2 (Python 2.7 era): the worker's traceback is the message
OLD_WRAPPER = """\
Traceback (most recent call last):
  File "main.py", line 179, in train
    for i, (data, target, coord) in enumerate(data_loader):
  File "/home/user/anaconda3/lib/python2.7/site-packages/torch/utils/data/dataloader.py", line 239, in _process_next_batch
    raise batch.exc_type(batch.exc_msg)
TypeError: Traceback (most recent call last):
"""


@pytest.mark.parametrize("text", [FAILED_RERAISE, OLD_WRAPPER])
def test_older_reraise_forms(index, text):
    res = match_text(index, text)
    assert res["matches"][0]["id"] == ENTRY


def test_a_user_reraise_of_their_own_is_not_the_dataloader(index):
    own = """\
Traceback (most recent call last):
  File "/workspace/train.py", line 40, in <module>
    run()
  File "/workspace/utils/errors.py", line 12, in reraise
    raise self.exc_type(msg)
ValueError: bad config value for lr
"""
    assert match_text(index, own)["matches"] == []
