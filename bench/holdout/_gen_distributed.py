from bench.holdout._gen_common import E, add, dedent, label, wrap80

D = "pytorch"

# ---------------------------------------------------------------- nccl-timeout-allreduce
def _r(r, host):
    t = {0: "03:12:44.118273641", 1: "03:12:44.120991307", 2: "03:12:44.131450022", 3: "03:12:44.129007815"}[r]
    w = f"WorkNCCL(SeqNum=88213, OpType=_ALLGATHER_BASE, NumelIn=16777216, NumelOut=134217728, Timeout(ms)=1800000) ran for 18000{89+r} milliseconds before timing out."
    return dedent(f"""
    [rank{r}]:[E0917 {t} ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective operation timeout: {w}
    [rank{r}]:[E0917 {t} ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] Exception (either an error or timeout) detected by watchdog at work: 88213, last enqueued NCCL work: 88214, last completed NCCL work: 88212.
    [rank{r}]:[E0917 {t} ProcessGroupNCCL.cpp:1709] [PG 0 (default_pg) Rank {r}] Timeout at NCCL work: 88213, last enqueued NCCL work: 88214, last completed NCCL work: 88212.
    [rank{r}]:[E0917 {t} ProcessGroupNCCL.cpp:621] [Rank {r}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
    [rank{r}]:[E0917 {t} ProcessGroupNCCL.cpp:627] [Rank {r}] To avoid data inconsistency, we are taking the entire process down.
    [rank{r}]:[E0917 {t} ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank {r}] Process group watchdog thread terminated with exception: [Rank {r}] Watchdog caught collective operation timeout: {w}
    Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):
    frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f3a1c56cf86 in /opt/venv/lib/python3.11/site-packages/torch/lib/libc10.so)
    frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f39d1a8e8d2 in /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)
    frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f39d1a95313 in /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)
    frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d (0x7f39d1a96d8d in /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)
    frame #4: <unknown function> + 0xdc253 (0x7f3a1c0b0253 in /lib/x86_64-linux-gnu/libstdc++.so.6)
    frame #5: <unknown function> + 0x94ac3 (0x7f3a1d8f1ac3 in /lib/x86_64-linux-gnu/libc.so.6)
    frame #6: <unknown function> + 0x126850 (0x7f3a1d983850 in /lib/x86_64-linux-gnu/libc.so.6)

    terminate called after throwing an instance of 'c10::DistBackendError'
      what():  [PG 0 (default_pg) Rank {r}] Process group watchdog thread terminated with exception: [Rank {r}] Watchdog caught collective operation timeout: {w}
    """)

head = dedent("""
0: fsdp: sharding_strategy=FULL_SHARD  mixed_precision=bf16  world_size=4
1: fsdp: sharding_strategy=FULL_SHARD  mixed_precision=bf16  world_size=4
0: step 11020 | loss 2.0817 | lr 2.7e-04 | tok/s 48211
2: step 11020 | loss 2.0922 | lr 2.7e-04 | tok/s 48190
0: step 11030 | loss 2.0793 | lr 2.7e-04 | tok/s 48233
""")
body = "\n".join(label(_r(r, None), f"{r}: ") for r in (1, 0, 3, 2))
tail = dedent("""
srun: error: gpu-c014: task 1: Aborted (core dumped)
srun: error: gpu-c014: task 0: Aborted (core dumped)
srun: error: gpu-c015: tasks 2-3: Aborted (core dumped)
""")
add(f"{D}/nccl-timeout-allreduce/srun_fsdp_allgather_t24.log", head + body + "\n" + tail,
    expect="pytorch/nccl-timeout-allreduce",
    features=["srun --label 'N: ' prefixes", "torch 2.4 [rankN]:[E<MMDD> ...] C++ prefix", "OpType=_ALLGATHER_BASE", "all ranks time out on same SeqNum"])

add(f"{D}/nccl-timeout-allreduce/lightning_t113_broadcast_crlf.log", dedent(r"""
LOCAL_RANK: 1 - CUDA_VISIBLE_DEVICES: [0,1,2,3]
Epoch 7:  41%|████      | 1530/3712 [41:02<58:31,  1.61s/it, loss=2.113, v_num=14]
[E ProcessGroupNCCL.cpp:821] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=402117, OpType=BROADCAST, Timeout(ms)=600000) ran for 600846 milliseconds before timing out.
[E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[E ProcessGroupNCCL.cpp:461] To avoid data inconsistency, we are taking the entire process down.
Traceback (most recent call last):
  File "train_seg.py", line 212, in <module>
    trainer.fit(model, datamodule=dm)
  File "/opt/conda/lib/python3.9/site-packages/pytorch_lightning/trainer/trainer.py", line 608, in fit
    call._call_and_handle_interrupt(
  File "/opt/conda/lib/python3.9/site-packages/pytorch_lightning/trainer/call.py", line 36, in _call_and_handle_interrupt
    return trainer.strategy.launcher.launch(trainer_fn, *args, trainer=trainer, **kwargs)
  File "/opt/conda/lib/python3.9/site-packages/pytorch_lightning/strategies/launchers/subprocess_script.py", line 88, in launch
    return function(*args, **kwargs)
  File "/opt/conda/lib/python3.9/site-packages/pytorch_lightning/trainer/trainer.py", line 650, in _fit_impl
    self._run(model, ckpt_path=self.ckpt_path)
  File "/opt/conda/lib/python3.9/site-packages/pytorch_lightning/trainer/trainer.py", line 1112, in _run
    results = self._run_stage()
  File "/opt/conda/lib/python3.9/site-packages/pytorch_lightning/loops/epoch/training_epoch_loop.py", line 187, in advance
    batch = next(data_fetcher)
  File "/opt/conda/lib/python3.9/site-packages/pytorch_lightning/strategies/ddp.py", line 301, in broadcast
    torch.distributed.broadcast_object_list(obj, src, group=_group.WORLD)
  File "/opt/conda/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py", line 2007, in broadcast_object_list
    broadcast(object_sizes_tensor, src=src, group=group)
  File "/opt/conda/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py", line 1404, in broadcast
    work = default_pg.broadcast([tensor], opts)
RuntimeError: NCCL communicator was aborted on rank 1.  Original reason for failure was: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=402117, OpType=BROADCAST, Timeout(ms)=600000) ran for 600846 milliseconds before timing out.
"""), expect="pytorch/nccl-timeout-allreduce", crlf=True,
    features=["CRLF", "torch 1.13 wording (no NumelIn)", "Lightning wrapper", "OpType=BROADCAST"])

