from bench.holdout._gen_common import E, add, dedent, label

N = "negative"

add(f"{N}/user_runtimeerror_timeout.log", dedent("""
Traceback (most recent call last):
  File "/srv/evalkit/run_eval.py", line 203, in <module>
    wait_for_server(url, timeout=300)
  File "/srv/evalkit/utils.py", line 41, in wait_for_server
    raise RuntimeError(f"Timed out waiting for inference server at {url} after {timeout} seconds")
RuntimeError: Timed out waiting for inference server at http://127.0.0.1:8011 after 300 seconds
"""), expect=None)

add(f"{N}/redis_timeout.log", dedent("""
Traceback (most recent call last):
  File "/app/.venv/lib/python3.11/site-packages/redis/connection.py", line 357, in connect
    sock = self.retry.call_with_retry(
  File "/app/.venv/lib/python3.11/site-packages/redis/connection.py", line 733, in _connect
    raise err
  File "/app/.venv/lib/python3.11/site-packages/redis/connection.py", line 721, in _connect
    sock.connect(socket_address)
TimeoutError: timed out

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/app/feature_cache.py", line 58, in get_features
    blob = r.get(f"feat:{sample_id}")
redis.exceptions.TimeoutError: Timeout connecting to server
"""), expect=None)

add(f"{N}/k8s_oomkilled_sidecar.log", dedent("""
$ kubectl describe pod feature-store-7d9c8b6f4-kx2qz -n ml-serving
Name:             feature-store-7d9c8b6f4-kx2qz
Namespace:        ml-serving
Containers:
  redis-cache:
    Image:          redis:7.2-alpine
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
      Started:      Tue, 04 Jun 2024 03:11:52 +0000
      Finished:     Tue, 04 Jun 2024 03:19:07 +0000
    Restart Count:  14
    Limits:
      memory:  512Mi
Events:
  Type     Reason     Age                  From     Message
  ----     ------     ----                 ----     -------
  Warning  BackOff    2m (x61 over 47m)    kubelet  Back-off restarting failed container redis-cache in pod feature-store-7d9c8b6f4-kx2qz_ml-serving(0b4f1c2e-1e55-4a43-9d8a-5b3c1d7e9f20)
"""), expect=None)

add(f"{N}/tensorflow_resource_exhausted.log", dedent("""
2024-04-22 10:14:33.901251: W tensorflow/core/common_runtime/bfc_allocator.cc:479] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.00GiB (rounded to 4294967296)requested by op MatMul
2024-04-22 10:14:33.901774: W tensorflow/core/framework/op_kernel.cc:1828] OP_REQUIRES failed at matmul_op_impl.h:728 : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[64,4096,4096] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
Traceback (most recent call last):
  File "/home/tf/train_keras.py", line 77, in <module>
    model.fit(ds, epochs=20)
tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:

OOM when allocating tensor with shape[64,4096,4096] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
	 [[{{node model/dense_3/MatMul}}]]
Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info.
"""), expect=None)

add(f"{N}/jax_xla_oom.log", dedent("""
2024-08-19 21:03:55.402118: W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.00GiB with freed_by_count=0.
Traceback (most recent call last):
  File "/home/jx/flax_lm/train.py", line 188, in <module>
    state, metrics = p_train_step(state, batch)
jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.
BufferAssignment OOM Debugging.
BufferAssignment stats:
             parameter allocation:    1.02GiB
              constant allocation:         0B
"""), expect=None)

add(f"{N}/numpy_broadcast.log", dedent("""
Traceback (most recent call last):
  File "/home/an/metrics/compute_ece.py", line 34, in <module>
    err = np.abs(conf - acc) * counts
ValueError: operands could not be broadcast together with shapes (64,10) (64,) 
"""), expect=None)

add(f"{N}/pickle_joblib_not_dataloader.log", dedent("""
Traceback (most recent call last):
  File "/opt/etl/build_index.py", line 91, in <module>
    joblib.dump(pipeline, "artifacts/pipeline.joblib")
  File "/opt/etl/.venv/lib/python3.10/site-packages/joblib/numpy_pickle.py", line 553, in dump
    NumpyPickler(f, protocol=protocol).dump(value)
  File "/usr/lib/python3.10/pickle.py", line 578, in save
    rv = reduce(self.proto)
TypeError: cannot pickle '_thread.RLock' object
"""), expect=None)

add(f"{N}/http_503_model_server.log", dedent("""
Traceback (most recent call last):
  File "/srv/judge/score.py", line 112, in <module>
    resp.raise_for_status()
  File "/srv/judge/.venv/lib/python3.11/site-packages/requests/models.py", line 1021, in raise_for_status
    raise HTTPError(http_error_msg, response=self)
requests.exceptions.HTTPError: 503 Server Error: Service Unavailable for url: http://tgi-llama.internal:8080/generate
"""), expect=None)

