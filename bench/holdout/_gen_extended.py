"""Extended tier: harder probes added after the core set was scored (older/newer wordings, other launchers'
prefixes, wrapped lines, near-miss negatives). Written from canonical-errors.md and real library sources,
not from the KB's signatures."""
import json
from functools import partial

from bench.holdout._gen_common import E, add as _add, dedent, label, wrap80

add = partial(_add, tier="extended")
P = "pytorch"

# --- launcher / log-shipper prefixes the parser may not know --------------------------------
ray = "(RayTrainWorker pid=4411, ip=10.0.0.5) "
add(f"{P}/cuda-out-of-memory/x_ray_train_prefix_t24.log", label(dedent("""
Traceback (most recent call last):
  File "/tmp/ray/session_2024-09-12_08-11-02_118842_1/runtime_resources/working_dir_files/_ray_pkg_5d1e/train_fn.py", line 88, in train_loop_per_worker
    loss = model(**batch).loss
  File "/home/ray/anaconda3/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1747, in _call_impl
    return forward_call(*args, **kwargs)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 896.00 MiB. GPU 0 has a total capacity of 22.06 GiB of which 611.12 MiB is free. Process 18823 has 21.45 GiB memory in use. Of the allocated memory 20.87 GiB is allocated by PyTorch, and 332.51 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
"""), ray) + "\n", expect="pytorch/cuda-out-of-memory", features=["Ray Train worker prefix"])

add(f"{P}/nccl-unhandled-system-error/x_kubectl_prefix.log", label(dedent("""
torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
Last error:
socketStartConnect: Connect to 10.233.71.14<47125> failed : Software caused connection abort
"""), "[pod/llama-ft-worker-1/pytorch] ") + "\n", expect="pytorch/nccl-unhandled-system-error",
    features=["kubectl logs --prefix '[pod/NAME/CONTAINER] '"])

add(f"{P}/ddp-unused-parameters/x_sagemaker_mpirun_prefix.log", label(dedent("""
Traceback (most recent call last):
  File "/opt/ml/code/train.py", line 201, in <module>
    outputs = model(**batch)
RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by
"""), "[1,mpirank:3,algo-2]<stderr>:") + "\n", expect="pytorch/ddp-unused-parameters", root_rank=3,
    features=["SageMaker/Open MPI '[1,mpirank:3,algo-2]<stderr>:' prefix"])

cri = "\n".join(f"2024-10-09T14:22:{10+i:02d}.{120044318+i*777}Z stderr F {ln}" for i, ln in enumerate(dedent("""
Traceback (most recent call last):
  File "/app/train.py", line 67, in <module>
    torch.cuda.synchronize()
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
""").splitlines())) + "\n"
add(f"{P}/cuda-illegal-memory-access/x_containerd_cri.log", cri, expect="pytorch/cuda-illegal-memory-access",
    features=["containerd/CRI log format '<ts> stderr F <text>'"])

one_line = json.dumps({"status": "FAILED", "error": dedent("""
Traceback (most recent call last):
  File "/home/ray/job/train.py", line 51, in <module>
    trainer.fit()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.41 GiB is free.
""")})
add(f"{P}/cuda-out-of-memory/x_json_single_line.log", one_line + "\n", expect="pytorch/cuda-out-of-memory",
    features=["whole traceback JSON-escaped on one line (job-status API)"])

# --- wrapped lines where the key phrase crosses column 80 --------------------------------
add(f"{P}/nccl-timeout-allreduce/x_wrapped80_rankprefix.log", wrap80(
    "[rank0]:[E0917 03:12:44.118273641 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88213, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for 600089 milliseconds before timing out.") + "\n",
    expect="pytorch/nccl-timeout-allreduce", features=["wrapped at 80; 'Watchdog caught' split across lines"])

add(f"{P}/cuda-out-of-memory/x_wrapped80_pdsh.log", wrap80(
    "worker-12: [rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.20 GiB. GPU 3 has a total capacity of 79.10 GiB of which 845.31 MiB is free.") + "\n",
    expect="pytorch/cuda-out-of-memory", root_rank=3, features=["wrapped at 80; 'Tried to allocate' split"])

# --- launcher lines without the SIGKILL -----------------------------------------------------
add(f"{P}/elastic-child-failed/x_truncated_launcher_exitcode1.log", dedent("""
W0523 17:40:02.114000 9921 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 9930 closing signal SIGTERM
E0523 17:40:02.401000 9921 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 9931) of binary: /usr/bin/python3
"""), expect="pytorch/elastic-child-failed", features=["last lines only: launcher failed (exitcode: 1), no SIGKILL"])