# ---------------------------------------------------------------- nccl-heartbeat-monitor-timeout
hb = dedent("""
[2024-07-19 01:58:02,117] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w gpu-h101,gpu-h102 export PYTHONPATH=/srv/jobs/moe7b; cd /srv/jobs/moe7b; /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJncHUtaDEwMSI6IFswLCAxXSwgImdwdS1oMTAyIjogWzAsIDFdfQ== --node_rank=%n --master_addr=10.31.7.4 --master_port=29733 pretrain.py --deepspeed ds_zero2.json
worker-0: [2024-07-19 01:58:05,420] [INFO] [launch.py:146:main] WORLD INFO DICT: {'gpu-h101': [0, 1], 'gpu-h102': [0, 1]}
worker-1: [2024-07-19 01:58:05,433] [INFO] [launch.py:152:main] nnodes=2, num_local_procs=2, node_rank=1
worker-1: [2024-07-19 01:58:05,434] [INFO] [launch.py:256:main] process 48113 spawned with command: ['/usr/bin/python', '-u', 'pretrain.py', '--local_rank=0', '--deepspeed', 'ds_zero2.json']
worker-1: [2024-07-19 01:58:05,436] [INFO] [launch.py:256:main] process 48114 spawned with command: ['/usr/bin/python', '-u', 'pretrain.py', '--local_rank=1', '--deepspeed', 'ds_zero2.json']
worker-0: [2024-07-19 02:05:44,902] [INFO] [logging.py:96:log_dist] [Rank 0] step=3400, skipped=0, lr=[0.00019], mom=[(0.9, 0.95)]
worker-1: [rank3]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 3] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=2
worker-1: [rank3]:[E ProcessGroupNCCL.cpp:1153] [PG 0 Rank 3] ProcessGroupNCCL preparing to dump debug info.
worker-1: [rank3]:[F ProcessGroupNCCL.cpp:1169] [PG 0 Rank 3] [PG 0 Rank 3] ProcessGroupNCCL's watchdog got stuck for 600 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api, or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to larger values or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang. workMetaList_.size() = 2
worker-1: [2024-07-19 02:40:31,902] [INFO] [launch.py:316:sigkill_handler] Killing subprocess 48113
worker-1: [2024-07-19 02:40:31,903] [INFO] [launch.py:316:sigkill_handler] Killing subprocess 48114
worker-1: [2024-07-19 02:40:32,611] [ERROR] [launch.py:322:sigkill_handler] ['/usr/bin/python', '-u', 'pretrain.py', '--local_rank=1', '--deepspeed', 'ds_zero2.json'] exits with return code = -6
pdsh@gpu-h101: gpu-h102: ssh exited with exit code 250
""")
add(f"{D}/nccl-heartbeat-monitor-timeout/deepspeed_pdsh_t23.log", hb, expect="pytorch/nccl-heartbeat-monitor-timeout", root_rank=3,
    features=["DeepSpeed runner + pdsh 'worker-N: ' prefixes", "torch 2.3 wording with 'Heartbeat monitor timed out!'"])

hb2 = dedent("""
W1103 22:25:51.006000 3318 torch/distributed/run.py:793]
W1103 22:25:51.006000 3318 torch/distributed/run.py:793] *****************************************
W1103 22:25:51.006000 3318 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
W1103 22:25:51.006000 3318 torch/distributed/run.py:793] *****************************************
[rank0]: iter 620/5000 loss=1.7731 grad_norm=0.412
[rank0]:[E1103 22:33:07.553201934 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1
[rank0]:[F1103 22:41:07.553876005 ProcessGroupNCCL.cpp:1306] [PG ID 0 PG GUID 0(default_pg) Rank 0] [PG ID 0 PG GUID 0(default_pg) Rank 0] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, CudaEventDestroy), or other deadlock-prone behaviors.If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to larger values or disable the heartbeat monitor (TORCH_NCCL_ENABLE_MONITORING=0).If either of aforementioned helps, feel free to file an issue to PyTorch about the short timeout or false positive abort; otherwise, please attempt to debug the hang.
[rank0]:[F1103 22:41:07.553911212 ProcessGroupNCCL.cpp:1338] [PG ID 0 PG GUID 0(default_pg) Rank 0] [PG ID 0 PG GUID 0(default_pg) Rank 0] Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.
W1103 22:41:09.771000 3318 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 3342 closing signal SIGTERM
E1103 22:41:10.114000 3318 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 3341) of binary: /usr/bin/python3
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper
    return f(*args, **kwargs)
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main
    run(args)
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 910, in run
    elastic_launch(
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 138, in __call__
    return launch_agent(self._config, self._entrypoint, list(args))
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 269, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
=======================================================
finetune_vit.py FAILED
-------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
-------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-11-03_22:41:09
  host      : l40s-box-02
  rank      : 0 (local_rank: 0)
  exitcode  : -6 (pid: 3341)
  error_file: <N/A>
  traceback : Signal 6 (SIGABRT) received by PID 3341
=======================================================
""")
add(f"{D}/nccl-heartbeat-monitor-timeout/torchrun_t25_watchdog_stuck.log", hb2, expect="pytorch/nccl-heartbeat-monitor-timeout", root_rank=0,
    features=["torch 2.5 PG GUID prefix", "2.5+ launcher W/E lines", "ChildFailedError SIGABRT wrapper after the cause"])

# ---------------------------------------------------------------- nccl-unhandled-system-error
sys_a = dedent("""
a100-pod-7c9f:2231:2231 [0] NCCL INFO Bootstrap : Using eth0:172.18.0.3<0>
a100-pod-7c9f:2231:2231 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation
a100-pod-7c9f:2231:2231 [0] NCCL INFO cudaDriverVersion 12020
NCCL version 2.18.1+cuda12.1
a100-pod-7c9f:2232:2291 [1] NCCL INFO Channel 00/02 :    0   1
a100-pod-7c9f:2232:2291 [1] NCCL INFO Channel 01/02 :    0   1
a100-pod-7c9f:2232:2291 [1] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-Xk2P1q to 9637892 bytes
a100-pod-7c9f:2232:2291 [1] misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Xk2P1q (size 9637888)
a100-pod-7c9f:2232:2291 [1] NCCL INFO transport/shm.cc:114 -> 2
a100-pod-7c9f:2232:2291 [1] NCCL INFO transport.cc:33 -> 2
a100-pod-7c9f:2232:2291 [1] NCCL INFO transport.cc:113 -> 2
a100-pod-7c9f:2232:2291 [1] NCCL INFO init.cc:1222 -> 2
a100-pod-7c9f:2232:2291 [1] NCCL INFO init.cc:1501 -> 2
a100-pod-7c9f:2232:2232 [1] NCCL INFO init.cc:1746 -> 2
Traceback (most recent call last):
  File "/workspace/pretrain.py", line 301, in <module>
    main()
  File "/workspace/pretrain.py", line 244, in main
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/parallel/distributed.py", line 795, in __init__
    _verify_param_shape_across_processes(self.process_group, parameters)
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/utils.py", line 265, in _verify_param_shape_across_processes
    return dist._verify_params_across_processes(process_group, tensors, logger)
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1251, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. 
Last error:
Error while creating shared memory segment /dev/shm/nccl-Xk2P1q (size 9637888)
""")
add(f"{D}/nccl-unhandled-system-error/docker_shm_t21.log", sys_a, expect="pytorch/nccl-unhandled-system-error",
    features=["NCCL_DEBUG=INFO noise", "torch 2.1 DistBackendError", "Last error: shm segment"])