add(f"{N}/triton_out_of_resources.log", dedent("""
Traceback (most recent call last):
  File "/home/kr/kernels/bench_attn.py", line 60, in <module>
    out = flash_fwd[grid](q, k, v, o, BLOCK_M=128, BLOCK_N=128, num_stages=4)
  File "/home/kr/.venv/lib/python3.11/site-packages/triton/runtime/jit.py", line 345, in <lambda>
    return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)
  File "/home/kr/.venv/lib/python3.11/site-packages/triton/compiler/compiler.py", line 393, in _init_handles
    raise OutOfResources(self.metadata.shared, max_shared, "shared memory")
triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.
"""), expect=None)

add(f"{N}/vllm_kv_cache.log", dedent("""
INFO 03-11 09:22:41 [gpu_model_runner.py:1595] Model loading took 14.9889 GiB and 11.204 seconds
ERROR 03-11 09:22:58 [core.py:396] EngineCore failed to start.
ERROR 03-11 09:22:58 [core.py:396] ValueError: To serve at least one request with the models's max seq len (32768), (4.00 GiB KV cache is needed, which is larger than the available KV cache memory (2.61 GiB). Based on the available memory, the estimated maximum model length is 21344. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
"""), expect=None)

add(f"{N}/torch_save_disk_full.log", dedent("""
Traceback (most recent call last):
  File "/home/sl/pretrain/train.py", line 512, in save_checkpoint
    torch.save(state, path)
  File "/home/sl/.venv/lib/python3.10/site-packages/torch/serialization.py", line 628, in save
    with _open_zipfile_writer(f) as opened_zipfile:
  File "/home/sl/.venv/lib/python3.10/site-packages/torch/serialization.py", line 476, in __exit__
    self.file_like.write_end_of_file()
RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 2313427264 vs 2313427152

During handling of the above exception, another exception occurred:

OSError: [Errno 28] No space left on device
"""), expect=None)

add(f"{N}/tensor_size_mismatch_broadcast.log", dedent("""
Traceback (most recent call last):
  File "/code/vit/model.py", line 77, in forward
    x = x + self.pos_embed
RuntimeError: The size of tensor a (197) must match the size of tensor b (257) at non-singleton dimension 1
"""), expect=None)

add(f"{N}/slurm_time_limit_multirank.log", dedent("""
0: step 48000 | loss 1.9981 | 3.71 s/step
1: step 48000 | loss 2.0014 | 3.71 s/step
slurmstepd: error: *** STEP 771234.0 ON gpu-a12 CANCELLED AT 2024-06-02T04:00:11 DUE TO TIME LIMIT ***
slurmstepd: error: *** JOB 771234 ON gpu-a12 CANCELLED AT 2024-06-02T04:00:11 DUE TO TIME LIMIT ***
srun: Job step aborted: Waiting up to 32 seconds for job step to finish.
srun: error: gpu-a12: tasks 0-1: Terminated
srun: Force Terminated StepId=771234.0
"""), expect=None)

add(f"{N}/batch_size_mismatch_loss.log", dedent("""
Traceback (most recent call last):
  File "/home/qq/asr/ctc_train.py", line 140, in <module>
    loss = criterion(logits.view(-1, logits.size(-1)), targets)
  File "/home/qq/.venv/lib/python3.10/site-packages/torch/nn/functional.py", line 3086, in cross_entropy
    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
ValueError: Expected input batch_size (2048) to match target batch_size (32).
"""), expect=None)

add(f"{N}/libcudnn_missing.log", dedent("""
Traceback (most recent call last):
  File "/opt/svc/asr_server.py", line 3, in <module>
    import onnxruntime as ort
2024-12-09 15:41:07.882013 [E:onnxruntime:Default, provider_bridge_ort.cc:1862 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1539 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.8: cannot open shared object file: No such file or directory
"""), expect=None)

add(f"{N}/asyncio_timeout_downloader.log", dedent("""
Traceback (most recent call last):
  File "/data/crawl/fetch_images.py", line 88, in fetch
    async with session.get(url, timeout=aiohttp.ClientTimeout(total=30)) as r:
  File "/usr/lib/python3.11/asyncio/timeouts.py", line 115, in __aexit__
    raise TimeoutError from exc_val
TimeoutError
Task exception was never retrieved: Connection timeout to host https://images.example-cdn.net/shard-0041/img_88123.jpg
"""), expect=None)

add(f"{N}/postgres_connection_refused.log", dedent("""
sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "mlflow-db.internal" (10.20.1.9), port 5432 failed: Connection refused
	Is the server running on that host and accepting TCP/IP connections?
(Background on this error at: https://sqlalche.me/e/20/e3q8)
"""), expect=None)