add(f"{P}/elastic-child-failed/x_sigsegv.log", dedent("""
E0611 02:13:40.771000 1402 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -11) local_rank: 0 (pid: 1410) of binary: /opt/py/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
infer_dist.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-06-11_02:13:40
  host      : gpu-x3
  rank      : 0 (local_rank: 0)
  exitcode  : -11 (pid: 1410)
  error_file: <N/A>
  traceback : Signal 11 (SIGSEGV) received by PID 1410
============================================================
"""), expect="pytorch/elastic-child-failed", features=["SIGSEGV (-11), must not be read as SIGKILL/host OOM"])

# --- older / newer wordings -----------------------------------------------------------------
add(f"{P}/cuda-out-of-memory/x_t10_thc_wording.log", dedent("""
Traceback (most recent call last):
  File "train.py", line 141, in <module>
    output = net(inputs)
RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510
"""), expect="pytorch/cuda-out-of-memory", features=["torch <=1.0 THC wording"])

add(f"{P}/cuda-device-side-assert/x_t1x_thc_wording.log", dedent("""
/pytorch/aten/src/THCUNN/ClassNLLCriterion.cu:106: void cunn_ClassNLLCriterion_updateOutput_kernel(Dtype *, Dtype *, Dtype *, long *, Dtype *, int, int, int, int, long) [with Dtype = float, Acctype = float]: block: [0,0,0], thread: [7,0,0] Assertion `t >= 0 && t < n_classes` failed.
Traceback (most recent call last):
  File "main.py", line 77, in <module>
    loss.backward()
RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/generic/THCTensorMath.cu:26
"""), expect="pytorch/cuda-device-side-assert", features=["torch 1.0-1.4 'cuda runtime error (59)' wording"])

add(f"{P}/backward-through-graph-twice/x_t17_old_wording.log", dedent("""
RuntimeError: Trying to backward through the graph a second time, but the saved intermediate results have already been freed. Specify retain_graph=True when calling backward the first time.
"""), expect="pytorch/backward-through-graph-twice", features=["torch <=1.8 wording"])

add(f"{P}/default-process-group-not-initialized/x_t16_assertion.log", dedent("""
  File "/usr/local/lib/python3.7/dist-packages/torch/distributed/distributed_c10d.py", line 347, in _check_default_pg
    "Default process group is not initialized"
AssertionError: Default process group is not initialized
"""), expect="pytorch/default-process-group-not-initialized", features=["torch <=1.7 AssertionError wording"])

add(f"{P}/mat1-mat2-shape-mismatch/x_t15_size_mismatch_m1_m2.log", dedent("""
  File "/usr/local/lib/python3.6/dist-packages/torch/nn/functional.py", line 1610, in linear
    ret = torch.addmm(bias, input, weight.t())
RuntimeError: size mismatch, m1: [64 x 2048], m2: [512 x 10] at /pytorch/aten/src/THC/generic/THCTensorMathBlas.cu:290
"""), expect="pytorch/mat1-mat2-shape-mismatch", features=["torch <=1.6 'size mismatch, m1: [..], m2: [..]' wording"])

add(f"{P}/dtype-mismatch/x_conv_input_type_half.log", dedent("""
  File "/home/u/.venv/lib/python3.10/site-packages/torch/nn/modules/conv.py", line 456, in _conv_forward
    return F.conv2d(input, weight, bias, self.stride,
RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same
"""), expect="pytorch/dtype-mismatch", features=["conv 'Input type (HalfTensor) and weight type (FloatTensor)' variant"])

add(f"{P}/tensors-on-different-devices/x_conv_input_type_device.log", dedent("""
  File "/home/u/.venv/lib/python3.10/site-packages/torch/nn/modules/conv.py", line 456, in _conv_forward
    return F.conv2d(input, weight, bias, self.stride,
RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor
"""), expect="pytorch/tensors-on-different-devices", features=["conv 'Input type (FloatTensor) and weight type (cuda.FloatTensor)' = device mismatch"])

add(f"{P}/tcpstore-connect-timeout/x_t19_connect_timed_out.log", dedent("""
  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/rendezvous.py", line 149, in _tcp_rendezvous_handler
    store = TCPStore(result.hostname, result.port, world_size, start_daemon, timeout)
RuntimeError: connect() timed out. Original timeout was 1800000 ms.
"""), expect="pytorch/tcpstore-connect-timeout", features=["torch <=1.9 wording"])