sys_b = label(dedent("""
gpu-b12:31904:31904 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to ib0
gpu-b12:31904:31904 [0] bootstrap.cc:45 NCCL WARN Bootstrap : no socket interface found
gpu-b12:31904:31904 [0] NCCL INFO init.cc:82 -> 3
gpu-b12:31904:31904 [0] NCCL INFO init.cc:101 -> 3
Traceback (most recent call last):
  File "/home/jlin/mae/main_pretrain.py", line 377, in <module>
    main(args)
  File "/home/jlin/mae/main_pretrain.py", line 131, in main
    misc.init_distributed_mode(args)
  File "/home/jlin/mae/util/misc.py", line 241, in init_distributed_mode
    torch.distributed.barrier()
  File "/home/jlin/.conda/envs/mae/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 3145, in barrier
    work = default_pg.barrier(opts=opts)
RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled system error, NCCL version 2.14.3
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. It can be also caused by unexpec
"""), "1: ")
add(f"{D}/nccl-unhandled-system-error/srun_t113_truncated.log", sys_b + "\n", expect="pytorch/nccl-unhandled-system-error", root_rank=1,
    features=["srun '1: ' prefix", "torch 1.13 RuntimeError", "truncated paste mid-sentence", "NCCL <2.18 wording without '(run with NCCL_DEBUG…)'"])

# ---------------------------------------------------------------- nccl-invalid-usage-duplicate-gpu
def dup(r, other):
    return label(dedent(f"""
Traceback (most recent call last):
  File "/mnt/code/ft_llama.py", line 88, in <module>
    model = DDP(model, device_ids=[local_rank])
  File "/mnt/envs/ft/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 825, in __init__
    _verify_param_shape_across_processes(self.process_group, parameters)
  File "/mnt/envs/ft/lib/python3.11/site-packages/torch/distributed/utils.py", line 288, in _verify_param_shape_across_processes
    return dist._verify_params_across_processes(process_group, tensors, logger)
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5
ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
Last error:
Duplicate GPU detected : rank {r} and rank {other} both on CUDA device 1a000
"""), f"[rank{r}]: ")
add(f"{D}/nccl-invalid-usage-duplicate-gpu/rankprefix_t23_twice.log",
    "local_rank=0 device=cuda:0\nlocal_rank=1 device=cuda:0\n" + dup(1, 0) + "\n" + dup(0, 1) + "\n",
    expect="pytorch/nccl-invalid-usage-duplicate-gpu",
    features=["[rankN]: python prefix (2.3+)", "error appears twice (both ranks)"])

add(f"{D}/nccl-invalid-usage-duplicate-gpu/t214_nccl230_multi_rank_same_gpu.log", dedent("""
W0219 10:04:12.332000 90211 torch/distributed/run.py:811] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default
[rank3]: Traceback (most recent call last):
[rank3]:   File "/data/users/okafor/llm-eval/train_rm.py", line 57, in <module>
[rank3]:     dist.barrier(device_ids=[torch.cuda.current_device()])
[rank3]:   File "/data/users/okafor/.venv/lib/python3.12/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper
[rank3]:     return func(*args, **kwargs)
[rank3]:   File "/data/users/okafor/.venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", line 4931, in barrier
[rank3]:     work = group.barrier(opts=opts)
[rank3]: torch.distributed.DistBackendError: NCCL error in: /__w/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:94, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.30.7
[rank3]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
[rank3]: Last error:
[rank3]: Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.
E0219 10:04:19.006000 90211 torch/distributed/elastic/multiprocessing/api.py:984] failed (exitcode: 1) local_rank: 3 (pid: 90240) of binary: /data/users/okafor/.venv/bin/python3
"""), expect="pytorch/nccl-invalid-usage-duplicate-gpu", root_rank=3,
    features=["torch 2.14 / NCCL 2.30 new wording (no 'Duplicate GPU detected')", "/__w/pytorch path"])

# ---------------------------------------------------------------- nccl-unhandled-cuda-error
add(f"{D}/nccl-unhandled-cuda-error/hf_trainer_t22_p2p.log", dedent("""
[INFO|trainer.py:1721] 2024-02-27 18:40:09,551 >> ***** Running training *****
[INFO|trainer.py:1722] 2024-02-27 18:40:09,551 >>   Num examples = 51,760
[INFO|trainer.py:1723] 2024-02-27 18:40:09,551 >>   Num Epochs = 3
gpu-w3:9917:10022 [2] transport/p2p.cc:275 NCCL WARN Cuda failure 'peer access is not supported between these two devices'
gpu-w3:9917:10022 [2] NCCL INFO transport/p2p.cc:327 -> 1
gpu-w3:9917:10022 [2] NCCL INFO transport.cc:165 -> 1
Traceback (most recent call last):
  File "/home/ml/alpaca/train.py", line 222, in <module>
    train()
  File "/home/ml/alpaca/train.py", line 216, in train
    trainer.train()
  File "/home/ml/venv/lib/python3.10/site-packages/transformers/trainer.py", line 1539, in train
    return inner_training_loop(
  File "/home/ml/venv/lib/python3.10/site-packages/transformers/trainer.py", line 1687, in _inner_training_loop
    model = self._wrap_model(self.model_wrapped)
  File "/home/ml/venv/lib/python3.10/site-packages/transformers/trainer.py", line 1534, in _wrap_model
    model = nn.parallel.DistributedDataParallel(
  File "/home/ml/venv/lib/python3.10/site-packages/torch/nn/parallel/distributed.py", line 809, in __init__
    _verify_param_shape_across_processes(self.process_group, parameters)
  File "/home/ml/venv/lib/python3.10/site-packages/torch/distributed/utils.py", line 269, in _verify_param_shape_across_processes
    return dist._verify_params_across_processes(process_group, tensors, logger)
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3
ncclUnhandledCudaError: Call to CUDA function failed.
Last error:
Cuda failure 'peer access is not supported between these two devices'
"""), expect="pytorch/nccl-unhandled-cuda-error",
    features=["HF Trainer INFO lines", "torch 2.2"])

