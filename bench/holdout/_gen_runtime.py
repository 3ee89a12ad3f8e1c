from bench.holdout._gen_common import E, add, dedent, label, wrap80

D = "pytorch"

# ---------------------------------------------------------------- cuda-out-of-memory
add(f"{D}/cuda-out-of-memory/jupyter_t112_runtimeerror.log", E(dedent(r"""
\x1b[0;31m---------------------------------------------------------------------------\x1b[0m
\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)
Input \x1b[0;32mIn [9]\x1b[0m, in \x1b[0;36m<cell line: 2>\x1b[0;34m()\x1b[0m
\x1b[1;32m      1\x1b[0m \x1b[38;5;28;01mfor\x1b[39;00m xb, yb \x1b[38;5;129;01min\x1b[39;00m train_dl:
\x1b[0;32m----> 2\x1b[0m     logits \x1b[38;5;241m=\x1b[39m \x1b[43mmodel\x1b[49m\x1b[43m(\x1b[49m\x1b[43mxb\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mcuda\x1b[49m\x1b[43m(\x1b[49m\x1b[43m)\x1b[49m\x1b[43m)\x1b[49m

File \x1b[0;32m/opt/conda/lib/python3.8/site-packages/torch/nn/functional.py:2450\x1b[0m, in \x1b[0;36mbatch_norm\x1b[0;34m(input, running_mean, running_var, weight, bias, training, momentum, eps)\x1b[0m
\x1b[0;32m-> 2450\x1b[0m \x1b[38;5;28;01mreturn\x1b[39;00m \x1b[43mtorch\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mbatch_norm\x1b[49m\x1b[43m(\x1b[49m

\x1b[0;31mRuntimeError\x1b[0m: CUDA out of memory. Tried to allocate 2.50 GiB (GPU 0; 23.69 GiB total capacity; 19.82 GiB already allocated; 1.22 GiB free; 21.37 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
""")), expect="pytorch/cuda-out-of-memory", features=["Jupyter ANSI", "torch 1.12 RuntimeError wording (no OutOfMemoryError type)"])

oom_b = [label(dedent("""
Traceback (most recent call last):
  File "/nfs/projects/whisper-ft/train.py", line 402, in <module>
    main()
  File "/nfs/projects/whisper-ft/train.py", line 377, in main
    scaler.scale(loss).backward()
  File "/nfs/envs/wft/lib/python3.10/site-packages/torch/_tensor.py", line 492, in backward
    torch.autograd.backward(
  File "/nfs/envs/wft/lib/python3.10/site-packages/torch/autograd/__init__.py", line 251, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.53 GiB. GPU 2 has a total capacty of 39.39 GiB of which 1.09 GiB is free. Including non-PyTorch memory, this process has 38.29 GiB memory in use. Of the allocated memory 35.71 GiB is allocated by PyTorch, and 1.96 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
"""), "2: ")]
for r in (0, 1, 3):
    oom_b.append(label(f"[E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=30211, OpType=ALLREDUCE, NumelIn=61865984, NumelOut=61865984, Timeout(ms)=1800000) ran for 180039{r} milliseconds before timing out.\n"
                       "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
                       "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.", f"{r}: "))
oom_b.append("srun: error: a40-n3: task 2: Exited with exit code 1\nsrun: error: a40-n3: tasks 0-1,3: Aborted (core dumped)")
add(f"{D}/cuda-out-of-memory/srun_t21_rank2_first_others_timeout.log", "\n".join(oom_b) + "\n",
    expect="pytorch/cuda-out-of-memory", root_rank=2,
    features=["multi-rank: rank 2 OOM, ranks 0/1/3 NCCL timeouts later", "torch 2.1 'capacty' typo", "srun labels; rank only in the label"])

# ---------------------------------------------------------------- cuda-illegal-memory-access
add(f"{D}/cuda-illegal-memory-access/lightning_t113.log", dedent("""
Epoch 2:  63%|██████▎   | 805/1280 [07:12<04:15,  1.86it/s, loss=0.0412, v_num=7]
Traceback (most recent call last):
  File "/home/iz/pointnet2/train_cls.py", line 133, in <module>
    trainer.fit(model)
  File "/home/iz/miniconda3/envs/pn2/lib/python3.8/site-packages/pytorch_lightning/core/optimizer.py", line 169, in step
    step_output = self._strategy.optimizer_step(self._optimizer, self._optimizer_idx, closure, **kwargs)
  File "/home/iz/pointnet2/pointnet2_ops/pointnet2_utils.py", line 64, in forward
    idx = _ext.furthest_point_sampling(xyz, npoint)
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
"""), expect="pytorch/cuda-illegal-memory-access", features=["torch 1.13 wording 'API call,so'", "Lightning"])

