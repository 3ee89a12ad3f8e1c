"""A kill or an OOM named in words (a report's title, a sentence) and the shell's kill report as a terminal
leaves it (app/matching/prose.py).  The forms are those of public reports each test names; the blind set's
threads are not used here."""
from __future__ import annotations

from pathlib import Path

import pytest

from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.matching.logparse import parse_log
from faultline.matching.prose import short_report, what_it_names
from faultline.render.match import match_text

KB = Path(__file__).resolve().parent.parent / "kb"
HOST_OOM = "pytorch/worker-sigkill-host-oom"
CUDA_OOM = "pytorch/cuda-out-of-memory"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB, lenient=True).entries)


def top(res) -> str | None:
    return res["matches"][0]["id"] if res["matches"] else None


@pytest.mark.parametrize("text,expected", [
    # titles and sentences that name the kernel's kill
    ("Problems in the training process\nIn the training process, the process is always killed. How to solve this problem?",
     HOST_OOM),
    ('"Killed" error in the training process', HOST_OOM),
    ("killed process during training", HOST_OOM),
    ("The training process was directly killed by the system", HOST_OOM),
    ("启动训练后被kill信号杀死了进程？", HOST_OOM),
    ("长文本训练memory oom killer\n当训练上下文较长的多图数据时，训练几个episode后，随机出现 OOM killer 失败退出", HOST_OOM),
    ("Fine-tuning gets Killed at step 120", HOST_OOM),
    # an OOM in words: the GPU's unless host memory is named
    ("OOM when calling loss.backward() on a V100", CUDA_OOM),
    ("训练时出现OOM，显存不够", CUDA_OOM),
    ("CUDA OOM after the first epoch", CUDA_OOM),
    ("OOM during training, 64 GB of RAM fills up", HOST_OOM),
])
def test_a_short_report_that_names_a_kill_or_an_oom(index, text, expected):
    res = match_text(index, text)
    m = res["matches"][0]
    assert m["id"] == expected
    assert m["confidence"] <= 0.55 and m["why"][0]["params"]["sig"] == "short-paste"  # says it is a short paste


@pytest.mark.parametrize("text", [
    "Zombie processes are not killed after training",  # a kill that did not happen
    "How do I stop the training? Ctrl+C leaves the workers running, I killed them manually",
    "Training job killed by SIGTERM when the time limit was reached",  # the scheduler's kill, not memory
    "worker restarted after it was Killed by the user",
    "BufferAssignment OOM Debugging.",  # a heading, not a report
    "Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom",
    "TensorFlow OOM during training: ResourceExhaustedError on the GPU",  # another framework's allocator
    "# note: raise --mem if a step ever shows OOM Killed tasks",  # a comment
])
def test_words_that_are_no_report_of_a_memory_kill_or_a_pytorch_oom(index, text):
    assert match_text(index, text)["matches"] == [], text


def test_another_frameworks_oom_exception_line_is_no_prose_report(index):
    """CuPy's own exception line is read by its own entry's signature, never by the prose reader as a
    PyTorch OOM or a host kill."""
    res = match_text(index, "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 25,769,803,776 bytes")
    assert [m["id"] for m in res["matches"]] in ([], ["cupy/out-of-memory"])
    assert all(w["params"].get("sig") != "short-paste" for m in res["matches"] for w in m["why"])


def test_a_long_log_is_no_short_report():
    lines = "\n".join(f"step {i} loss 1.{i:03d}" for i in range(20)) + "\nthe training process was killed\n"
    assert short_report(parse_log(lines)) == []
    assert what_it_names(parse_log("OOM during training").lines)[0] == "gpu-oom"


def test_something_recognised_leaves_the_words_alone(index):
    """A report whose log line a signature knows is answered by that signature, not by its title's words."""
    text = ("Training killed with OOM\nRuntimeError: CUDA error: an illegal memory access was encountered\n")
    m = match_text(index, text)["matches"][0]
    assert m["id"] == "pytorch/cuda-illegal-memory-access" and m["why"][0]["params"]["sig"] != "short-paste"


# the shell's kill report as a terminal leaves it, at the end of a real-shaped log
CHINESE_SHELL_KILL = """\
episode/score 0.1 / episode/length 34 / train/loss/con 0.04 / train/loss/dyn 5.41 / train/loss/image 61.08
Writing metrics: /home/user/logdir/dreamer/20251205T175323/metrics.jsonl
Writing metrics: /home/user/logdir/dreamer/20251205T175323/scores.jsonl
已杀死
"""


def test_the_chinese_locale_shell_kill_at_the_end_of_a_log(index):
    res = match_text(index, CHINESE_SHELL_KILL)
    assert top(res) == HOST_OOM and res["matches"][0]["why"][0]["params"]["sig"] == "bare-kill"
    assert top(match_text(index, "./train.sh: line 12: 48213 已杀死               python train.py --cfg a.yaml\n")) == HOST_OOM


def test_killed_printed_over_a_redrawn_progress_line(index):
    """No newline after a progress line redrawn with a carriage return: the shell's word overwrites its start."""
    text = "loading shards: 3/8\nencoding: 1012 Killedsing: 14 batch / 80 batches\n"
    assert top(match_text(index, text)) == HOST_OOM
    assert match_text(index, "epoch 3 step 40 loss 0.21\nKilledProcess count: 3\n")["matches"] == []  # a name, not residue