parts = []
parts.append(label(dedent("""
[rank2]:[E0412 16:03:27.559314112 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 2] Process group watchdog thread terminated with exception: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5
ncclUnhandledCudaError: Call to CUDA function failed.
Last error:
Cuda failure 'unspecified launch failure'
Exception raised from checkForNCCLErrorsInternal at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7fe0c3b76446 in /venv/lib/python3.11/site-packages/torch/lib/libc10.so)
frame #1: c10d::ProcessGroupNCCL::checkForNCCLErrorsInternal(std::shared_ptr<c10d::NCCLComm>&) + 0x220 (0x7fe07a2d5a40 in /venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)
terminate called after throwing an instance of 'c10::DistBackendError'
"""), "2: "))
for r in (0, 1, 3):
    parts.append(label(f"[rank{r}]:[E0412 16:13:28.0{r}2345678 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7713, OpType=ALLREDUCE, NumelIn=52428800, NumelOut=52428800, Timeout(ms)=600000) ran for 600017 milliseconds before timing out.\n"
                       f"[rank{r}]:[E0412 16:13:28.0{r}2399120 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank {r}] failure detected by watchdog at work sequence id: 7713 PG status: last enqueued work: 7713, last completed work: 7712", f"{r}: "))
parts.append("srun: error: node-q07: task 2: Aborted\nsrun: error: node-q06: tasks 0-1: Aborted\nsrun: error: node-q07: task 3: Aborted")
add(f"{D}/nccl-unhandled-cuda-error/srun_async_watchdog_multirank.log", "\n".join(parts) + "\n",
    expect="pytorch/nccl-unhandled-cuda-error", root_rank=2,
    features=["multi-rank: rank 2 fails first, ranks 0/1/3 time out 10 min later", "srun labels", "async watchdog variant 'NCCL error: unhandled cuda error'"])

# ---------------------------------------------------------------- nccl-remote-error
add(f"{D}/nccl-remote-error/ib_retry_exceeded_t26.log", dedent("""
gpu-r2n07:118823:119504 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer 10.44.3.17<41623> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.44.3.18 remoteGids::ffff:10.44.3.17
gpu-r2n07:118823:119504 [3] NCCL INFO transport/net.cc:1298 -> 6
gpu-r2n07:118823:119504 [3] NCCL INFO proxy.cc:694 -> 6
gpu-r2n07:118823:119504 [3] NCCL INFO proxy.cc:874 -> 6 [Progress Thread]
[rank11]:[E0522 07:55:03.441229761 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 11] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5
ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
Last error:
NET/IB : Got completion from peer 10.44.3.17<41623> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:10.44.3.18 remoteGids::ffff:10.44.3.17
Exception raised from checkForNCCLErrorsInternal at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2210 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f11d2b6c1b6 in /opt/pytorch/lib/python3.12/site-packages/torch/lib/libc10.so)
terminate called after throwing an instance of 'c10::DistBackendError'
  what():  [PG ID 0 PG GUID 0(default_pg) Rank 11] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5
"""), expect="pytorch/nccl-remote-error", root_rank=11, features=["NET/IB status=12", "torch 2.6 /pytorch path"])

add(f"{D}/nccl-remote-error/deepspeed_socket_closed_t21.log", label(dedent("""
gpu-b07:5521:5690 [1] misc/socket.cc:538 NCCL WARN socketProgress: Connection closed by remote peer gpu-b04.cluster<34871>
gpu-b07:5521:5690 [1] NCCL INFO misc/socket.cc:549 -> 6
gpu-b07:5521:5690 [1] NCCL INFO transport/net_socket.cc:474 -> 6
Traceback (most recent call last):
  File "/srv/ds/step3_rlhf/main.py", line 512, in <module>
    main()
  File "/srv/ds/step3_rlhf/main.py", line 471, in main
    loss = engine.backward(loss)
  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/engine.py", line 1929, in backward
    self.allreduce_gradients()
  File "/usr/local/lib/python3.10/dist-packages/deepspeed/comm/comm.py", line 117, in log_wrapper
    return func(*args, **kwargs)
  File "/usr/local/lib/python3.10/dist-packages/deepspeed/comm/torch.py", line 175, in all_reduce
    return torch.distributed.all_reduce(tensor=tensor, op=op, group=group, async_op=async_op)
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, remote process exited or there was a network error, NCCL version 2.18.1
ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
Last error:
socketProgress: Connection closed by remote peer gpu-b04.cluster<34871>
"""), "worker-3: ") + "\n", expect="pytorch/nccl-remote-error", features=["pdsh 'worker-3: ' prefix", "DeepSpeed traceback"])

# ---------------------------------------------------------------- nccl-not-built
add(f"{D}/nccl-not-built/windows_cmd_crlf.log", dedent(r"""
(dl) C:\Users\mkowal\projects\detr-ft>python -m torch.distributed.run --nproc_per_node=2 main.py --coco_path D:\datasets\coco
NOTE: Redirects are currently not supported in Windows or MacOs.
Traceback (most recent call last):
  File "C:\Users\mkowal\projects\detr-ft\main.py", line 248, in <module>
    main(args)
  File "C:\Users\mkowal\projects\detr-ft\main.py", line 64, in main
    utils.init_distributed_mode(args)
  File "C:\Users\mkowal\projects\detr-ft\util\misc.py", line 425, in init_distributed_mode
    torch.distributed.init_process_group(backend=args.dist_backend, init_method=args.dist_url,
  File "C:\Users\mkowal\miniconda3\envs\dl\lib\site-packages\torch\distributed\c10d_logger.py", line 79, in wrapper
    return func(*args, **kwargs)
  File "C:\Users\mkowal\miniconda3\envs\dl\lib\site-packages\torch\distributed\distributed_c10d.py", line 1305, in init_process_group
    default_pg, _ = _new_process_group_helper(
  File "C:\Users\mkowal\miniconda3\envs\dl\lib\site-packages\torch\distributed\distributed_c10d.py", line 1554, in _new_process_group_helper
    raise RuntimeError("Distributed package doesn't have NCCL built in")
RuntimeError: Distributed package doesn't have NCCL built in
"""), expect="pytorch/nccl-not-built", crlf=True, features=["Windows paths", "CRLF"])

