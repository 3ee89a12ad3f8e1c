"""Real reports the KB knows but the matcher missed or misread (issue 18): the defects seen on real logs,
other wordings of the same low-level errors, and short or partial pastes.

Logs marked "real" were produced on this project's CPU test setup (torch with gloo, torchrun); the others are
written in the shape the tools print, from the public threads each entry lists in ``seen_in``."""
from __future__ import annotations

from pathlib import Path

import pytest

from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.matching.logparse import parse_log
from faultline.render.match import match_text

KB = Path(__file__).resolve().parent.parent / "kb"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB, lenient=True).entries)  # lenient: an entry being written elsewhere


def top(res) -> str | None:
    return res["matches"][0]["id"] if res["matches"] else None


# -- defects seen on real logs -------------------------------------------------------------------

# Python logging's fixed format gives many lines of one width: they are records, not one wrapped line
LOGGING_THEN_KILLED = """\
2024-05-09 23:59:10,749 - __main__ - INFO - step 1000 loss 1.800 lr 2.0e-05 grad_norm 0.400
2024-05-09 23:59:11,749 - __main__ - INFO - step 1001 loss 1.801 lr 2.0e-05 grad_norm 0.401
2024-05-09 23:59:12,749 - __main__ - INFO - step 1002 loss 1.802 lr 2.0e-05 grad_norm 0.402
2024-05-09 23:59:13,749 - __main__ - INFO - step 1003 loss 1.803 lr 2.0e-05 grad_norm 0.403
2024-05-09 23:59:14,749 - __main__ - INFO - step 1004 loss 1.804 lr 2.0e-05 grad_norm 0.404
2024-05-09 23:59:15,749 - __main__ - INFO - step 1005 loss 1.805 lr 2.0e-05 grad_norm 0.405
Killed
"""


def test_bare_killed_after_python_logging_lines_of_one_width(index):
    parsed = parse_log(LOGGING_THEN_KILLED)
    assert parsed.lines[-1].text == "Killed"  # not glued onto the last logging line
    res = match_text(index, LOGGING_THEN_KILLED)
    assert top(res) == "pytorch/worker-sigkill-host-oom"
    assert res["root_cause"]["line"] == "Killed"


def test_killed_at_the_end_of_a_progress_bar(index):
    text = "Training with a single process on 1 GPUs.\n 31%|█████▎    | 331/1063 [01:06<03:59,  3.06it/s]Killed\n"
    assert top(match_text(index, text)) == "pytorch/worker-sigkill-host-oom"
    # the word inside a message is no kill report
    assert match_text(index, "step 12 | worker restarted after it was Killed by the user\n")["matches"] == []


def test_wrapped_fixed_width_lines_are_still_rejoined():
    """A terminal hard-wrap at 80 columns (the pieces after the first carry no prefix) is still undone."""
    msg = "RuntimeError: CUDA error: an illegal memory access was encountered; compile with TORCH_USE_CUDA_DSA to enable device-side assertions."
    long_lines = [f'  File "/home/user/project/src/trainer/loop_{i}.py", line {100 + i}, in training_step_with_accumulation'
                  for i in range(3)] + [msg]
    wrapped = [piece for ln in long_lines for piece in (ln[k:k + 80] for k in range(0, len(ln), 80))]
    assert any(ln.text == msg for ln in parse_log("Traceback (most recent call last):\n" + "\n".join(wrapped)).lines)


# a log collector that prefixes "host [stderr] [rankN]: " and hard-wraps the message onto a bare line
HOST_STDERR_WRAPPED = """\
gpu-node-3 [stdout] [rank1]: step 120 loss 2.113
gpu-node-3 [stderr] [rank1]: Traceback (most recent call last):
gpu-node-3 [stderr] [rank1]:   File "/workspace/train.py", line 214, in <module>
gpu-node-3 [stderr] [rank1]:     main()
gpu-node-3 [stderr] [rank1]:   File "/workspace/train.py", line 190, in main
gpu-node-3 [stderr] [rank1]:     optimizer.step()
gpu-node-3 [stderr] [rank1]: RuntimeError: CUDA error: an illegal memo
ry access was encountered
gpu-node-3 [stderr] [rank1]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
gpu-node-0 [stderr] [rank0]: [E1203 10:12:01.123456 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.
"""


