"""The forms people paste: mp.spawn children, job-runner prefixes, rich and loguru tracebacks, Windows and
PowerShell, UTF-16, cut and oversized pastes, bare kills, and errors no entry knows.

The logs below are written for these tests from the formats the tools print (not from any held-out set)."""
from __future__ import annotations

import pytest

from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.matching.logparse import parse_log
from faultline.render.match import match_text
from tests.conftest import KB

OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
       "23.65 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.52 GiB memory in use. "
       "Of the allocated memory 21.90 GiB is allocated by PyTorch, and 201.33 MiB is reserved by PyTorch but unallocated.")


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB).entries)


def top(res) -> str | None:
    return res["matches"][0]["id"] if res["matches"] else None


# -- torch.multiprocessing.spawn: process indices are ranks ---------------------------------------


SPAWN_RAISED = f"""\
Epoch 0: 100%|██████████| 50/50 [00:12<00:00,  4.01it/s]
Traceback (most recent call last):
  File "/home/ana/proj/train_ddp.py", line 88, in <module>
    mp.spawn(run, args=(world_size,), nprocs=world_size, join=True)
  File "/opt/conda/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 328, in spawn
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
  File "/opt/conda/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 284, in start_processes
    while not context.join():
  File "/opt/conda/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 203, in join
    raise ProcessRaisedException(msg, error_index, failed_process.pid)
torch.multiprocessing.spawn.ProcessRaisedException: 

-- Process 2 terminated with the following error:
Traceback (most recent call last):
  File "/opt/conda/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 90, in _wrap
    fn(i, *args)
  File "/home/ana/proj/train_ddp.py", line 61, in run
    out = model(x)
  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
{OOM}
"""


def test_spawn_child_traceback_names_its_process_as_the_rank(index):
    res = match_text(index, SPAWN_RAISED)
    assert top(res) == "pytorch/cuda-out-of-memory"
    assert res["root_cause"]["rank"] == 2 and "OutOfMemoryError" in res["root_cause"]["line"]
    assert 2 in res["log"]["ranks"]


def test_spawn_process_killed_by_signal(index):
    log = """\
Traceback (most recent call last):
  File "/home/ana/proj/train_ddp.py", line 88, in <module>
    mp.spawn(run, args=(4,), nprocs=4, join=True)
  File "/usr/lib/python3/dist-packages/torch/multiprocessing/spawn.py", line 196, in join
    raise ProcessExitedException(
torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGKILL
"""
    p = parse_log(log)
    assert [(f.rank, f.signal, f.first) for f in p.failed_ranks] == [(3, "SIGKILL", True)]
    res = match_text(index, log)
    assert top(res) == "pytorch/worker-sigkill-host-oom"
    assert res["root_cause"]["rank"] == 3


# -- job runners and loggers in front of the lines -----------------------------------------------


@pytest.mark.parametrize("prefix", [
    "[stderr] ",
    "(RayTrainWorker pid=48211, ip=10.0.3.7) ",
    "[pod/trainer-worker-1/pytorch] ",
    "2024/05/01 12:00:03 ",
    "2024-05-01 12:00:03,114 - __main__ - ERROR - ",
])
def test_runner_prefixes_leave_the_traceback_readable(index, prefix):
    body = [
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 40, in <module>',
        "    trainer.fit(model)",
        OOM,
    ]
    log = "".join(prefix + line + "\n" for line in body)
    p = parse_log(log)
    assert [e.type for e in p.exceptions] == ["torch.OutOfMemoryError"], prefix
    assert p.exceptions[0].frames[0].file == "/workspace/train.py"
    assert top(match_text(index, log)) == "pytorch/cuda-out-of-memory"


def test_python_logging_and_loguru_levels_are_prefixes():
    p = parse_log("ERROR:root:RuntimeError: Default process group has not been initialized, please make sure to "
                  "call init_process_group.\n"
                  "2024-05-01 12:00:03.114 | ERROR    | trainer.loop:step:212 - ValueError: bad shape\n")
    assert p.lines[0].text.startswith("RuntimeError: Default process group")
    assert p.lines[1].text == "ValueError: bad shape"


# -- rich, loguru / better_exceptions ---------------------------------------------------------------


RICH = """\
╭───────────────────── Traceback (most recent call last) ──────────────────────╮
│ /home/ana/proj/train.py:42 in main                                           │
│                                                                              │
│   39 │   model = build_model(cfg)                                            │
│   40 │   trainer = Trainer(accelerator="gpu", devices=2)                     │
│ ❱ 42 │   trainer.fit(model, datamodule=dm)                                   │
│                                                                              │
│ /home/ana/proj/.venv/lib/python3.11/site-packages/lightning/pytorch/trainer/ │
│ trainer.py:538 in fit                                                        │
╰──────────────────────────────────────────────────────────────────────────────╯
{exc}
"""