add(f"{D}/nccl-not-built/macos_accelerate_ansi.log", E(dedent(r"""
\x1b[33mThe following values were not passed to `accelerate launch` and had defaults used instead:\x1b[0m
	`--num_machines` was set to a value of `1`
	`--mixed_precision` was set to a value of `'no'`
\x1b[1;31m[rank1]: Traceback (most recent call last):\x1b[0m
[rank1]:   File "/Users/priya.n/dev/tinyclip/train.py", line 41, in <module>
[rank1]:     torch.distributed.init_process_group("nccl")
[rank1]:   File "/Users/priya.n/dev/tinyclip/.venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", line 1781, in _new_process_group_helper
[rank1]:     raise RuntimeError("Distributed package doesn't have NCCL built in")
\x1b[1;31m[rank1]: RuntimeError: Distributed package doesn't have NCCL built in\x1b[0m
E0108 21:17:45.902000 8123 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 1 (pid: 8127) of binary: /Users/priya.n/dev/tinyclip/.venv/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-01-08_21:17:45
  host      : Priyas-MacBook-Pro.local
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 8127)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
""")), expect="pytorch/nccl-not-built", root_rank=1, features=["ANSI colour codes around the exception line", "macOS", "accelerate + ChildFailedError wrapper"])

# ---------------------------------------------------------------- store-timeout-waiting-for-clients
add(f"{D}/store-timeout-waiting-for-clients/torchrun_t22_master.log", dedent("""
[2024-03-14 11:02:17,405] torch.distributed.run: [WARNING]
[2024-03-14 11:02:17,405] torch.distributed.run: [WARNING] *****************************************
[2024-03-14 11:02:17,405] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
[2024-03-14 11:02:17,405] torch.distributed.run: [WARNING] *****************************************
Traceback (most recent call last):
  File "/opt/conda/bin/torchrun", line 33, in <module>
    sys.exit(load_entry_point('torch==2.2.1', 'console_scripts', 'torchrun')())
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 347, in wrapper
    return f(*args, **kwargs)
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py", line 812, in main
    run(args)
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 254, in launch_agent
    result = agent.run()
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/agent/server/api.py", line 566, in _rendezvous
    rdzv_info = spec.rdzv_handler.next_rendezvous()
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py", line 55, in next_rendezvous
    self._store = TCPStore(  # type: ignore[call-arg]
torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.
"""), expect="pytorch/store-timeout-waiting-for-clients", features=["torch 2.1-2.3 launcher prefix"])

add(f"{D}/store-timeout-waiting-for-clients/lightning_srun_4nodes.log", dedent("""
0: GPU available: True (cuda), used: True
0: TPU available: False, using: 0 TPU cores
0: Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4
2: Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3/4
1: Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4
0: Traceback (most recent call last):
0:   File "/lustre/home/vsingh/ocr/fit.py", line 96, in <module>
0:     trainer.fit(model, dm)
0:   File "/lustre/home/vsingh/envs/ocr/lib/python3.10/site-packages/lightning/pytorch/strategies/ddp.py", line 199, in setup_distributed
0:     _init_dist_connection(self.cluster_environment, self._process_group_backend, timeout=self._timeout)
0:   File "/lustre/home/vsingh/envs/ocr/lib/python3.10/site-packages/lightning/fabric/utilities/distributed.py", line 290, in _init_dist_connection
0:     torch.distributed.init_process_group(torch_distributed_backend, rank=global_rank, world_size=world_size, **kwargs)
0:   File "/lustre/home/vsingh/envs/ocr/lib/python3.10/site-packages/torch/distributed/rendezvous.py", line 174, in _create_c10d_store
0:     return TCPStore(
0: torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 3/4 clients joined.
srun: error: cn-0412: task 0: Exited with exit code 1
"""), expect="pytorch/store-timeout-waiting-for-clients", root_rank=0, features=["Lightning", "srun labels"])

# ---------------------------------------------------------------- tcpstore-address-in-use
add(f"{D}/tcpstore-address-in-use/torchrun_t21_bind_warnings.log", dedent("""
$ torchrun --nproc_per_node 8 --master_port 29500 train_gpt.py config/owt.py
[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).
[W socket.cpp:436] [c10d] The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).
[E socket.cpp:472] [c10d] The server socket has failed to listen on any local network address.
Traceback (most recent call last):
  File "/home/ana/.local/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/home/ana/.local/lib/python3.10/site-packages/torch/distributed/elastic/agent/server/api.py", line 723, in run
    result = self._invoke_run(role)
  File "/home/ana/.local/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py", line 55, in next_rendezvous
    self._store = TCPStore(  # type: ignore[call-arg]
torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).
"""), expect="pytorch/tcpstore-address-in-use", features=["torch 2.1 socket.cpp warnings"])

add(f"{D}/tcpstore-address-in-use/t25_libuv_eaddrinuse.log", dedent("""
W0611 09:47:30.418000 551902 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default
[W611 09:47:30.442159212 socket.cpp:752] [c10d] The server socket has failed to listen on [::]:29511 (errno: 98 - Address already in use).
Traceback (most recent call last):
  File "/scratch/zq/venvs/t25/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/scratch/zq/venvs/t25/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 198, in _create_c10d_store
    return TCPStore(
torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29511, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use
"""), expect="pytorch/tcpstore-address-in-use", features=["torch 2.4+ libuv wording (code: -98, name: EADDRINUSE)"])

# ---------------------------------------------------------------- tcpstore-connect-timeout
add(f"{D}/tcpstore-connect-timeout/worker_node_refused.log", dedent("""
[W socket.cpp:663] [c10d] The client socket has failed to connect to [head-node-7]:29400 (errno: 111 - Connection refused).
[W socket.cpp:663] [c10d] The client socket has failed to connect to [head-node-7]:29400 (errno: 111 - Connection refused).
[W socket.cpp:663] [c10d] The client socket has failed to connect to [head-node-7]:29400 (errno: 111 - Connection refused).
Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", line 238, in create_backend
    store = _create_tcp_store(params)
  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", line 162, in _create_tcp_store
    store = TCPStore(
torch.distributed.DistNetworkError: The client socket has timed out after 1800s while trying to connect to (head-node-7, 29400).
"""), expect="pytorch/tcpstore-connect-timeout")