def test_host_stream_rank_prefix_and_a_bare_wrapped_tail(index):
    parsed = parse_log(HOST_STDERR_WRAPPED)
    exc = next(e for e in parsed.exceptions if e.type == "RuntimeError")
    assert exc.rank == 1 and exc.message == "CUDA error: an illegal memory access was encountered"
    res = match_text(index, HOST_STDERR_WRAPPED)
    assert top(res) == "pytorch/cuda-illegal-memory-access"
    assert res["root_cause"]["rank"] == 1


def test_a_bare_line_after_a_short_prefixed_line_is_not_a_wrapped_tail():
    text = "[rank0]: epoch 1 done\nsaving to disk\n[rank0]: Traceback (most recent call last):\n"
    lines = parse_log(text).lines
    assert [ln.text for ln in lines][:2] == ["epoch 1 done", "saving to disk"] and lines[1].rank is None


# bitsandbytes prints at import that it has no GPU library; the run ends in an unrelated exception
IMPORT_NOTICE_THEN_EXCEPTION = """\
$ python finetune.py --model meta-llama/Llama-2-7b-hf --load_in_4bit
The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.
Loading checkpoint shards: 100%|██████████| 2/2 [00:04<00:00,  2.11s/it]
trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622
Traceback (most recent call last):
  File "/home/dev/finetune.py", line 77, in <module>
    trainer.train()
  File "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", line 1539, in train
    return inner_training_loop(
  File "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", line 1809, in _inner_training_loop
    tr_loss_step = self.training_step(model, inputs)
  File "/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py", line 302, in _lazy_init
    torch._C._cuda_init()
RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx
"""


def test_a_line_printed_at_import_does_not_outrank_the_exception_that_ended_the_run(index):
    res = match_text(index, IMPORT_NOTICE_THEN_EXCEPTION)
    assert top(res) == "pytorch/found-no-nvidia-driver"
    assert res["root_cause"]["exception"] == "RuntimeError"


def test_the_printed_line_stays_first_when_the_exception_names_its_library(index):
    text = IMPORT_NOTICE_THEN_EXCEPTION.replace(
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
        "driver from http://www.nvidia.com/Download/index.aspx",
        "AttributeError: module 'bitsandbytes' has no attribute 'optim'")
    assert top(match_text(index, text)) == "bitsandbytes/compiled-without-gpu-support"


# ZeRO-3 leaves every parameter empty outside its module's forward: a broadcast error with a size 0
ZERO3_EMPTY_BROADCAST = """\
[2025-07-21 06:01:10,512] [INFO] [config.py:1003:print]   zero_optimization_stage ...... 3
[2025-07-21 06:01:10,513] [INFO] [partition_parameters.py:348:__exit__] finished initializing model - num_params = 771, num_elems = 14.77B
[rank0]: Traceback (most recent call last):
[rank0]:   File "/home/user/open-r1/src/open_r1/grpo.py", line 272, in <module>
[rank0]:     main(script_args, training_args, model_args)
[rank0]:   File "/home/user/miniconda3/envs/openr1/lib/python3.11/site-packages/transformers/trainer.py", line 3791, in training_step
[rank0]:     self.accelerator.backward(loss, **kwargs)
[rank0]:   File "/home/user/miniconda3/envs/openr1/lib/python3.11/site-packages/accelerate/accelerator.py", line 2321, in backward
[rank0]:     self.deepspeed_engine_wrapped.backward(loss, **kwargs)
[rank0]:   File "/home/user/miniconda3/envs/openr1/lib/python3.11/site-packages/deepspeed/runtime/engine.py", line 2216, in backward
[rank0]:     self._do_optimizer_backward(loss, retain_graph)
[rank0]:   File "/home/user/miniconda3/envs/openr1/lib/python3.11/site-packages/torch/autograd/graph.py", line 823, in _engine_run_backward
[rank0]:     return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
[rank0]: RuntimeError: The size of tensor a (0) must match the size of tensor b (5120) at non-singleton dimension 1
"""