def test_rich_box_with_the_exception_line_after_it(index):
    res = match_text(index, RICH.format(exc=OOM))
    assert top(res) == "pytorch/cuda-out-of-memory"
    p = parse_log(RICH.format(exc=OOM))
    assert p.exceptions[0].type == "torch.OutOfMemoryError"
    assert p.exceptions[0].frames[0].file == "/home/ana/proj/train.py"


def test_rich_box_where_only_the_raise_line_names_the_error():
    log = """\
╭───────────────────── Traceback (most recent call last) ──────────────────────╮
│ /home/ana/proj/data.py:17 in load_split                                      │
│                                                                              │
│   15 │   if split not in SPLITS:                                             │
│   16 │   │   known = ", ".join(SPLITS)                                       │
│ ❱ 17 │   │   raise KeyError(f"unknown split {split}")                        │
╰──────────────────────────────────────────────────────────────────────────────╯
"""
    p = parse_log(log)
    assert [e.type for e in p.exceptions] == ["KeyError"]
    assert p.exceptions[0].message == "unknown split {split}"


def test_loguru_marks_the_failing_frame_with_an_arrow(index):
    log = f"""\
2024-05-01 12:00:03.114 | ERROR    | __main__:main:30 - An error has been caught in function 'main'
Traceback (most recent call last):

> File "/home/ana/proj/train.py", line 30, in <module>
    main()
    └ <function main at 0x7f3c2a1b9d30>

  File "/home/ana/proj/train.py", line 22, in main
    loss = model(batch).loss
           │     └ {{'input_ids': tensor([[ 101, 2023]])}}
           └ GPT2LMHeadModel(...)

{OOM}
"""
    p = parse_log(log)
    assert len(p.exceptions) == 1 and len(p.exceptions[0].frames) == 2
    assert top(match_text(index, log)) == "pytorch/cuda-out-of-memory"


# -- Windows, PowerShell, UTF-16 -----------------------------------------------------------------


POWERSHELL = f"""\
python : Traceback (most recent call last):
At line:1 char:1
+ python train.py --epochs 3
+ ~~~~~~~~~~~~~~~~~~~~~~~~~~
    + CategoryInfo          : NotSpecified: (Traceback (most recent call last)::String) [], RemoteException
    + FullyQualifiedErrorId : NativeCommandError
 
  File "C:\\Users\\ana\\proj\\train.py", line 40, in <module>
    loss = model(x)
  File "C:\\Users\\ana\\proj\\.venv\\Lib\\site-packages\\torch\\nn\\modules\\module.py", line 1751, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
{OOM}
"""


def test_powershell_error_record_and_windows_paths(index):
    p = parse_log(POWERSHELL)
    assert [e.type for e in p.exceptions] == ["torch.OutOfMemoryError"]
    frames = p.exceptions[0].frames
    assert frames[0].file.startswith("C:\\Users") and not frames[0].library and frames[1].library
    assert top(match_text(index, POWERSHELL)) == "pytorch/cuda-out-of-memory"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_pastes_with_and_without_bom(client, encoding):
    body = POWERSHELL.replace("\n", "\r\n").encode(encoding)  # "utf-16" writes a BOM, the others do not
    r = client.post("/match", content=body, headers={"Content-Type": "text/plain"})
    assert r.status_code == 200
    res = r.json()
    assert top(res) == "pytorch/cuda-out-of-memory", res["log"]
    origin = res["root_cause"]["origin"]
    assert origin["package"] == "torch" and origin["file"].endswith("\\torch\\nn\\modules\\module.py")
    assert origin["user_file"] == "C:\\Users\\ana\\proj\\train.py" and origin["user_line"] == 40


def test_utf16_read_as_8_bit_text_is_repaired(index):
    garbled = POWERSHELL.encode("utf-16-le").decode("latin-1")  # what a tool that ignored the encoding sends
    res = match_text(index, garbled)
    assert top(res) == "pytorch/cuda-out-of-memory" and res["log"]["encoding"] == "utf-16-le"


# -- cut and oversized pastes ---------------------------------------------------------------------


def test_paste_that_starts_mid_traceback(index):
    log = f"""\
ining/train.py", line 40, in <module>
    trainer.fit(model)
  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
{OOM}
"""
    p = parse_log(log)
    assert [e.type for e in p.exceptions] == ["torch.OutOfMemoryError"] and len(p.exceptions[0].frames) == 1
    assert top(match_text(index, log)) == "pytorch/cuda-out-of-memory"