add(f"{P}/tcpstore-address-in-use/x_t18_address_in_use.log", dedent("""
  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/rendezvous.py", line 149, in _env_rendezvous_handler
    store = TCPStore(master_addr, master_port, world_size, start_daemon, timeout)
RuntimeError: Address already in use
"""), expect="pytorch/tcpstore-address-in-use", features=["torch <=1.9 bare 'Address already in use'"])

add(f"{P}/store-timeout-waiting-for-clients/x_store_based_barrier.log", dedent("""
RuntimeError: Timed out initializing process group in store based barrier on rank: 3, for key: store_based_barrier_key:1 (world_size=4, worker_count=3, timeout=0:30:00)
"""), expect="pytorch/store-timeout-waiting-for-clients",
    note="arguable: same situation (a rank never joined) in torch 1.x-2.0 wording", features=["store-based barrier wording"])

add(f"{P}/nccl-unhandled-system-error/x_t17_nccl_error_2.log", dedent("""
  File "/usr/local/lib/python3.8/dist-packages/torch/nn/parallel/distributed.py", line 410, in __init__
    self._sync_params_and_buffers(authoritative_rank=0)
RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled system error, NCCL version 2.7.8
"""), expect="pytorch/nccl-unhandled-system-error", features=["torch 1.7 path torch/lib/c10d"])

add(f"{P}/nccl-heartbeat-monitor-timeout/x_t22_no_heartbeat.log", dedent("""
[E ProcessGroupNCCL.cpp:1182] [Rank 6] NCCL watchdog thread terminated with exception: CUDA error: unspecified launch failure
[E ProcessGroupNCCL.cpp:1121] [Rank 6] ProcessGroupNCCL monitoring thread detects no heartbeat and will finally kill the process!
"""), expect="pytorch/nccl-heartbeat-monitor-timeout", features=["torch 2.2 wording ('detects no heartbeat')"],
    note="arguable: the watchdog line shows a CUDA error first")

add(f"{P}/nccl-timeout-allreduce/x_t26_truncated_top.log", dedent("""
[rank0]:[E1018 11:52:07.771218034 ProcessGroupNCCL.cpp:1746] [PG ID 0 PG GUID 0(default_pg) Rank 0] failure detected by watchdog at work sequence id: 812 PG status: last enqueued work: 812, last completed work: 811
[rank0]:[E1018 11:52:07.771268140 ProcessGroupNCCL.cpp:630] Stack trace of the failed collective not found, potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.
[rank0]:[E1018 11:52:07.771281337 ProcessGroupNCCL.cpp:636] [Rank 0] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[rank0]:[E1018 11:52:07.771290112 ProcessGroupNCCL.cpp:642] [Rank 0] To avoid data inconsistency, we are taking the entire process down.
"""), expect="pytorch/nccl-timeout-allreduce", features=["paste starts after the 'Watchdog caught' line"])

add(f"{P}/dataloader-worker-killed/x_segfault.log", dedent("""
RuntimeError: DataLoader worker (pid 4421) is killed by signal: Segmentation fault. 
"""), expect="pytorch/dataloader-worker-killed")

add(f"{P}/cant-pickle-local-object/x_windows_eoferror.log", dedent(r"""
Traceback (most recent call last):
  File "C:\Users\kim\seg\train.py", line 90, in <module>
    for x, y in loader:
  File "C:\Users\kim\miniconda3\lib\multiprocessing\reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
AttributeError: Can't pickle local object 'get_loader.<locals>.<lambda>'
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "C:\Users\kim\miniconda3\lib\multiprocessing\spawn.py", line 126, in _main
    self = reduction.pickle.load(from_parent)
EOFError: Ran out of input
"""), expect="pytorch/cant-pickle-local-object", crlf=True, features=["Windows spawn: parent AttributeError + child EOFError"])

add(f"{P}/state-dict-module-prefix/x_reverse_missing_module.log", dedent("""
RuntimeError: Error(s) in loading state_dict for DistributedDataParallel:
	Missing key(s) in state_dict: "module.backbone.conv1.weight", "module.backbone.bn1.weight", "module.head.weight". 
	Unexpected key(s) in state_dict: "backbone.conv1.weight", "backbone.bn1.weight", "head.weight". 
"""), expect="pytorch/state-dict-module-prefix", features=["reverse direction: 'module.' on the Missing side"])