ima = dedent("""
[rank1]:[E0705 19:22:08.930114521 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 1] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.

Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f5c6c2f9f86 in /opt/venv/lib/python3.11/site-packages/torch/lib/libc10.so)
frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f5c6c2a8d10 in /opt/venv/lib/python3.11/site-packages/torch/lib/libc10.so)
frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (0x7f5c6c3d4f08 in /opt/venv/lib/python3.11/site-packages/torch/lib/libc10_cuda.so)
frame #3: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x56 (0x7f5c1d6a1a46 in /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)

terminate called after throwing an instance of 'c10::DistBackendError'
  what():  [PG 0 (default_pg) Rank 1] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered
W0705 19:22:10.118000 30551 torch/distributed/elastic/multiprocessing/api.py:891] Sending process 30560 closing signal SIGTERM
E0705 19:22:11.006000 30551 torch/distributed/elastic/multiprocessing/api.py:863] failed (exitcode: -6) local_rank: 1 (pid: 30561) of binary: /opt/venv/bin/python
[rank0]:[E0705 19:32:08.114000125 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5120, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600002 milliseconds before timing out.
""")
add(f"{D}/cuda-illegal-memory-access/t24_watchdog_async_multirank.log", ima, expect="pytorch/cuda-illegal-memory-access", root_rank=1,
    features=["illegal access surfaces via watchdog thread (async)", "rank 0 times out later"])