add(f"{D}/tcpstore-connect-timeout/t24_wrapped80.log", wrap80(dedent("""
[W1021 08:17:43.552801183 socket.cpp:697] [c10d] The client socket has failed to connect to [10.8.0.12]:23456 (errno: 110 - Connection timed out).
[W1021 08:27:44.004173662 socket.cpp:697] [c10d] The client socket has failed to connect to [10.8.0.12]:23456 (errno: 110 - Connection timed out).
Traceback (most recent call last):
  File "/home/ubuntu/diffusion/train_unet.py", line 310, in <module>
    dist.init_process_group(backend="nccl", init_method="tcp://10.8.0.12:23456", world_size=16, rank=int(os.environ["RANK"]))
  File "/home/ubuntu/.venv/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 133, in _tcp_rendezvous_handler
    store = _create_c10d_store(result.hostname, result.port, rank, world_size, timeout, use_libuv)
torch.distributed.DistNetworkError: The client socket has timed out after 600000ms while trying to connect to (10.8.0.12, 23456).
""")) + "\n", expect="pytorch/tcpstore-connect-timeout", features=["lines hard-wrapped at 80 columns", "tcp:// init_method", "timeout printed in ms"])

# ---------------------------------------------------------------- elastic-child-failed
add(f"{D}/elastic-child-failed/t25_no_traceback.log", dedent("""
E0302 14:55:21.613000 140213 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 140240) of binary: /home/svc-train/miniforge3/envs/llm/bin/python
Traceback (most recent call last):
  File "/home/svc-train/miniforge3/envs/llm/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/home/svc-train/miniforge3/envs/llm/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper
    return f(*args, **kwargs)
  File "/home/svc-train/miniforge3/envs/llm/lib/python3.11/site-packages/torch/distributed/run.py", line 919, in main
    run(args)
  File "/home/svc-train/miniforge3/envs/llm/lib/python3.11/site-packages/torch/distributed/run.py", line 910, in run
    elastic_launch(
  File "/home/svc-train/miniforge3/envs/llm/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 138, in __call__
    return launch_agent(self._config, self._entrypoint, list(args))
  File "/home/svc-train/miniforge3/envs/llm/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 269, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
sft.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2025-03-02_14:55:21
  host      : dgx-07.lab.internal
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 140241)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-03-02_14:55:21
  host      : dgx-07.lab.internal
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 140240)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""), expect="pytorch/elastic-child-failed", features=["wrapper only, no child traceback"])

add(f"{D}/elastic-child-failed/t113_user_keyerror.log", dedent("""
WARNING:torch.distributed.run:
*****************************************
Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
*****************************************
Traceback (most recent call last):
  File "/opt/app/train_ner.py", line 155, in <module>
    main()
  File "/opt/app/train_ner.py", line 131, in main
    for step, batch in enumerate(train_dl):
  File "/opt/app/collate.py", line 22, in __call__
    ids = [f["input_ids"] for f in features]
KeyError: 'input_ids'
WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 20114 closing signal SIGTERM
ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 20113) of binary: /opt/conda/bin/python
Traceback (most recent call last):
  File "/opt/conda/bin/torchrun", line 33, in <module>
    sys.exit(load_entry_point('torch==1.13.1', 'console_scripts', 'torchrun')())
  File "/opt/conda/lib/python3.9/site-packages/torch/distributed/launcher/api.py", line 246, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train_ner.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2023-02-11_09:31:50
  host      : trainer-5d8b9
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 20113)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""), expect="pytorch/elastic-child-failed",
    note="the real cause (KeyError in user collate) has no KB entry; the only applicable entry is the launcher wrapper",
    features=["torch 1.13 launcher 'WARNING:torch.distributed...' prefix", "unknown user exception before wrapper"])

# ---------------------------------------------------------------- worker-sigkill-host-oom
add(f"{D}/worker-sigkill-host-oom/t25_launcher_sigkill.log", dedent("""
[rank2]: epoch 0 | step 8800 | loss 0.6613
W1204 09:13:55.402000 77812 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 77830 closing signal SIGTERM
W1204 09:13:55.403000 77812 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 77831 closing signal SIGTERM
W1204 09:13:55.404000 77812 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 77833 closing signal SIGTERM
E1204 09:13:56.118000 77812 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: 2 (pid: 77832) of binary: /home/trainer/.venv/bin/python3
Traceback (most recent call last):
  File "/home/trainer/.venv/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/home/trainer/.venv/lib/python3.12/site-packages/torch/distributed/launcher/api.py", line 269, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
========================================================
train_audio.py FAILED
--------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
--------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-12-04_09:13:55
  host      : ws-gpu-3090x4
  rank      : 2 (local_rank: 2)
  exitcode  : -9 (pid: 77832)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 77832
========================================================
"""), expect="pytorch/worker-sigkill-host-oom", root_rank=2)

add(f"{D}/worker-sigkill-host-oom/slurm_oom_kill_t22.log", dedent("""
[2024-03-08 14:22:10,551] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 41124 closing signal SIGTERM
[2024-03-08 14:22:10,552] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 0 (pid: 41123) of binary: /usr/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
==================================================
pretrain_bert.py FAILED
--------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
--------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-03-08_14:22:10
  host      : cpu-fat-03
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 41123)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 41123
==================================================
slurmstepd: error: Detected 1 oom_kill event in StepId=884213.0. Some of the step tasks have been OOM Killed.
srun: error: cpu-fat-03: task 0: Out Of Memory
"""), expect="pytorch/worker-sigkill-host-oom", features=["slurmstepd oom_kill line", "2.2 launcher prefix"])

# ---------------------------------------------------------------- default-process-group-not-initialized
add(f"{D}/default-process-group-not-initialized/jupyter_ansi_valueerror.log", E(dedent(r"""
\x1b[0;31m---------------------------------------------------------------------------\x1b[0m
\x1b[0;31mValueError\x1b[0m                                Traceback (most recent call last)
Cell \x1b[0;32mIn[14], line 1\x1b[0m
\x1b[0;32m----> 1\x1b[0m \x1b[43mdist\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43mbarrier\x1b[49m\x1b[43m(\x1b[49m\x1b[43m)\x1b[49m
\x1b[1;32m      2\x1b[0m \x1b[38;5;28mprint\x1b[39m(\x1b[38;5;124m"\x1b[39m\x1b[38;5;124mall ranks ready\x1b[39m\x1b[38;5;124m"\x1b[39m)

File \x1b[0;32m/opt/conda/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:81\x1b[0m, in \x1b[0;36m_exception_logger.<locals>.wrapper\x1b[0;34m(*args, **kwargs)\x1b[0m
\x1b[1;32m     78\x1b[0m \x1b[38;5;129m@functools\x1b[39m\x1b[38;5;241m.\x1b[39mwraps(func)
\x1b[0;32m---> 81\x1b[0m     \x1b[38;5;28;01mreturn\x1b[39;00m \x1b[43mfunc\x1b[49m\x1b[43m(\x1b[49m\x1b[38;5;241;43m*\x1b[39;49m\x1b[43margs\x1b[49m\x1b[43m)\x1b[49m

File \x1b[0;32m/opt/conda/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:1165\x1b[0m, in \x1b[0;36m_get_default_group\x1b[0;34m()\x1b[0m
\x1b[1;32m   1163\x1b[0m \x1b[38;5;28;01mif\x1b[39;00m \x1b[38;5;129;01mnot\x1b[39;00m is_initialized():
\x1b[0;32m-> 1165\x1b[0m     \x1b[38;5;28;01mraise\x1b[39;00m \x1b[38;5;167;01mValueError\x1b[39;00m(
\x1b[1;32m   1166\x1b[0m         \x1b[38;5;124m"\x1b[39m\x1b[38;5;124mDefault process group has not been initialized, \x1b[39m\x1b[38;5;124m"\x1b[39m

\x1b[0;31mValueError\x1b[0m: Default process group has not been initialized, please make sure to call init_process_group.
""")), expect="pytorch/default-process-group-not-initialized", features=["Jupyter ANSI traceback with '----> 1' arrows", "ValueError (2.x)"])