def test_a_specific_entry_with_its_context_outranks_the_generic_one(index):
    res = match_text(index, ZERO3_EMPTY_BROADCAST)
    ids = [m["id"] for m in res["matches"]]
    assert ids[0] == "deepspeed/zero3-partitioned-parameter-empty"
    assert "pytorch/tensor-size-mismatch-broadcast" in ids[1:]
    # without DeepSpeed in the log the same line is the generic broadcast error
    plain = "\n".join(ln for ln in ZERO3_EMPTY_BROADCAST.splitlines() if not any(w in ln for w in ("deepspeed", "zero", "partition")))
    assert top(match_text(index, plain)) == "pytorch/tensor-size-mismatch-broadcast"


# real: torchrun --nproc-per-node 2, rank 1 calls sys.exit(3) before an all_reduce; rank 0 then fails in gloo
TORCHRUN_SILENT_EXIT = """\
/opt/venv/lib/python3.11/site-packages/torch/_subclasses/functional_tensor.py:368: UserWarning: Failed to initialize NumPy: No module named 'numpy' (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)
  cpu = _conversion_method_template(device=torch.device("cpu"))
W1204 02:27:46.551000 20345 torch/distributed/run.py:874] 
W1204 02:27:46.551000 20345 torch/distributed/run.py:874] *****************************************
W1204 02:27:46.551000 20345 torch/distributed/run.py:874] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. 
W1204 02:27:46.551000 20345 torch/distributed/run.py:874] *****************************************
/opt/venv/lib/python3.11/site-packages/torch/_subclasses/functional_tensor.py:368: UserWarning: Failed to initialize NumPy: No module named 'numpy' (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)
  cpu = _conversion_method_template(device=torch.device("cpu"))
/opt/venv/lib/python3.11/site-packages/torch/_subclasses/functional_tensor.py:368: UserWarning: Failed to initialize NumPy: No module named 'numpy' (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)
  cpu = _conversion_method_template(device=torch.device("cpu"))
rank 0 ready
rank 1 ready
rank 1: bad shard list, giving up
[rank0]: Traceback (most recent call last):
[rank0]:   File "/home/user/job/exit3.py", line 10, in <module>
[rank0]:     dist.all_reduce(x)
[rank0]:   File "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper
[rank0]:     return func(*args, **kwargs)
[rank0]:            ^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3252, in all_reduce
[rank0]:     work.wait()
[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:5339. This is typically caused by a remote worker crashing. Check the logs of the remote worker before reporting an error. GLHF! 🏖️
W1204 02:27:49.465000 20345 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 20433 closing signal SIGTERM
E1204 02:27:49.481000 20345 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 3) local_rank: 1 (pid: 20434) of binary: /opt/venv/bin/python3
Traceback (most recent call last):
  File "/opt/venv/bin/torchrun", line 6, in <module>
    sys.exit(main())
             ^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper
    return f(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1028, in main
    run(args)
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1019, in run
    elastic_launch(
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 194, in __call__
    return launch_agent(
           ^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 383, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
exit3.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-12-04_02:27:49
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 20433)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 20433
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-04_02:27:49
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 3 (pid: 20434) 
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""


def test_torchrun_first_failure_that_printed_no_traceback(index):
    res = match_text(index, TORCHRUN_SILENT_EXIT)
    root = res["root_cause"]
    assert root["rank"] == 1 and root["entry"] is None and "exitcode" in root["line"] and not root["is_cause"]
    # rank 0's gloo error is a consequence of rank 1's exit: still the answer (it says to look at rank 1's
    # own log), but not the root cause
    m = res["matches"][0]
    assert m["id"] == "pytorch/gloo-collective-timeout" and not m["root_cause_match"]


def test_torchrun_first_failure_with_a_traceback_of_its_own_is_unchanged(index):
    text = TORCHRUN_SILENT_EXIT.replace(
        "rank 1: bad shard list, giving up\n",
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/home/user/job/exit3.py", line 8, in <module>\n'
        "[rank1]:     x = torch.ones(4).cuda()\n"
        "[rank1]: RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx\n")
    res = match_text(index, text)
    assert top(res) == "pytorch/found-no-nvidia-driver" and res["root_cause"]["rank"] == 1


# -- other wordings of the same low-level error ---------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    # legacy THC wording of old torch, and the THCudaCheck line printed before it
    ("RuntimeError: cuda runtime error (710) : device-side assert triggered at "
     "/opt/conda/conda-bld/pytorch_1623448278899/work/aten/src/THC/generic/THCTensorMath.cu:29",
     "pytorch/cuda-device-side-assert"),
    ("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCCachingHostAllocator.cpp line=278 error=700 : "
     "an illegal memory access was encountered", "pytorch/cuda-illegal-memory-access"),
    # the CUDA runtime's text raised through other frameworks
    ("OSError: (External) CUDA error(719), unspecified launch failure.\n  [Hint: 'cudaErrorLaunchFailure'. An exception "
     "occurred on the device while executing a kernel.] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:259)",
     "pytorch/cuda-unspecified-launch-failure"),
    ("xgboost.core.XGBoostError: [17:54:06] /src/tree/updater_gpu_hist.cu:521: GPU plugin exception: "
     "/src/tree/updater_gpu_hist.cu(673): an illegal memory access was encountered", "pytorch/cuda-illegal-memory-access"),
    ("2021-08-05 11:50:49.209319: E tensorflow/stream_executor/cuda/cuda_event.cc:29] Error polling for event status: "
     "failed to query event: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered",
     "pytorch/cuda-illegal-memory-access"),
    ("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call "
     "'xla.gpu.func.launch' failed: Failed to launch CUDA kernel: fusion_1560 with block dimensions: 160x1x1 and grid "
     "dimensions: 1x1x1: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.",
     "pytorch/cuda-illegal-memory-access"),
    ("RuntimeError: transform: failed to synchronize: cudaErrorAssert: device-side assert triggered",
     "pytorch/cuda-device-side-assert"),
    # NCCL watchdog and c10d socket lines of other torch versions
    ("[rank0]:[E1206 18:44:16.994932383 ProcessGroupNCCL.cpp:1709] [PG 1 Rank 0] Timeout at NCCL work: 7753, "
     "last enqueued NCCL work: 7755, last completed NCCL work: 7752.", "pytorch/nccl-timeout-allreduce"),
    ("[rank1]:[E1002 18:16:40.662691402 ProcessGroupNCCL.cpp:756] [Rank 1] Work WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, "
     "NumelIn=160672064, NumelOut=160672064, Timeout(ms)=600000) timed out in blocking wait.",
     "pytorch/nccl-timeout-allreduce"),
    ("[W socket.cpp:697] [c10d] The client socket has failed to connect to [::ffff:10.0.3.17]:47389 "
     "(errno: 110 - Connection timed out).\n"
     "[E socket.cpp:753] [c10d] The client socket has failed to connect to any network address of (node-0, 47389).",
     "pytorch/tcpstore-connect-timeout"),
])
def test_other_wordings_of_the_same_error(index, text, expected):
    assert top(match_text(index, text)) == expected


def test_the_runtime_text_inside_a_sentence_that_is_not_an_error_report_of_it(index):
    """The CUDA text is the key; words around it are context.  Other words that only sound alike are not."""
    assert match_text(index, "the kernel reported an illegal memory access error earlier today")["matches"] == []
    assert match_text(index, "launch failure: the job was not scheduled (unspecified reason)")["matches"] == []


# Python <= 3.9 prints no class name for a TypeError raised while binding a call's arguments
PY39_KWARG = """\
Traceback (most recent call last):
  File "/root/autodl-tmp/ChineseErrorCorrector/llm/train/train_lora.py", line 174, in train_model
    training_args = TrainingArguments(
TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'
"""


def test_unqualified_init_kwarg_of_a_library_class(index):
    res = match_text(index, PY39_KWARG)
    assert top(res) == "transformers/training-arguments-renamed"  # the entry of that class and argument
    assert res["root_cause"]["exception"] == "TypeError"
    other = PY39_KWARG.replace("training_args = TrainingArguments(", "accelerator = Accelerator(log_with='tensorboard',")
    assert top(match_text(index, other.replace("'evaluation_strategy'", "'logging_dir'"))) == \
        "ml/version-skew-unexpected-kwarg"


def test_unqualified_init_kwarg_of_the_users_own_class_gets_no_entry(index):
    own = PY39_KWARG.replace("training_args = TrainingArguments(", "model = MyNet(hidden=256, dropuot=0.1)")
    own = own.replace("'evaluation_strategy'", "'dropuot'")
    assert match_text(index, own)["matches"] == []
    # nor a call through a variable (getattr(module, name)(**kwargs)): the class is unknown
    dyn = PY39_KWARG.replace("training_args = TrainingArguments(", "return getattr(module, name)(*args, **kwargs)")
    assert match_text(index, dyn)["matches"] == []


# -- short and partial pastes ----------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("an illegal memory access was encountered in optimizer.step() with ZeRO-2", "pytorch/cuda-illegal-memory-access"),
    ("RuntimeError: CUDA error: device-side assert trigg", "pytorch/cuda-device-side-assert"),  # cut mid-word
    ("I keep getting CUDA error: device-side assert triggered when training, any idea?", "pytorch/cuda-device-side-assert"),
    ("Watchdog caught collective operation timeout", "pytorch/nccl-timeout-allreduce"),  # a title
    ("torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of",
     "pytorch/tcpstore-connect-timeout"),  # another exception type around the same cut message
])
def test_short_and_partial_pastes(index, text, expected):
    assert top(match_text(index, text)) == expected


def test_a_title_fragment_answers_at_a_lower_confidence_and_says_so(index):
    res = match_text(index, "IndexKernel.cu:92")
    m = res["matches"][0]
    assert m["id"] == "pytorch/cuda-device-side-assert"
    assert m["confidence"] <= 0.55
    assert m["why"][0]["params"]["sig"] == "short-paste"
    # another line number of the same kernel file (another torch version) is the same fragment
    assert top(match_text(index, "IndexKernel.cu:93")) == "pytorch/cuda-device-side-assert"


def test_the_watchdog_line_that_says_failed_or_timed_out_names_no_entry_alone(index):
    """torch prints it after a timeout and after an NCCL error alike: alone it says neither."""
    assert match_text(index, "[E ProcessGroupNCCL.cpp:475] Some NCCL operations have failed or timed out. Due to the "
                             "asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
                             "corrupted/incomplete data.")["matches"] == []


def test_short_fragments_that_name_nothing_specific_get_no_answer(index):
    for text in ("CUDA error", "Assertion failed", "RuntimeError: something went wrong in my loss", "train.py:12", "TimeoutError",
                 "main.cpp:40", "loss is nan"):
        assert match_text(index, text)["matches"] == [], text


def test_no_line_of_a_negative_log_pasted_alone_gets_a_short_paste_answer(index):
    """The fragment tier, calibrated on the negatives: each line of every negative log, pasted alone."""
    repo = KB.parent
    files = sorted((KB / "examples" / "negative").rglob("*.log"))
    for name in ("holdout", "holdout2", "holdout3"):
        files += sorted((repo / "bench" / name / "negative").rglob("*.log"))
    assert len(files) >= 50
    fired = []
    for f in files:
        for line in f.read_text(errors="replace").splitlines():
            if line.strip():
                res = match_text(index, line)
                if res["matches"] and res["matches"][0]["why"][0]["params"].get("sig") == "short-paste":
                    fired.append((f.name, line[:80]))
    assert fired == []