def test_an_error_after_character_4000_of_a_line_is_found(client):
    text = "x" * 5000 + " " + OOM
    res = client.post("/match", content=text, headers={"Content-Type": "text/plain"}).json()
    assert top(res) == "pytorch/cuda-out-of-memory"
    assert res["log"]["dropped"]["long_lines_split"] == 1 and not res["log"]["truncated"]


def test_a_paste_over_the_line_limit_keeps_its_head_and_says_what_was_dropped(index):
    lines = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 40, in <module>',
             "    trainer.fit(model)", OOM]
    lines += [f"step {i} heartbeat ok" for i in range(30000)]
    res = match_text(index, "\n".join(lines))
    assert top(res) == "pytorch/cuda-out-of-memory" and res["root_cause"]["line_no"] == 4
    assert res["log"]["truncated"] and res["log"]["dropped"]["lines"] == 30004 - 20000


# -- judgement -------------------------------------------------------------------------------------


def test_a_bare_killed_is_a_host_oom_kill_at_lower_confidence(index):
    log = ("Epoch 1/3:  45%|████▌     | 4500/10000 [12:01<14:41,  6.24it/s, loss=2.31]\n"
           "Epoch 1/3:  45%|████▌     | 4512/10000 [12:03<14:40,  6.24it/s, loss=2.30]\n"
           "Killed\n")
    res = match_text(index, log)
    assert top(res) == "pytorch/worker-sigkill-host-oom"
    assert "host_oom_kill" in [w["code"] for w in res["matches"][0]["why"]]
    direct = match_text(index, "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL")
    assert res["matches"][0]["confidence"] < direct["matches"][0]["confidence"]
    # a word "Killed" inside a sentence is not a kill report
    assert match_text(index, "Killed the old checkpoints; keeping 3\ntraining resumed\n")["matches"] == []


def test_unknown_error_in_user_code_under_known_symptoms(index):
    log = """\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/ana/proj/train.py", line 77, in <module>
[rank1]:     batch = collate(samples)
[rank1]:   File "/home/ana/proj/data/collate.py", line 31, in collate
[rank1]:     lengths = [len(s["input_ids"]) for s in samples]
[rank1]: KeyError: 'input_ids'
[rank0]:[E1202 11:48:39.928000000 ProcessGroupGloo.cpp:143] Rank 0 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 1.
[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete
"""
    res = match_text(index, log, lang="en")
    rc = res["root_cause"]
    assert rc["rank"] == 1 and rc["entry"] is None and rc["exception"] == "KeyError"
    assert rc["origin"] == {"file": "/home/ana/proj/data/collate.py", "line": 31, "function": "collate",
                            "package": None, "version": None, "in_user_code": True,
                            "user_file": "/home/ana/proj/data/collate.py", "user_line": 31}
    assert "your code" in rc["text"] and "collate.py" in rc["text"]
    zh = match_text(index, log, lang="zh")["root_cause"]["text"]
    assert "你的代码" in zh
    # the timeouts on rank 0 are a consequence of that unknown error: not an answer, but still shown
    assert "pytorch/gloo-collective-timeout" not in [m["id"] for m in res["matches"]]
    rel = {r["id"]: r for r in res["related"]}
    assert rel["pytorch/gloo-collective-timeout"]["reason"]["code"] == "consequence_of_unknown_root"
    zh_rel = {r["id"]: r for r in match_text(index, log, lang="zh")["related"]}
    assert "后果" in zh_rel["pytorch/gloo-collective-timeout"]["why"]


def test_unknown_error_inside_a_package_names_it_and_its_version(index):
    log = """\
Traceback (most recent call last):
  File "/home/ana/proj/train.py", line 12, in <module>
    ds = load_dataset("json", data_files=files)
  File "/opt/conda/lib/python3.11/site-packages/datasets/load.py", line 2132, in load_dataset
    builder_instance = load_dataset_builder(
  File "/opt/conda/lib/python3.11/site-packages/datasets/builder.py", line 371, in __init__
    self.config, self.config_id = self._create_builder_config(
ValueError: The config name is missing.
"""
    res = match_text(index, log, environment="datasets==2.19.1\ntorch==2.3.1\n")
    assert res["matches"] == []
    o = res["root_cause"]["origin"]
    assert o["package"] == "datasets" and o["version"] == "2.19.1" and not o["in_user_code"]
    assert o["file"].endswith("datasets/builder.py") and o["function"] == "__init__"
    assert (o["user_file"], o["user_line"]) == ("/home/ana/proj/train.py", 12)
    assert "datasets 2.19.1" in res["root_cause"]["text"]


# -- a pod name before the rank tag; Ray workers; a launcher's report is not the first failure ----------