add(f"{D}/default-process-group-not-initialized/windows_syncbn_t112.log", dedent(r"""
Traceback (most recent call last):
  File "C:\Users\tomas.r\code\seg\train.py", line 188, in <module>
    out = model(images)
  File "C:\Users\tomas.r\AppData\Local\Programs\Python\Python39\lib\site-packages\torch\nn\modules\module.py", line 1130, in _call_impl
    return forward_call(*input, **kwargs)
  File "C:\Users\tomas.r\AppData\Local\Programs\Python\Python39\lib\site-packages\torch\nn\modules\batchnorm.py", line 732, in forward
    world_size = torch.distributed.get_world_size(process_group)
  File "C:\Users\tomas.r\AppData\Local\Programs\Python\Python39\lib\site-packages\torch\distributed\distributed_c10d.py", line 867, in get_world_size
    return _get_group_size(group)
  File "C:\Users\tomas.r\AppData\Local\Programs\Python\Python39\lib\site-packages\torch\distributed\distributed_c10d.py", line 325, in _get_group_size
    default_pg = _get_default_group()
  File "C:\Users\tomas.r\AppData\Local\Programs\Python\Python39\lib\site-packages\torch\distributed\distributed_c10d.py", line 429, in _get_default_group
    raise RuntimeError(
RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.
"""), expect="pytorch/default-process-group-not-initialized", crlf=True, features=["Windows", "CRLF", "torch 1.12 RuntimeError"])

# ---------------------------------------------------------------- ddp-unused-parameters
UNUSED = ("Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. "
          "You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
          "making sure all `forward` function outputs participate in calculating loss. \n"
          "If you already have done the above, then the distributed data parallel module wasn't able to locate the output tensors in the return value of your module's `forward` function. Please include the loss function and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable).\n")
add(f"{D}/ddp-unused-parameters/rankprefix_t24_indices.log", label(dedent(f"""
Traceback (most recent call last):
  File "/code/detr3d/tools/train.py", line 141, in <module>
    loss_dict = model(batch)
  File "/env/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1747, in _call_impl
    return forward_call(*args, **kwargs)
  File "/env/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1636, in forward
    inputs, kwargs = self._pre_forward(*inputs, **kwargs)
  File "/env/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1527, in _pre_forward
    if torch.is_grad_enabled() and self.reducer._rebuild_buckets():
RuntimeError: {UNUSED}Parameter indices which did not receive grad for rank 1: 220 221 306
 In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out information about which particular parameters did not receive gradient on this rank as part of this error
"""), "[rank1]: ") + "\n", expect="pytorch/ddp-unused-parameters", root_rank=1)

lt = dedent(f"""
Epoch 0:   0%|          | 1/2207 [00:04<2:41:33,  4.39s/it, v_num=3]
Traceback (most recent call last):
  File "/gpfs/u/kchen/vqa/run.py", line 77, in <module>
    trainer.fit(lit_model, datamodule=dm)
  File "/gpfs/u/kchen/envs/vqa/lib/python3.10/site-packages/lightning/pytorch/loops/optimization/automatic.py", line 315, in _training_step
    training_step_output = call._call_strategy_hook(trainer, "training_step", *kwargs.values())
  File "/gpfs/u/kchen/envs/vqa/lib/python3.10/site-packages/lightning/pytorch/strategies/ddp.py", line 329, in training_step
    return self.model(*args, **kwargs)
  File "/gpfs/u/kchen/envs/vqa/lib/python3.10/site-packages/torch/nn/parallel/distributed.py", line 1505, in forward
    inputs, kwargs = self._pre_forward(*inputs, **kwargs)
  File "/gpfs/u/kchen/envs/vqa/lib/python3.10/site-packages/torch/nn/parallel/distributed.py", line 1399, in _pre_forward
    if torch.is_grad_enabled() and self.reducer._rebuild_buckets():
RuntimeError: {UNUSED}Parameters which did not receive grad for rank {{R}}: text_proj.bias, text_proj.weight
Parameter indices which did not receive grad for rank {{R}}: 412 413
""")
add(f"{D}/ddp-unused-parameters/lightning_srun_twice.log",
    label(lt.replace("{R}", "0"), "0: ") + "\n" + label(lt.replace("{R}", "1"), "1: ") + "\nsrun: error: gn-17: tasks 0-1: Exited with exit code 1\n",
    expect="pytorch/ddp-unused-parameters", features=["srun labels on a multi-line message", "error appears twice", "Lightning 2.x", "TORCH_DISTRIBUTED_DEBUG=DETAIL names"])

# ---------------------------------------------------------------- ddp-mark-variable-ready-twice
TWICE = ("Expected to mark a variable ready only once. This error is caused by one of the following reasons: 1) Use of a module parameter outside the `forward` function. Please make sure model parameters are not shared across multiple concurrent forward-backward passes. or try to use _set_static_graph() as a workaround if this module graph does not change during training loop.2) Reused parameters in multiple reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same part of your model, it would result in the same set of parameters been used by different reentrant backward passes multiple times, and hence marking a variable ready multiple times. DDP does not support such use cases in default. You can try to use _set_static_graph() as a workaround if your module graph does not change over iterations.\n")
add(f"{D}/ddp-mark-variable-ready-twice/peft_gc_rankprefix.log", label(dedent(f"""
Traceback (most recent call last):
  File "/home/dev/qlora/sft.py", line 203, in <module>
    trainer.train()
  File "/home/dev/.venv/lib/python3.10/site-packages/transformers/trainer.py", line 3477, in training_step
    self.accelerator.backward(loss, **kwargs)
  File "/home/dev/.venv/lib/python3.10/site-packages/accelerate/accelerator.py", line 2151, in backward
    loss.backward(**kwargs)
  File "/home/dev/.venv/lib/python3.10/site-packages/torch/autograd/__init__.py", line 289, in backward
    _engine_run_backward(
  File "/home/dev/.venv/lib/python3.10/site-packages/torch/utils/checkpoint.py", line 319, in backward
    torch.autograd.backward(outputs_with_grad, args_with_grad)
RuntimeError: {TWICE}Parameter at index 195 with name base_model.model.model.layers.11.mlp.down_proj.lora_B.default.weight has been marked as ready twice. This means that multiple autograd engine  hooks have fired for this particular parameter during this iteration.
"""), "[rank0]: ") + "\n", expect="pytorch/ddp-mark-variable-ready-twice", root_rank=0)

