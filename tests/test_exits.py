"""Reports that only say a child failed (app/matching/exits.py): the wrapper's wording, the exit code
as a signal, and the signal leading to the entry the KB says explains it.

The child-process logs here are produced for real on this machine: a Python parent that runs a child
with check=True, the child ended by SIGKILL or SIGBUS (sent by itself or through a shell)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from faultline.kbfiles import load_kb
from faultline.matching.exits import ChildExit, explaining_entries, read_exit, signal_of
from faultline.matching.index import MatchIndex
from faultline.render.match import match_text
from tests.conftest import KB

HOST_OOM = "pytorch/worker-sigkill-host-oom"
WRAPPER = "ml/launcher-subprocess-failed"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB).entries)


def top(res: dict) -> str | None:
    return res["matches"][0]["id"] if res["matches"] else None


def consequences(res: dict, i: int = 0) -> dict[str, str]:
    """The entries the i-th match explains, with why (a launcher's report of the failure: wrapper_of_cause)."""
    return {c["id"]: c["reason"]["code"] for c in res["matches"][i]["consequences"]} if res["matches"] else {}


def codes(res: dict, i: int = 0) -> list[str]:
    return [w["code"] for w in res["matches"][i]["why"]]


def real_parent_log(child: str, shell: bool = False) -> str:
    """What a Python driver prints when its child (a python -c program) dies: run for real."""
    parent = (
        "import subprocess, sys\n"
        f"cmd = {['/bin/sh', '-c', f'{sys.executable} -c {child!r}'] if shell else [sys.executable, '-c', child]!r}\n"
        "print('launching training', flush=True)\n"
        "subprocess.run(cmd, check=True)\n"
    )
    p = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0
    return p.stdout + p.stderr


SELF_KILL = "import os, signal; print('step 1 loss 2.3', flush=True); os.kill(os.getpid(), signal.{})"


# -- the code as a signal ---------------------------------------------------------------------------


@pytest.mark.parametrize("code,sig,status", [
    (-9, "SIGKILL", None), (137, "SIGKILL", None), (-7, "SIGBUS", None), (135, "SIGBUS", None),
    (-11, "SIGSEGV", None), (139, "SIGSEGV", None), (-6, "SIGABRT", None), (134, "SIGABRT", None),
    (143, "SIGTERM", None), (-15, "SIGTERM", None),
    (3221225477, "SIGSEGV", "STATUS_ACCESS_VIOLATION"), (-1073741819, "SIGSEGV", "STATUS_ACCESS_VIOLATION"),
    (3221226505, "SIGABRT", "STATUS_STACK_BUFFER_OVERRUN"),
    (1, None, None), (2, None, None), (127, None, None), (128, None, None), (255, None, None), (0, None, None),
])
def test_exit_codes_map_to_signals(code, sig, status):
    assert signal_of(code) == (sig, status)


@pytest.mark.parametrize("line,expected", [
    ("subprocess.CalledProcessError: Command '['/usr/bin/python3', 'train.py']' returned non-zero exit status -9.",
     ChildExit("subprocess", -9, "SIGKILL")),
    ("subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGBUS: 7>.",
     ChildExit("subprocess", -7, "SIGBUS")),
    ("[ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=1'] exits with return code = -7",
     ChildExit("deepspeed", -7, "SIGBUS")),
    ("[2024-06-01 10:00:01,123] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 0 (pid: 4242) of binary: /usr/bin/python",
     ChildExit("torchrun", -9, "SIGKILL")),
    ("  exitcode  : -7 (pid: 4243)", ChildExit("torchrun", -7, "SIGBUS")),
    ('{"level": "ERROR", "message": "Rank 1 crashed with exit code -9."}', ChildExit("composer", -9, "SIGKILL")),
    ("ExitCode 137", ChildExit("sagemaker", 137, "SIGKILL")),
    ("UnexpectedStatusException: Error for Training job job-1: Failed. Reason: AlgorithmError: Exit Code: 139",
     ChildExit("sagemaker", 139, "SIGSEGV")),
    ("srun: error: gpu-node-02: tasks 0-3: Killed", ChildExit("slurm", None, "SIGKILL")),
    ("Process finished with exit code -1073741819 (0xC0000005)",
     ChildExit("ide", -1073741819, "SIGSEGV", "STATUS_ACCESS_VIOLATION")),
    ("trainer-1 exited with code 135", ChildExit("process", 135, "SIGBUS")),
    ("subprocess.CalledProcessError: Command '['C:\\\\venv\\\\Scripts\\\\python.exe', 'train_network.py']' returned non-zero exit status 3221225477.",
     ChildExit("subprocess", 3221225477, "SIGSEGV", "STATUS_ACCESS_VIOLATION")),
    ("subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero exit status 1.",
     ChildExit("subprocess", 1, None)),
])
def test_the_wrappers_wordings_are_read(line, expected):
    assert read_exit(line) == expected


def test_a_shells_bare_signal_report_counts_only_at_the_end():
    assert read_exit("Bus error (core dumped)", tail=True) == ChildExit("shell", None, "SIGBUS")
    assert read_exit("./run.sh: line 30: 294291 Bus error               (core dumped) python train.py",
                     tail=True).signal == "SIGBUS"
    assert read_exit("Bus error (core dumped)") is None  # not at the end of the log
    assert read_exit("the exit code was logged to exit_codes.txt") is None
    assert read_exit("Bus error handling is described in docs/bus.md", tail=True) is None  # prose


# -- real children ----------------------------------------------------------------------------------


def test_a_real_child_killed_by_sigkill_through_a_shell_is_the_host_oom_kill(index):
    log = real_parent_log(SELF_KILL.format("SIGKILL"), shell=True)
    assert "returned non-zero exit status 137" in log
    # the wrapper's line is followed by the driver's own clean-up output, so it is not the log's tail
    log += "".join(f"cleanup: removed shard {i}\n" for i in range(8))
    res = match_text(index, log)
    assert top(res) == HOST_OOM
    why = next(w for w in res["matches"][0]["why"] if w["code"] == "exit_code_signal")
    assert why["params"] == {"wrapper": "subprocess", "exit": "137=SIGKILL"}
    # the wrapper's report is not a second answer: it is listed under the cause it reports
    assert consequences(res).get(WRAPPER) == "wrapper_of_cause"
    assert WRAPPER not in [m["id"] for m in res["matches"]]
    # the evidence is one number: lower than torchrun's own SIGKILL line
    direct = match_text(index, "  traceback : Signal 9 (SIGKILL) received by PID 4242")
    assert res["matches"][0]["confidence"] < direct["matches"][0]["confidence"]


def test_a_real_child_that_killed_itself_with_sigkill(index):
    log = real_parent_log(SELF_KILL.format("SIGKILL"))
    assert "died with <Signals.SIGKILL: 9>" in log
    assert top(match_text(index, log)) == HOST_OOM


def test_a_real_sigbus_child_leads_where_the_kb_says(index):
    log = real_parent_log(SELF_KILL.format("SIGBUS"), shell=True)
    assert "returned non-zero exit status 135" in log
    res = match_text(index, log)
    explain = explaining_entries(index, "SIGBUS")
    if explain:  # the KB has entries for torchrun's SIGBUS line: the first of them comes first
        assert top(res) == explain[0] and "exit_code_signal" in codes(res)
        assert consequences(res).get(WRAPPER) == "wrapper_of_cause"  # the wrapper, under the cause
    else:  # no entry explains SIGBUS: the wrapper stays, saying that a signal ended the child
        assert top(res) == WRAPPER and "exit_code_signal_wrapper" in codes(res)


def test_a_real_child_with_an_ordinary_failure_stays_the_wrapper(index):
    log = real_parent_log("import sys; print('epoch 0', flush=True); sys.exit(3)", shell=True)
    assert "returned non-zero exit status 3" in log
    res = match_text(index, log)
    assert top(res) == WRAPPER
    assert not any(c.startswith("exit_code_signal") for c in codes(res))


# -- wrappers without a child traceback, real-shaped ---------------------------------------------------


def test_deepspeed_launcher_minus_9(index):
    log = """\
[2024-03-07 23:55:16,883] [INFO] [stage_1_and_2.py:149:__init__] Reduce bucket size 500000000
[2024-03-07 23:58:02,511] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 21733
[2024-03-07 23:58:02,511] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 21734
[2024-03-07 23:58:02,918] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train_sft.py', '--local_rank=1', '--deepspeed', 'ds_z2.json'] exits with return code = -9
"""
    res = match_text(index, log)
    assert top(res) == HOST_OOM and consequences(res).get(WRAPPER) == "wrapper_of_cause"


def test_composer_rank_crashed_with_a_kill(index):
    log = """\
{"level": "INFO", "message": "Launching process for local_rank(1), global_rank(1) with command(['/usr/bin/python', '-u', 'train.py', 'yamls/mpt-125m.yaml'])"}
{"level": "ERROR", "message": "Rank 1 crashed with exit code -9."}
Waiting up to 30 seconds for all training processes to terminate. Press Ctrl-C to exit immediately.
{"level": "ERROR", "message": "Global rank 1 (PID 5120) exited with code -9"}
"""
    res = match_text(index, log)
    assert top(res) == HOST_OOM and {"exit_code_signal", "host_oom_kill"} & set(codes(res))
    assert top(match_text(index, log.splitlines()[1] + "\n" + "x\n" * 8)) == HOST_OOM  # not at the end either


def test_composer_rank_crashed_with_an_exception_is_the_wrapper(index):
    res = match_text(index, '{"level": "ERROR", "message": "Rank 0 crashed with exit code 1."}\n')
    assert top(res) == WRAPPER


def test_sagemaker_forms(index):
    oom = """\
2024-02-01 10:12:44 Training - Training image download completed. Training in progress.
2024-02-01 11:40:02,114 sagemaker-training-toolkit ERROR    Reporting training FAILURE
2024-02-01 11:40:02,114 sagemaker-training-toolkit ERROR    ExecuteUserScriptError:
ExitCode 137
ErrorMessage ""
Command "/opt/conda/bin/python3.10 train.py --epochs 3 --model_name bert-base-uncased"
2024-02-01 11:40:12 Failed - Training job failed
"""
    assert top(match_text(index, oom)) == HOST_OOM
    plain = """\
sagemaker.exceptions.UnexpectedStatusException: Error for Training job hf-train-2024-02-01-10-05-11-203: Failed. Reason: AlgorithmError: ExecuteUserScriptError:
ExitCode 1
ErrorMessage "KeyError: 'label'"
"""
    assert top(match_text(index, plain)) == WRAPPER
    assert top(match_text(index, "ClientError: Failed. Reason: AlgorithmError: Exit Code: 1\n")) == WRAPPER


def test_kubernetes_and_kubeflow(index):
    # a container's status alone names no training process (a sidecar's OOMKilled reads the same)
    pod = """\
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
"""
    assert read_exit("      Exit Code:    137") is None and HOST_OOM not in [m["id"] for m in match_text(index, pod)["matches"]]
    job = 'Warning  PyTorchJobFailed  2m  pytorchjob-controller  PyTorchJob default/llama-sft has failed because 1 Worker replica(s) failed.\n'
    assert top(match_text(index, job)) == WRAPPER


def test_a_cut_command_list_is_still_the_wrapper(index):
    title = ("subprocess.CalledProcessError: Command '['C:\\\\envs\\\\mm\\\\python.exe', "
             "'c:\\\\mmdetection\\\\mmdet\\\\.mim\\\\tools\\\\train.py', './configs/detr_custom.py', '--lau")
    assert top(match_text(index, title)) == WRAPPER


def test_windows_access_violation_stays_the_wrapper_and_says_so(index):
    log = ("subprocess.CalledProcessError: Command '['C:\\\\kohya\\\\venv\\\\Scripts\\\\python.exe', "
           "'./sd-scripts/train_network.py', '--config_file', 'cfg.toml']' returned non-zero exit status 3221225477.\n")
    res = match_text(index, log)
    explain = explaining_entries(index, "SIGSEGV", 3221225477)  # the KB's entry for the status, else for SIGSEGV
    assert top(res) == (explain[0] if explain else WRAPPER)
    said = {"wrapper": "subprocess", "exit": "3221225477=STATUS_ACCESS_VIOLATION"}
    if explain:  # the entry that explains the status says which wrapper reported it; the wrapper is under it
        assert {"code": "exit_code_signal", "params": said} in [{"code": w["code"], "params": w["params"]} for w in res["matches"][0]["why"]]
        assert consequences(res).get(WRAPPER) == "wrapper_of_cause"
    else:
        assert {"code": "exit_code_signal_wrapper", "params": said} in [{"code": w["code"], "params": w["params"]}
                                                                         for w in res["matches"][0]["why"]]


# -- precision ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("log", [
    "INFO: training finished, process exited with code 0\n",
    "step 100 loss 1.2 exit_code=0\n",
    "ExitCode 0\n",
])
def test_no_signal_no_answer(index, log):
    assert match_text(index, log)["matches"] == []