# ---------------------------------------------------------------- cuda-device-side-assert
asserts = "\n".join(f"/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [{i},0,0] Assertion `t >= 0 && t < n_classes` failed." for i in (3, 11, 17, 29, 30))
add(f"{D}/cuda-device-side-assert/loss_cu_t28_acceleratorerror.log", asserts + "\n" + dedent("""
Traceback (most recent call last):
  File "/srv/cls/train.py", line 98, in <module>
    loss.backward()
  File "/srv/cls/.venv/lib/python3.12/site-packages/torch/_tensor.py", line 647, in backward
    torch.autograd.backward(
torch.AcceleratorError: CUDA error: device-side assert triggered
Search for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""), expect="pytorch/cuda-device-side-assert", features=["torch 2.8+ torch.AcceleratorError type", "'Search for `cudaErrorAssert'' line", "kernel assertion lines"])

add(f"{D}/cuda-device-side-assert/windows_indexing_hf_crlf.log", dedent(r"""
  0%|          | 0/3000 [00:00<?, ?it/s]C:\actions-runner\_work\pytorch\pytorch\builder\windows\pytorch\aten\src\ATen\native\cuda\Indexing.cu:1236: block: [219,0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
C:\actions-runner\_work\pytorch\pytorch\builder\windows\pytorch\aten\src\ATen\native\cuda\Indexing.cu:1236: block: [219,0,0], thread: [97,0,0] Assertion `srcIndex < srcSelectDimSize` failed.
Traceback (most recent call last):
  File "D:\work\nlp\finetune_bert.py", line 140, in <module>
    trainer.train()
  File "C:\Users\Ahmed\anaconda3\envs\hf\lib\site-packages\transformers\trainer.py", line 1859, in train
    return inner_training_loop(
  File "C:\Users\Ahmed\anaconda3\envs\hf\lib\site-packages\transformers\models\bert\modeling_bert.py", line 232, in forward
    inputs_embeds = self.word_embeddings(input_ids)
  File "C:\Users\Ahmed\anaconda3\envs\hf\lib\site-packages\torch\nn\functional.py", line 2264, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""), expect="pytorch/cuda-device-side-assert", crlf=True, features=["Windows paths", "CRLF", "assert glued after tqdm bar"])

# ---------------------------------------------------------------- tensors-on-different-devices
add(f"{D}/tensors-on-different-devices/hf_generate_index_select.log", dedent("""
Setting `pad_token_id` to `eos_token_id`:2 for open-end generation.
Traceback (most recent call last):
  File "/home/guo/rag/answer.py", line 61, in <module>
    out = model.generate(**inputs, max_new_tokens=256)
  File "/home/guo/.venv/lib/python3.10/site-packages/transformers/generation/utils.py", line 1525, in generate
    return self.greedy_search(
  File "/home/guo/.venv/lib/python3.10/site-packages/transformers/models/mistral/modeling_mistral.py", line 1010, in forward
    inputs_embeds = self.embed_tokens(input_ids)
  File "/home/guo/.venv/lib/python3.10/site-packages/torch/nn/functional.py", line 2233, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper_CUDA__index_select)
"""), expect="pytorch/tensors-on-different-devices")

add(f"{D}/tensors-on-different-devices/jupyter_t213_new_wording.log", E(dedent(r"""
\x1b[31m---------------------------------------------------------------------------\x1b[39m
\x1b[31mRuntimeError\x1b[39m                              Traceback (most recent call last)
\x1b[36mCell\x1b[39m\x1b[36m \x1b[39m\x1b[32mIn[23]\x1b[39m\x1b[32m, line 4\x1b[39m
\x1b[32m      2\x1b[39m head = nn.Linear(\x1b[32m768\x1b[39m, \x1b[32m3\x1b[39m)
\x1b[32m      3\x1b[39m feats = encoder(batch.to(\x1b[33m"\x1b[39m\x1b[33mcuda\x1b[39m\x1b[33m"\x1b[39m))
\x1b[32m----> \x1b[39m\x1b[32m4\x1b[39m logits = \x1b[43mhead\x1b[49m\x1b[43m(\x1b[49m\x1b[43mfeats\x1b[49m\x1b[43m)\x1b[49m

\x1b[36mFile \x1b[39m\x1b[32m~/miniforge3/envs/t213/lib/python3.13/site-packages/torch/nn/modules/linear.py:134\x1b[39m, in \x1b[36mLinear.forward\x1b[39m\x1b[34m(self, input)\x1b[39m
\x1b[32m--> \x1b[39m\x1b[32m134\x1b[39m     \x1b[38;5;28;01mreturn\x1b[39;00m F.linear(\x1b[38;5;28minput\x1b[39m, \x1b[38;5;28mself\x1b[39m.weight, \x1b[38;5;28mself\x1b[39m.bias)

\x1b[31mRuntimeError\x1b[39m: Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_mm)
""")), expect="pytorch/tensors-on-different-devices", features=["torch 2.6+ new wording 'but got mat2 is on cpu, different from other tensors on cuda:0'", "IPython 9 ANSI style"])

# ---------------------------------------------------------------- torch-not-compiled-with-cuda
add(f"{D}/torch-not-compiled-with-cuda/windows_cpu_wheel.log", dedent(r"""
PS C:\Users\lena\sd-lora> python train_lora.py --device cuda
Traceback (most recent call last):
  File "C:\Users\lena\sd-lora\train_lora.py", line 52, in <module>
    unet.to(args.device)
  File "C:\Users\lena\AppData\Roaming\Python\Python311\site-packages\torch\nn\modules\module.py", line 1152, in to
    return self._apply(convert)
  File "C:\Users\lena\AppData\Roaming\Python\Python311\site-packages\torch\nn\modules\module.py", line 825, in _apply
    param_applied = fn(param)
  File "C:\Users\lena\AppData\Roaming\Python\Python311\site-packages\torch\cuda\__init__.py", line 289, in _lazy_init
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled
"""), expect="pytorch/torch-not-compiled-with-cuda", crlf=True, features=["PowerShell prompt", "Windows", "CRLF"])

add(f"{D}/torch-not-compiled-with-cuda/macos_jupyter_plain.log", dedent("""
---------------------------------------------------------------------------
AssertionError                            Traceback (most recent call last)
Cell In[3], line 1
----> 1 x = torch.randn(8, 3, 224, 224).cuda()

File /opt/homebrew/Caskroom/miniforge/base/envs/vision/lib/python3.11/site-packages/torch/cuda/__init__.py:310, in _lazy_init()
    305     raise RuntimeError(
    306         "Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
    307         "multiprocessing, you must use the 'spawn' start method"
    308     )
    309 if not hasattr(torch._C, "_cuda_getDeviceCount"):
--> 310     raise AssertionError("Torch not compiled with CUDA enabled")

AssertionError: Torch not compiled with CUDA enabled
"""), expect="pytorch/torch-not-compiled-with-cuda", features=["Jupyter without ANSI, source context lines contain other error text"])

# ---------------------------------------------------------------- cuda-driver-too-old
add(f"{D}/cuda-driver-too-old/runtimeerror_wrapped80.log", wrap80(dedent("""
Traceback (most recent call last):
  File "/home/ops/bench/run_bench.py", line 12, in <module>
    torch.cuda.set_device(0)
  File "/home/ops/.local/lib/python3.10/site-packages/torch/cuda/__init__.py", line 404, in set_device
    torch._C._cuda_setDevice(device)
  File "/home/ops/.local/lib/python3.10/site-packages/torch/cuda/__init__.py", line 298, in _lazy_init
    torch._C._cuda_init()
RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.
""")) + "\n", expect="pytorch/cuda-driver-too-old", features=["hard-wrapped at 80 columns (message split across lines)"])

add(f"{D}/cuda-driver-too-old/userwarning_only.log", dedent("""
/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:138: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11080). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)
  return torch._C._cuda_getDeviceCount() > 0
cuda available: False
Using device: cpu
epoch 1 | 12.7 s/it
"""), expect="pytorch/cuda-driver-too-old", features=["only a UserWarning, no exception"])

# ---------------------------------------------------------------- no-kernel-image-for-device
add(f"{D}/no-kernel-image-for-device/rtx5090_sm120_t26.log", dedent("""
/home/kw/comfy/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:235: UserWarning:
NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/

  warnings.warn(
Traceback (most recent call last):
  File "/home/kw/comfy/train_textual_inversion.py", line 77, in <module>
    latents = vae.encode(pixels.to("cuda", dtype=torch.float16)).latent_dist.sample()
RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""), expect="pytorch/no-kernel-image-for-device")

add(f"{D}/no-kernel-image-for-device/t213_v100_new_capability_warning.log", dedent("""
/opt/envs/t213/lib/python3.12/site-packages/torch/cuda/__init__.py:489: UserWarning: Found GPU0 Tesla V100-SXM2-32GB which is of compute capability (CC) 7.0.
The following list shows the CCs this version of PyTorch was built for and the hardware CCs it supports:
- 7.5 which supports hardware CC >=7.5,<8.0
- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}
- 8.6 which supports hardware CC >=8.6,<9.0 except {8.7}
- 9.0 which supports hardware CC >=9.0,<10.0
- 10.0 which supports hardware CC >=10.0,<11.0 except {10.1}
- 12.0 which supports hardware CC >=12.0,<13.0
Your installed torch==2.13.0+cu129 does not include kernels for this GPU. Reinstall the same version against a CUDA build that does, e.g.:
  For CUDA 12.6 use pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cu126
  queued_call()
Traceback (most recent call last):
  File "/srv/hpc/jobs/ddpm/sample.py", line 40, in <module>
    x = torch.randn(16, 3, 64, 64, device="cuda") * sigma
torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device
Search for `cudaErrorNoKernelImageForDevice' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
"""), expect="pytorch/no-kernel-image-for-device", features=["torch 2.12+ 'compute capability (CC)' warning", "torch.AcceleratorError"])

# ---------------------------------------------------------------- cpu-allocator-out-of-memory
add(f"{D}/cpu-allocator-out-of-memory/linux_enforce_fail.log", dedent("""
Loading checkpoint shards:  67%|██████▋   | 2/3 [01:41<00:50, 50.77s/it]
Traceback (most recent call last):
  File "/home/bo/merge/merge_lora.py", line 33, in <module>
    merged = model.merge_and_unload()
  File "/home/bo/.venv/lib/python3.10/site-packages/peft/tuners/lora/layer.py", line 470, in get_delta_weight
    output_tensor = transpose(weight_B @ weight_A, self.fan_in_fan_out) * self.scaling[adapter]
RuntimeError: [enforce fail at alloc_cpu.cpp:83] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 68719476736 bytes. Error code 12 (Cannot allocate memory)
"""), expect="pytorch/cpu-allocator-out-of-memory")

add(f"{D}/cpu-allocator-out-of-memory/windows_not_enough_memory.log", dedent(r"""
Traceback (most recent call last):
  File "C:\Users\wei\Documents\unet\predict.py", line 58, in <module>
    pred = model(torch.from_numpy(volume).unsqueeze(0))
  File "C:\Users\wei\miniconda3\lib\site-packages\torch\nn\modules\conv.py", line 608, in _conv_forward
    return F.conv3d(
RuntimeError: [enforce fail at ..\c10\core\impl\alloc_cpu.cpp:72] data. DefaultCPUAllocator: not enough memory: you tried to allocate 21474836480 bytes.
"""), expect="pytorch/cpu-allocator-out-of-memory", crlf=True, features=["Windows wording 'not enough memory' (not \"can't allocate memory\")", "CRLF"])

# ---------------------------------------------------------------- dataloader-worker-killed
add(f"{D}/dataloader-worker-killed/killed_chained.log", dedent("""
Traceback (most recent call last):
  File "/usr/lib/python3.10/multiprocessing/queues.py", line 113, in get
    if not self._poll(timeout):
  File "/usr/lib/python3.10/multiprocessing/connection.py", line 424, in _poll
    r = wait([self], timeout)
  File "/usr/lib/python3.10/selectors.py", line 416, in select
    fd_event_list = self._selector.poll(timeout)
  File "/home/lm/.venv/lib/python3.10/site-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 28873) is killed by signal: Killed. 

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/lm/ocr/train.py", line 210, in <module>
    for i, (img, tgt) in enumerate(loader):
  File "/home/lm/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1133, in _try_get_data
    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e
RuntimeError: DataLoader worker (pid(s) 28873) exited unexpectedly
"""), expect="pytorch/dataloader-worker-killed")

add(f"{D}/dataloader-worker-killed/exit_code_1_truncated.log", dedent("""
  File "/mnt/data/envs/det/lib/python3.9/site-packages/torch/utils/data/dataloader.py", line 1120, in _try_get_data
    raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str)) from e
RuntimeError: DataLoader worker (pid(s) 51210, 51214) exited unexpec
"""), expect="pytorch/dataloader-worker-killed", features=["truncated paste: only the last frame and half of the message"])

# ---------------------------------------------------------------- dataloader-insufficient-shm
add(f"{D}/dataloader-insufficient-shm/bus_error_docker.log", dedent("""
ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1132, in _try_get_data
    data = self._data_queue.get(timeout=timeout)
  File "/opt/conda/lib/python3.10/site-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 1872) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/workspace/yolo/train.py", line 301, in train
    for i, (imgs, targets, paths, _) in pbar:
RuntimeError: DataLoader worker (pid(s) 1872) exited unexpectedly
"""), expect="pytorch/dataloader-insufficient-shm", features=["both shm and worker-killed texts present; shm is the cause"])

import json as _json
_k8s_lines = [
    ("stdout", "Epoch 1/30: 100%|##########| 412/412 [03:02<00:00,  2.26it/s]\n"),
    ("stderr", "Traceback (most recent call last):\n"),
    ("stderr", "  File \"/app/train.py\", line 144, in <module>\n"),
    ("stderr", "    for batch in val_loader:\n"),
    ("stderr", "RuntimeError: DataLoader worker (pid 97) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n"),
]
k8s = "".join(_json.dumps({"log": t, "stream": s, "time": f"2024-10-02T06:11:0{i}.{417203301 + i * 1111}Z"}) + "\n" for i, (s, t) in enumerate(_k8s_lines))
add(f"{D}/dataloader-insufficient-shm/k8s_json_logs.log", k8s, expect="pytorch/dataloader-insufficient-shm",
    features=["Kubernetes/docker json-file log format: one JSON object per line, message in \"log\" with escaped quotes and \\n"])

# ---------------------------------------------------------------- cant-pickle-local-object
add(f"{D}/cant-pickle-local-object/py314_picklingerror_macos.log", dedent("""
Traceback (most recent call last):
  File "/Users/dana/proj/audio-cls/train.py", line 118, in <module>
    main()
  File "/Users/dana/proj/audio-cls/train.py", line 97, in main
    for wav, label in train_loader:
  File "/Users/dana/proj/audio-cls/.venv/lib/python3.14/site-packages/torch/utils/data/dataloader.py", line 491, in __iter__
    return self._get_iterator()
  File "/Users/dana/proj/audio-cls/.venv/lib/python3.14/site-packages/torch/utils/data/dataloader.py", line 1150, in __init__
    w.start()
  File "/opt/homebrew/Cellar/python@3.14/3.14.0/Frameworks/Python.framework/Versions/3.14/lib/python3.14/multiprocessing/process.py", line 121, in start
    self._popen = self._Popen(self)
  File "/opt/homebrew/Cellar/python@3.14/3.14.0/Frameworks/Python.framework/Versions/3.14/lib/python3.14/multiprocessing/reduction.py", line 60, in dump
    ForkingPickler(file, protocol).dump(obj)
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~^^^^^
_pickle.PicklingError: Can't pickle local object <function main.<locals>.<lambda> at 0x1068f2b60>
when serializing dict item 'collate_fn'
when serializing torch.utils.data.dataloader._MultiProcessingDataLoaderIter state
when serializing torch.utils.data.dataloader._MultiProcessingDataLoaderIter object
when serializing tuple item 1
"""), expect="pytorch/cant-pickle-local-object", features=["Python 3.14 wording: _pickle.PicklingError with object repr and 'when serializing' notes"])

add(f"{D}/cant-pickle-local-object/jupyter_spawn_cant_get_attribute.log", dedent("""
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/opt/homebrew/Cellar/python@3.11/3.11.9/Frameworks/Python.framework/Versions/3.11/lib/python3.11/multiprocessing/spawn.py", line 122, in spawn_main
    exitcode = _main(fd, parent_sentinel)
  File "/opt/homebrew/Cellar/python@3.11/3.11.9/Frameworks/Python.framework/Versions/3.11/lib/python3.11/multiprocessing/spawn.py", line 132, in _main
    self = reduction.pickle.load(from_parent)
AttributeError: Can't get attribute 'PadCollate' on <module '__main__' (built-in)>
---------------------------------------------------------------------------
Empty                                     Traceback (most recent call last)
File ~/venvs/nb/lib/python3.11/site-packages/torch/utils/data/dataloader.py:1243, in _MultiProcessingDataLoaderIter._try_get_data(self, timeout)
RuntimeError: DataLoader worker (pid(s) 71234) exited unexpectedly
"""), expect="pytorch/cant-pickle-local-object", features=["spawn child stderr mixed with notebook traceback", "worker-exited text also present (symptom)"])

# ---------------------------------------------------------------- state-dict-module-prefix
add(f"{D}/state-dict-module-prefix/resnet_module_prefix.log", dedent("""
Traceback (most recent call last):
  File "eval.py", line 31, in <module>
    model.load_state_dict(torch.load(args.ckpt, map_location="cpu"))
  File "/usr/local/lib/python3.8/dist-packages/torch/nn/modules/module.py", line 1671, in load_state_dict
    raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(
RuntimeError: Error(s) in loading state_dict for ResNet:
	Missing key(s) in state_dict: "conv1.weight", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var", "layer1.0.conv1.weight", "layer1.0.bn1.weight", "fc.weight", "fc.bias". 
	Unexpected key(s) in state_dict: "module.conv1.weight", "module.bn1.weight", "module.bn1.bias", "module.bn1.running_mean", "module.bn1.running_var", "module.bn1.num_batches_tracked", "module.layer1.0.conv1.weight", "module.layer1.0.bn1.weight", "module.fc.weight", "module.fc.bias". 
"""), expect="pytorch/state-dict-module-prefix")

keys = [f"encoder.layers.{i}.{p}" for i in range(48) for p in ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight", "self_attn.out_proj.weight", "mlp.fc1.weight", "mlp.fc2.weight", "norm1.weight", "norm2.weight")]
missing = ", ".join(f'"{k}"' for k in keys)
unexp = ", ".join(f'"_orig_mod.{k}"' for k in keys)
add(f"{D}/state-dict-module-prefix/compile_orig_mod_long_lines.log",
    "Traceback (most recent call last):\n  File \"/repo/scripts/export_onnx.py\", line 22, in <module>\n    net.load_state_dict(sd, strict=True)\n"
    "  File \"/repo/.venv/lib/python3.11/site-packages/torch/nn/modules/module.py\", line 2584, in load_state_dict\n    raise RuntimeError(\n"
    f"RuntimeError: Error(s) in loading state_dict for VisionTransformer:\n\tMissing key(s) in state_dict: {missing}. \n\tUnexpected key(s) in state_dict: {unexp}. \n",
    expect="pytorch/state-dict-module-prefix", features=["torch.compile '_orig_mod.' prefix instead of 'module.'", "very long lines (~18k chars)"])

# ---------------------------------------------------------------- mat1-mat2-shape-mismatch
add(f"{D}/mat1-mat2-shape-mismatch/jupyter_ansi.log", E(dedent(r"""
\x1b[0;31m---------------------------------------------------------------------------\x1b[0m
\x1b[0;31mRuntimeError\x1b[0m                              Traceback (most recent call last)
Cell \x1b[0;32mIn[41], line 1\x1b[0m
\x1b[0;32m----> 1\x1b[0m out \x1b[38;5;241m=\x1b[39m \x1b[43mnet\x1b[49m\x1b[43m(\x1b[49m\x1b[43mx\x1b[49m\x1b[43m)\x1b[49m

File \x1b[0;32m~/.local/lib/python3.10/site-packages/torch/nn/modules/linear.py:114\x1b[0m, in \x1b[0;36mLinear.forward\x1b[0;34m(self, input)\x1b[0m
\x1b[1;32m    113\x1b[0m \x1b[38;5;28;01mdef\x1b[39;00m \x1b[38;5;21mforward\x1b[39m(\x1b[38;5;28mself\x1b[39m, \x1b[38;5;28minput\x1b[39m: Tensor) \x1b[38;5;241m-\x1b[39m\x1b[38;5;241m>\x1b[39m Tensor:
\x1b[0;32m--> 114\x1b[0m     \x1b[38;5;28;01mreturn\x1b[39;00m \x1b[43mF\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mlinear\x1b[49m\x1b[43m(\x1b[49m\x1b[38;5;28;43minput\x1b[39;49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[38;5;28;43mself\x1b[39;49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mweight\x1b[49m\x1b[43m,\x1b[49m\x1b[43m \x1b[49m\x1b[38;5;28;43mself\x1b[39;49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mbias\x1b[49m\x1b[43m)\x1b[49m

\x1b[0;31mRuntimeError\x1b[0m: mat1 and mat2 shapes cannot be multiplied (64x2048 and 512x10)
""")), expect="pytorch/mat1-mat2-shape-mismatch", features=["Jupyter ANSI"])

add(f"{D}/mat1-mat2-shape-mismatch/lightning_sanity_windows_crlf.log", dedent(r"""
Sanity Checking DataLoader 0:   0%|          | 0/2 [00:00<?, ?it/s]Traceback (most recent call last):
  File "C:\dev\kws\train.py", line 64, in <module>
    trainer.fit(model, dm)
  File "C:\dev\kws\.venv\Lib\site-packages\lightning\pytorch\trainer\call.py", line 47, in _call_and_handle_interrupt
    return trainer_fn(*args, **kwargs)
  File "C:\dev\kws\models\crnn.py", line 51, in forward
    return self.classifier(x.flatten(1))
  File "C:\dev\kws\.venv\Lib\site-packages\torch\nn\modules\linear.py", line 125, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x7808 and 7680x35)
"""), expect="pytorch/mat1-mat2-shape-mismatch", crlf=True, features=["traceback glued after a progress bar", "Windows", "CRLF"])

# ---------------------------------------------------------------- inplace-modified-for-gradient
add(f"{D}/inplace-modified-for-gradient/relu_inplace_hint.log", dedent("""
Traceback (most recent call last):
  File "/home/sk/nerf/train.py", line 188, in <module>
    loss.backward()
  File "/home/sk/.venv/lib/python3.11/site-packages/torch/_tensor.py", line 581, in backward
    torch.autograd.backward(
  File "/home/sk/.venv/lib/python3.11/site-packages/torch/autograd/graph.py", line 825, in _engine_run_backward
    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [4096, 256]], which is output 0 of ReluBackward0, is at version 2; expected version 1 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).
"""), expect="pytorch/inplace-modified-for-gradient")

add(f"{D}/inplace-modified-for-gradient/anomaly_ddp_rankprefix.log", label(dedent("""
/env/lib/python3.10/site-packages/torch/autograd/graph.py:744: UserWarning: Error detected in CudnnBatchNormBackward0. Traceback of forward call that caused the error:
  File "/src/gan/train.py", line 90, in <module>
    fake_logits = D(fake.detach())
  File "/env/lib/python3.10/site-packages/torch/nn/modules/batchnorm.py", line 175, in forward
    return F.batch_norm(
 (Triggered internally at ../torch/csrc/autograd/python_anomaly_mode.cpp:111.)
  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
Traceback (most recent call last):
  File "/src/gan/train.py", line 104, in <module>
    d_loss.backward()
RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [512]] is at version 3; expected version 2 instead. Hint: the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!
"""), "[rank0]: ") + "\n", expect="pytorch/inplace-modified-for-gradient", root_rank=0, features=["anomaly-mode warning first", "[rank0]: prefix"])

# ---------------------------------------------------------------- backward-through-graph-twice
add(f"{D}/backward-through-graph-twice/gan_loop.log", dedent("""
[epoch 1/200] [batch 0/938] [D loss: 0.693] [G loss: 0.702]
Traceback (most recent call last):
  File "/home/mx/gan/dcgan.py", line 171, in <module>
    g_loss.backward()
  File "/home/mx/.local/lib/python3.9/site-packages/torch/_tensor.py", line 487, in backward
    torch.autograd.backward(
  File "/home/mx/.local/lib/python3.9/site-packages/torch/autograd/__init__.py", line 200, in backward
    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.
"""), expect="pytorch/backward-through-graph-twice")

add(f"{D}/backward-through-graph-twice/truncated_wrapped.log", wrap80(
    "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate val") + "\n",
    expect="pytorch/backward-through-graph-twice", features=["single line only, truncated and wrapped at 80"])

# ---------------------------------------------------------------- dtype-mismatch
add(f"{D}/dtype-mismatch/hf_bf16_expected_scalar.log", dedent("""
[WARNING|modeling_utils.py:4185] 2024-05-30 13:07:55,101 >> Some weights of RobertaForSequenceClassification were not initialized from the model checkpoint at roberta-large and are newly initialized: ['classifier.dense.bias', 'classifier.dense.weight', 'classifier.out_proj.bias', 'classifier.out_proj.weight']
Traceback (most recent call last):
  File "/home/yy/cls/run_glue_custom.py", line 410, in <module>
    logits = head(pooled.to(torch.bfloat16))
  File "/home/yy/.venv/lib/python3.10/site-packages/torch/nn/modules/linear.py", line 116, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: expected scalar type Float but found BFloat16
"""), expect="pytorch/dtype-mismatch")

add(f"{D}/dtype-mismatch/t20_m1_m2_wording.log", dedent("""
Traceback (most recent call last):
  File "/data/proj/clip-distill/distill.py", line 152, in <module>
    s_feat = proj(student(images))
  File "/data/proj/.venv/lib/python3.10/site-packages/torch/nn/modules/linear.py", line 114, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: expected m1 and m2 to have the same dtype, but got: c10::Half != float
"""), expect="pytorch/dtype-mismatch", features=["torch 2.0/2.1 wording 'expected m1 and m2 to have the same dtype, but got: c10::Half != float'"])

# ---------------------------------------------------------------- weights-only-load-failed
add(f"{D}/weights-only-load-failed/t26_numpy_global_ansi.log", E(dedent(r"""
Traceback (most recent call last):
  File "/home/fr/yolo/val.py", line 27, in <module>
    ckpt = torch.load(weights, map_location="cpu")
  File "/home/fr/.venv/lib/python3.12/site-packages/torch/serialization.py", line 1470, in load
    raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, \x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. 
	(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
	(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
	WeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray.scalar was not an allowed global by default. Please use `torch.serialization.add_safe_globals([scalar])` or the `torch.serialization.safe_globals([scalar])` context manager to allowlist this global if you trust this class/function.

Check the documentation of torch.load to learn more about types accepted by default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.
""")), expect="pytorch/weights-only-load-failed", features=["real ANSI bold inside the message"])

add(f"{D}/weights-only-load-failed/lightning_resume_wrapped.log", wrap80(dedent("""
Restoring states from the checkpoint path at /ckpt/run-0412/last.ckpt
Traceback (most recent call last):
  File "/code/asr/fit.py", line 88, in <module>
    trainer.fit(model, datamodule=dm, ckpt_path="last")
  File "/venv/lib/python3.11/site-packages/lightning/fabric/utilities/cloud_io.py", line 56, in _load
    return torch.load(f, map_location=map_location)
_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.
""")) + "\n", expect="pytorch/weights-only-load-failed", features=["wrapped at 80", "truncated after first sentence"])