add(f"{D}/ddp-mark-variable-ready-twice/t19_wrapped80_truncated.log", wrap80(dedent(f"""
  File "/usr/local/lib/python3.8/dist-packages/torch/autograd/__init__.py", line 154, in backward
    Variable._execution_engine.run_backward(
RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following reasons: 1) Use of a module parameter outside the `forward` function. Please make sure model parameters are not shared across multiple concurrent forward-backward passes. or try to use _set_static_graph() as a workaround if this module graph does not change during training loop.2) Reused parameters in multiple reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same part of your model, it would result in the same set of parameters been used by different reentrant backward passes multiple times
""")) + "\n", expect="pytorch/ddp-mark-variable-ready-twice", features=["wrapped at 80 columns", "truncated paste (no traceback head, message cut)", "torch 1.10-era"])

# ---------------------------------------------------------------- collective-mismatch-detected
FP = "TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))"
add(f"{D}/collective-mismatch-detected/detail_t23.log", dedent(f"""
[rank3]: Traceback (most recent call last):
[rank3]:   File "/proj/rl/ppo_ddp.py", line 290, in <module>
[rank3]:     dist.broadcast(weights_version, src=0)
[rank3]:   File "/proj/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2213, in broadcast
[rank3]:     work = group.broadcast([tensor], opts)
[rank3]: RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is running collective: CollectiveFingerPrint(SequenceNumber=1432, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Long, TensorDeviceTypes={FP}), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=1432, OpType=ALLREDUCE, TensorShape=[2048], TensorDtypes=Float, TensorDeviceTypes={FP}).Collectives differ in the following aspects: 	 Op type: BROADCASTvs ALLREDUCE  Tensor Tensor shapes: 1vs 2048  Tensor Tensor dtypes: Longvs Float
"""), expect="pytorch/collective-mismatch-detected", root_rank=3)

add(f"{D}/collective-mismatch-detected/gloo_cpu_wrapped.log", wrap80(dedent(f"""
TORCH_DISTRIBUTED_DEBUG=DETAIL python -m torch.distributed.run --nproc_per_node=2 sim.py
Traceback (most recent call last):
  File "sim.py", line 44, in <module>
    dist.all_gather(out, t)
RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=7, OpType=ALLGATHER, TensorShape=[4, 256], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=7, OpType=ALLGATHER, TensorShape=[3, 256], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects:   Tensor Tensor shapes: 4, 256vs 3, 256
""")) + "\n", expect="pytorch/collective-mismatch-detected", features=["wrapped at 80 columns", "gloo/CPU"])

# ---------------------------------------------------------------- gloo-collective-timeout
add(f"{D}/gloo-collective-timeout/cpu_recv_timeout.log", dedent("""
rank 0: starting epoch 12
Traceback (most recent call last):
  File "/home/rs/federated/server.py", line 118, in <module>
    dist.all_reduce(grad_buf, op=dist.ReduceOp.SUM)
  File "/home/rs/miniconda3/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 1700, in all_reduce
    work.wait()
RuntimeError: [/opt/conda/conda-bld/pytorch_1699449201336/work/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete
"""), expect="pytorch/gloo-collective-timeout")

add(f"{D}/gloo-collective-timeout/peer_closed_rankprefix.log", dedent("""
[rank0]: Traceback (most recent call last):
[rank0]:   File "/app/eval_ddp.py", line 71, in <module>
[rank0]:     dist.all_gather_object(results, local_results)
[rank0]:   File "/usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2854, in all_gather_object
[rank0]:     all_gather(object_size_list, local_size, group=group)
[rank0]:   File "/usr/local/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3305, in all_gather
[rank0]:     work.wait()
[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.12.0.41]:28117
"""), expect="pytorch/gloo-collective-timeout", root_rank=0)

# ---------------------------------------------------------------- uneven-inputs-epoch-end-hang
def wd(r, seq, numel, t):
    return (f"[rank{r}]:[E0814 {t} ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n"
            f"[rank{r}]:[E0814 {t} ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.\n")
add(f"{D}/uneven-inputs-epoch-end-hang/filtered_shards_t25.log",
    "[rank0]: rank 0: kept 179968/180000 samples after length filter -> 2812 batches\n"
    "[rank1]: rank 1: kept 180032/180000 samples after length filter -> 2813 batches\n"
    "[rank0]: epoch 3 step 2812/2812 loss 0.912 -- running validation\n"
    "[rank1]: epoch 3 step 2812/2813 loss 0.930\n"
    + wd(0, 45001, 2, "05:41:19.006734112") + wd(1, 45001, 25557032, "05:41:19.007015823")
    + "E0814 05:41:21.332000 2204 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 2210) of binary: /usr/bin/python\n",
    expect="pytorch/uneven-inputs-epoch-end-hang",
    features=["no dedicated message: watchdog timeouts with same SeqNum but different NumelIn at an epoch boundary", "per-rank batch counts differ"])

add(f"{D}/uneven-inputs-epoch-end-hang/lightning_epoch_end_t21.log", dedent("""
Epoch 0:  99%|█████████▉| 1571/1572 [18:22<00:00,  1.43it/s, loss=0.221, v_num=0]
Epoch 0: 100%|██████████| 1572/1572 [18:23<00:00,  1.43it/s, loss=0.219, v_num=0]
Validation: 0it [00:00, ?it/s]
[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9433, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800532 milliseconds before timing out.
[E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9433, OpType=ALLREDUCE, NumelIn=14714688, NumelOut=14714688, Timeout(ms)=1800000) ran for 1800541 milliseconds before timing out.
[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.
"""), expect="pytorch/uneven-inputs-epoch-end-hang",
    features=["rank 0 at 1572/1572 (epoch end) vs rank 1 at 1571", "torch 2.1 no-timestamp prefix"])