def test_prose_about_exit_codes_is_no_report():
    assert read_exit("exit code 137 is documented in the FAQ under memory limits") is None
    assert read_exit("see how the launcher exits with return code = N in the docs") is None


def test_an_exception_of_the_child_outranks_the_kill_guess(index):
    log = """\
Traceback (most recent call last):
  File "/workspace/train.py", line 12, in <module>
    model.cuda()
RuntimeError: CUDA error: out of memory
subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py']' returned non-zero exit status 1.
"""
    res = match_text(index, log)
    assert top(res) != HOST_OOM and HOST_OOM not in [m["id"] for m in res["matches"]]


def test_a_windows_status_leads_to_the_kbs_entry_for_that_status(index):
    # the signed and the unsigned forms of 0xC0000005 look for the same entries
    assert explaining_entries(index, "SIGSEGV", 3221225477) == explaining_entries(index, "SIGSEGV", -1073741819)
    status_only = explaining_entries(index, None, 3221225477)
    if status_only:  # an entry knows the status itself: it comes before the POSIX signal's entries
        assert explaining_entries(index, "SIGSEGV", 3221225477)[0] == status_only[0]


def test_the_probe_lines_exist_for_kill(index):
    assert HOST_OOM in explaining_entries(index, "SIGKILL")
    assert explaining_entries(index, "SIGWINCH") == []