# --- extended negatives (near misses) ----------------------------------------------------------
N = "negative"
add(f"{N}/x_state_dict_size_mismatch.log", dedent("""
RuntimeError: Error(s) in loading state_dict for ResNet:
	size mismatch for fc.weight: copying a param with shape torch.Size([1000, 2048]) from checkpoint, the shape in current model is torch.Size([37, 2048]).
	size mismatch for fc.bias: copying a param with shape torch.Size([1000]) from checkpoint, the shape in current model is torch.Size([37]).
"""), expect=None, note="state_dict error that is NOT a prefix problem (head size changed)")

add(f"{N}/x_hf_weights_not_used_warning.log", dedent("""
Some weights of the model checkpoint at bert-base-uncased were not used when initializing BertModel: ['cls.predictions.transform.dense.weight', 'cls.seq_relationship.bias', 'cls.predictions.bias']
- This IS expected if you are initializing BertModel from the checkpoint of a model trained on another task or with another architecture (e.g. initializing a BertForSequenceClassification model from a BertForPreTraining model).
- This IS NOT expected if you are initializing BertModel from the checkpoint of a model that you expect to be exactly identical (initializing a BertForSequenceClassification model from a BertForSequenceClassification model).
{'eval_loss': 0.3121, 'eval_accuracy': 0.9127, 'epoch': 3.0}
"""), expect=None)

add(f"{N}/x_healthy_nccl_then_zerodivision.log", dedent("""
node03:8812:8812 [0] NCCL INFO Bootstrap : Using eth0:10.1.4.3<0>
node03:8812:8812 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation
node03:8812:8812 [0] NCCL INFO cudaDriverVersion 12040
NCCL version 2.20.5+cuda12.4
node03:8812:8890 [0] NCCL INFO Channel 00/02 :    0   1   2   3
node03:8812:8890 [0] NCCL INFO Connected all rings
node03:8812:8890 [0] NCCL INFO comm 0x55d1c2a0 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1a000 commId 0x3f2b9a1c8e7d6a5b - Init COMPLETE
[rank0]: Traceback (most recent call last):
[rank0]:   File "/proj/eval.py", line 88, in <module>
[rank0]:     acc = correct / total
[rank0]: ZeroDivisionError: division by zero
"""), expect=None)

add(f"{N}/x_cublas_not_initialized.log", dedent("""
RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`
"""), expect=None)

add(f"{N}/x_dynamo_unsupported.log", dedent("""
torch._dynamo.exc.Unsupported: Graph break due to unsupported builtin _operator.getitem. This function is either a Python builtin (e.g. _warnings.warn) or a third-party C/C++ Python extension (perhaps created with pybind).
"""), expect=None)

add(f"{N}/x_weights_only_futurewarning_then_keyerror.log", dedent("""
/home/u/proj/load.py:12: FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value), which uses the default pickle module implicitly. It is possible to construct malicious pickle data which will execute arbitrary code during unpickling (See https://github.com/pytorch/pytorch/blob/main/SECURITY.md#untrusted-models for more details). In a future release, the default value for `weights_only` will be flipped to `True`. This limits the functions that could be executed during unpickling. Arbitrary objects will no longer be allowed to be loaded via this mode unless they are explicitly allowlisted by the user via `torch.serialization.add_safe_globals`. We recommend you start setting `weights_only=True` for any use case where you don't have full control of the loaded file. Please open an issue on GitHub for any issues related to this experimental feature.
  ckpt = torch.load(path, map_location="cpu")
Traceback (most recent call last):
  File "/home/u/proj/load.py", line 13, in <module>
    model.load_state_dict(ckpt["state_dict"])
KeyError: 'state_dict'
"""), expect=None)

add(f"{N}/x_no_nvidia_driver.log", dedent("""
RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx
"""), expect=None, note="no driver at all, not a too-old driver")

add(f"{N}/x_deserialize_cuda_on_cpu.log", dedent("""
RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.
"""), expect=None)

add(f"{N}/x_nccl_internal_error.log", dedent("""
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3
ncclInternalError: Internal check failed.
Last error:
Proxy Call to rank 0 failed (Connect)
"""), expect=None, note="ncclInternalError has no canonical id")

add(f"{N}/x_subprocess_timeout.log", dedent("""
subprocess.TimeoutExpired: Command '['nvidia-smi', '--query-gpu=memory.used', '--format=csv']' timed out after 30 seconds
"""), expect=None)

add(f"{N}/x_docker_gpu_driver.log", dedent("""
docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].
"""), expect=None)

add(f"{N}/x_torchrun_exitcode1_user_filenotfound.log", dedent("""
[rank0]: FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-00017.parquet'
"""), expect=None, note="a plain user error under torchrun, no wrapper lines")