def test_pod_name_before_the_rank_tag_gives_the_rank(index):
    log = ("2026-11-30T10:00:01.100Z trainer-job-3b7c-0 [rank0]: step 10 loss 2.31\n"
           f"2026-11-30T10:00:02.250Z trainer-job-3b7c-0 [rank2]: {OOM}\n"
           "2026-11-30T10:00:02.300Z trainer-job-3b7c-0 [rank0]: step 11 loss 2.30\n")
    res = match_text(index, log)
    assert top(res) == "pytorch/cuda-out-of-memory"
    assert res["root_cause"]["rank"] == 2


def test_ray_worker_lines_take_the_world_rank_ray_gave_their_pid(index):
    log = ("(TorchTrainer pid=5100, ip=10.1.2.3) Started distributed worker processes:\n"
           "(TorchTrainer pid=5100, ip=10.1.2.3) - (node_id=ab12cd, ip=10.1.2.3, pid=5210) world_rank=0, local_rank=0, node_rank=0\n"
           "(TorchTrainer pid=5100, ip=10.1.2.3) - (node_id=ab12cd, ip=10.1.2.3, pid=5211) world_rank=1, local_rank=1, node_rank=0\n"
           "(RayTrainWorker pid=5210, ip=10.1.2.3) epoch 0 step 40 loss 1.92\n"
           "(RayTrainWorker pid=5211, ip=10.1.2.3) Traceback (most recent call last):\n"
           '(RayTrainWorker pid=5211, ip=10.1.2.3)   File "/srv/job/train.py", line 51, in train_loop\n'
           "(RayTrainWorker pid=5211, ip=10.1.2.3)     out = model(**batch)\n"
           f"(RayTrainWorker pid=5211, ip=10.1.2.3) {OOM}\n")
    res = match_text(index, log)
    assert top(res) == "pytorch/cuda-out-of-memory"
    assert res["root_cause"]["rank"] == 1


def test_the_spawn_wrapper_is_never_the_first_failure_when_the_child_shows_its_own(index):
    log = """\
Traceback (most recent call last):
  File "/srv/job/run.py", line 40, in <module>
    mp.spawn(worker, args=(2,), nprocs=2, join=True)
  File "/usr/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 211, in join
    raise ProcessRaisedException(msg, error_index, failed_process.pid)
torch.multiprocessing.spawn.ProcessRaisedException:

-- Process 1 terminated with the following error:
Traceback (most recent call last):
  File "/usr/lib/python3.11/site-packages/torch/multiprocessing/spawn.py", line 87, in _wrap
    fn(i, *args)
  File "/srv/job/run.py", line 22, in worker
    dist.all_reduce(t)
RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete
"""
    res = match_text(index, log)
    assert top(res) == "pytorch/gloo-collective-timeout"
    assert res["root_cause"]["entry"] == "pytorch/gloo-collective-timeout" and res["root_cause"]["rank"] == 1
    # the spawn wrapper's report is listed under the child's own error, not as an answer
    assert [m["id"] for m in res["matches"]] == ["pytorch/gloo-collective-timeout"]
    assert {c["id"]: c["reason"]["code"] for c in res["matches"][0]["consequences"]} == {
        "pytorch/mp-spawn-process-raised": "wrapper_of_cause"}


def test_a_message_wrapped_onto_the_next_line_still_matches(index):
    log = """\
Traceback (most recent call last):
  File "/srv/job/finetune.py", line 30, in <module>
    model.load_state_dict(torch.load("ckpt.pt"))
RuntimeError: Error(s) in loading state_dict for Classifier:
        size mismatch for head.weight: copying a param with shape
torch.Size([12, 768]) from checkpoint, the shape in current model is torch.Size([10, 768]).
"""
    assert top(match_text(index, log)) == "pytorch/state-dict-size-mismatch"


def test_a_cut_raise_line_names_the_error_by_its_message(index):
    log = """\
Traceback (most recent call last):
  File "/srv/job/data.py", line 77, in build
    DataLoader(ds, batch_size=8, shuffle=True, sampler=sampler)
  File "/usr/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 375, in __init__
    raise ValueError("sampler option is mutually excl"""
    assert top(match_text(index, log)) == "pytorch/sampler-shuffle-mutually-exclusive"


def test_a_warning_after_a_rank_tag_never_outranks_the_error(index):
    log = ("[rank0]:[W1130 10:41:03.812519440 ProcessGroupNCCL.cpp:4718] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to "
           "perform barrier as devices used by this process are currently unknown. This can potentially cause a hang "
           "if this rank to GPU mapping is incorrect.\n"
           f"[rank0]: {OOM}\n")
    res = match_text(index, log)
    assert top(res) == "pytorch/cuda-out-of-memory"
    assert res["root_cause"]["entry"] == "pytorch/cuda-out-of-memory"