def test_signals_table_agrees_with_this_platform():
    for n, name in ((9, "SIGKILL"), (6, "SIGABRT"), (11, "SIGSEGV"), (15, "SIGTERM"), (2, "SIGINT")):
        assert signal_of(-n)[0] == name == signal.Signals(n).name
    if sys.platform.startswith("linux"):
        assert signal_of(-int(signal.SIGBUS))[0] == "SIGBUS" and os.name == "posix"


def test_ray_memory_monitor_kill_is_the_host_oom_kill(index):
    log = """\
Traceback (most recent call last):
  File "/home/u/rl/train.py", line 152, in <module>
    for obs, env_id in ray.get(step_retval):
  File "/opt/conda/lib/python3.10/site-packages/ray/_private/worker.py", line 2523, in get
    raise value
ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.
Memory on the node (IP: 10.0.0.7, ID: fc2befb2) where the task (actor ID: f9cc340f, name=Rollout.__init__, pid=4331, memory used=2.22GB) was running was 59.49GB / 62.58GB (0.950744), which exceeds the memory usage threshold of 0.95.
"""
    assert top(match_text(index, log)) == HOST_OOM
    raylet = ("(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / actors) "
              "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 8289f87b, IP: 172.24.0.226) "
              "over the last time period.\n")
    assert top(match_text(index, raylet)) == HOST_OOM
