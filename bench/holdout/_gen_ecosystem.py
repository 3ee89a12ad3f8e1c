from bench.holdout._gen_common import E, add, dedent, label, wrap80

# ---------------------------------------------------------------- accelerate/multi-node-launch-hang
add("accelerate/multi-node-launch-hang/node1_no_route.log", dedent("""
$ accelerate launch --config_file multi.yaml --machine_rank 1 train_sft.py
The following values were not passed to `accelerate launch` and had defaults used instead:
	`--dynamo_backend` was set to a value of `'no'`
To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.
[W socket.cpp:464] [c10d] The client socket has failed to connect to [10.0.3.5]:29500 (errno: 113 - No route to host).
[W socket.cpp:464] [c10d] The client socket has failed to connect to [10.0.3.5]:29500 (errno: 113 - No route to host).
[W socket.cpp:464] [c10d] The client socket has failed to connect to [10.0.3.5]:29500 (errno: 113 - No route to host).
^CTraceback (most recent call last):
  File "/home/mk/.venv/bin/accelerate", line 8, in <module>
    sys.exit(main())
KeyboardInterrupt
"""), expect="accelerate/multi-node-launch-hang", features=["no error: stall + client-socket warnings, user Ctrl-C"])

add("accelerate/multi-node-launch-hang/main_node_silent_stall.log", dedent("""
[2025-02-14 16:20:03] user@gpu-m01:~/proj$ accelerate launch --num_machines 2 --num_processes 16 --machine_rank 0 --main_process_ip 192.168.40.11 --main_process_port 29555 pretrain.py
The following values were not passed to `accelerate launch` and had defaults used instead:
	`--mixed_precision` was set to a value of `'no'`
	`--dynamo_backend` was set to a value of `'no'`
To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.
W0214 16:20:09.512000 7741 torch/distributed/run.py:793]
W0214 16:20:09.512000 7741 torch/distributed/run.py:793] *****************************************
W0214 16:20:09.512000 7741 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
W0214 16:20:09.512000 7741 torch/distributed/run.py:793] *****************************************
[2025-02-14 16:52:40] (no output for 32 minutes; second node was never started)
"""), expect="accelerate/multi-node-launch-hang", features=["pure hang, no error line at all"])

# ---------------------------------------------------------------- deepspeed/zero3-partitioned-parameter-empty
add("deepspeed/zero3-partitioned-parameter-empty/embedding_weight_2d.log", dedent("""
[2024-09-03 12:44:10,218] [INFO] [partition_parameters.py:345:__exit__] finished initializing model - num_params = 291, num_elems = 6.74B
[2024-09-03 12:44:31,907] [INFO] [config.py:1000:print]   zero_optimization ............ {'stage': 3, 'offload_param': {'device': 'cpu'}, 'stage3_gather_16bit_weights_on_model_save': True}
embedding shape before resize: torch.Size([0])
Traceback (most recent call last):
  File "/ws/llm/extend_vocab.py", line 58, in <module>
    new_emb = torch.nn.functional.embedding(ids, model.get_input_embeddings().weight)
  File "/ws/llm/.venv/lib/python3.10/site-packages/torch/nn/functional.py", line 2264, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
RuntimeError: 'weight' must be 2-D
"""), expect="deepspeed/zero3-partitioned-parameter-empty")

add("deepspeed/zero3-partitioned-parameter-empty/size_mismatch_vec0.log", label(dedent("""
[2024-11-21 08:02:11,330] [INFO] [engine.py:142:__init__] is_pipe_partitioned= False is_grad_partitioned= False
Traceback (most recent call last):
  File "/opt/rm/score.py", line 71, in <module>
    reward = torch.mv(hidden, value_head.weight.squeeze(0))
RuntimeError: size mismatch, got input (32), mat (32x4096), vec (0)
"""), "worker-0: ") + "\n", expect="deepspeed/zero3-partitioned-parameter-empty", features=["pdsh prefix"])

# ---------------------------------------------------------------- pytorch/fsdp-flatten-uniform
add("pytorch/fsdp-flatten-uniform/dtype_rankprefix_t23.log", dedent("""
[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/ft/llama-recipes/finetune.py", line 161, in main
[rank1]:     model = FSDP(model, auto_wrap_policy=wrap_policy, mixed_precision=mp_policy, device_id=torch.cuda.current_device())
[rank1]:   File "/home/ft/.venv/lib/python3.10/site-packages/torch/distributed/fsdp/_wrap_utils.py", line 111, in _auto_wrap
[rank1]:     _recursive_wrap(**recursive_wrap_kwargs, **root_kwargs)  # type: ignore[arg-type]
[rank1]:   File "/home/ft/.venv/lib/python3.10/site-packages/torch/distributed/fsdp/_flat_param.py", line 760, in _validate_tensors_to_flatten
[rank1]:     raise ValueError(
[rank1]: ValueError: Must flatten tensors with uniform dtype but got torch.bfloat16 and torch.float32
"""), expect="pytorch/fsdp-flatten-uniform", root_rank=1)

add("pytorch/fsdp-flatten-uniform/t20_flatparameter_requires_grad.log", dedent("""
Traceback (most recent call last):
  File "/mnt/exp/lora_fsdp.py", line 95, in <module>
    model = FullyShardedDataParallel(model, auto_wrap_policy=policy)
  File "/mnt/exp/env/lib/python3.10/site-packages/torch/distributed/fsdp/flat_param.py", line 381, in _init_flat_param
    raise ValueError("`FlatParameter` requires uniform `requires_grad`")
ValueError: `FlatParameter` requires uniform `requires_grad`
"""), expect="pytorch/fsdp-flatten-uniform", features=["torch 2.0 wording"])

# ---------------------------------------------------------------- transformers/tokenizer-missing-pad-token
add("transformers/tokenizer-missing-pad-token/hf_trainer_llama.log", dedent("""
Map: 100%|██████████| 9846/9846 [00:03<00:00, 2711.23 examples/s]
Traceback (most recent call last):
  File "/home/ra/sft/train.py", line 99, in <module>
    trainer.train()
  File "/home/ra/.venv/lib/python3.11/site-packages/transformers/data/data_collator.py", line 271, in __call__
    batch = pad_without_fast_tokenizer_warning(
  File "/home/ra/.venv/lib/python3.11/site-packages/transformers/tokenization_utils_base.py", line 3380, in pad
    raise ValueError(
ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.
"""), expect="transformers/tokenizer-missing-pad-token")

add("transformers/tokenizer-missing-pad-token/jupyter_truncated.log", E(dedent(r"""
\x1b[0;31mValueError\x1b[0m: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as `pad_token` `(tokenizer.pad_token = tok
""")), expect="transformers/tokenizer-missing-pad-token", features=["ANSI", "truncated"])

# ---------------------------------------------------------------- peft/target-modules-not-found
add("peft/target-modules-not-found/peft_0_10_valueerror.log", dedent("""
Traceback (most recent call last):
  File "/work2/ll/qlora_phi.py", line 64, in <module>
    model = get_peft_model(model, lora_config)
  File "/work2/ll/.venv/lib/python3.10/site-packages/peft/tuners/tuners_utils.py", line 375, in inject_adapter
    raise ValueError(
ValueError: Target modules {'q_proj', 'v_proj'} not found in the base model. Please check the target modules and try again.
"""), expect="peft/target-modules-not-found")

add("peft/target-modules-not-found/peft_021_nomatching_layers.log", dedent("""
Traceback (most recent call last):
  File "/srv/adapters/build.py", line 30, in <module>
    peft_model = get_peft_model(base, cfg)
  File "/srv/adapters/.venv/lib/python3.12/site-packages/peft/tuners/tuners_utils.py", line 1075, in inject_adapter
    raise NoMatchingPeftModuleError(error_msg)
peft.utils.error.NoMatchingPeftModuleError: Target modules {'query_key_value'} not found in the base model. Please check the target modules and try again. Note: You specified 'layers_to_transform': [20, 21, 22, 23]. You also specified 'layers_pattern': 'h'.
"""), expect="peft/target-modules-not-found", features=["peft 0.21 NoMatchingPeftModuleError type"])

# ---------------------------------------------------------------- bitsandbytes/compiled-without-gpu-support
add("bitsandbytes/compiled-without-gpu-support/bnb041_userwarning_nonetype.log", dedent("""
/usr/local/lib/python3.10/dist-packages/bitsandbytes/cextension.py:34: UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.
  warn("The installed version of bitsandbytes was compiled without GPU support. "
'NoneType' object has no attribute 'cadam32bit_grad_fp32'
"""), expect="bitsandbytes/compiled-without-gpu-support")

add("bitsandbytes/compiled-without-gpu-support/bnb046_logger.log", dedent("""
2025-06-02 11:20:41,553 - bitsandbytes.cextension - WARNING - The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers and GPU quantization are unavailable.
Traceback (most recent call last):
  File "C:\\Users\\hn\\llm\\load4bit.py", line 14, in <module>
    model = AutoModelForCausalLM.from_pretrained(mid, quantization_config=bnb_cfg, device_map="auto")
  File "C:\\Users\\hn\\llm\\.venv\\Lib\\site-packages\\transformers\\quantizers\\quantizer_bnb_4bit.py", line 84, in validate_environment
    raise ImportError(
ImportError: Using `bitsandbytes` 4-bit quantization requires the latest version of bitsandbytes: `pip install -U bitsandbytes`
"""), expect="bitsandbytes/compiled-without-gpu-support", features=["bnb 0.46 wording via logger", "misleading downstream ImportError"])

# ---------------------------------------------------------------- huggingface-hub/offline-cannot-connect
add("huggingface-hub/offline-cannot-connect/transformers_436_oserror.log", dedent("""
Traceback (most recent call last):
  File "/home/hpc/u1123/.local/lib/python3.10/site-packages/transformers/utils/hub.py", line 389, in cached_file
    resolved_file = hf_hub_download(
  File "/home/hpc/u1123/.local/lib/python3.10/site-packages/huggingface_hub/file_download.py", line 1371, in hf_hub_download
    raise LocalEntryNotFoundError(
huggingface_hub.utils._errors.LocalEntryNotFoundError: An error happened while trying to locate the file on the Hub and we cannot find the requested files in the local cache. Please check your connection and try again or make sure your Internet connection is on.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/hpc/u1123/proj/embed.py", line 9, in <module>
    tok = AutoTokenizer.from_pretrained("BAAI/bge-large-en-v1.5")
  File "/home/hpc/u1123/.local/lib/python3.10/site-packages/transformers/utils/hub.py", line 429, in cached_file
    raise EnvironmentError(
OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached files and it looks like BAAI/bge-large-en-v1.5 is not the path to a directory containing a file named config.json.
Checkout your internet connection or see how to run the library in offline mode at 'https://huggingface.co/docs/transformers/installation#offline-mode'.
"""), expect="huggingface-hub/offline-cannot-connect")

add("huggingface-hub/offline-cannot-connect/hf_hub_offline_env.log", dedent("""
HF_HUB_OFFLINE=1
Traceback (most recent call last):
  File "/scratch/eval/run_mteb.py", line 21, in <module>
    path = snapshot_download("intfloat/e5-mistral-7b-instruct", revision="main")
  File "/scratch/eval/.venv/lib/python3.11/site-packages/huggingface_hub/_snapshot_download.py", line 233, in snapshot_download
    raise LocalEntryNotFoundError(
huggingface_hub.errors.LocalEntryNotFoundError: Cannot find an appropriate cached snapshot folder for the specified revision on the local disk and outgoing traffic has been disabled. To enable repo look-ups and downloads online, pass 'local_files_only=False' as input.
"""), expect="huggingface-hub/offline-cannot-connect", features=["huggingface_hub.errors path (>=0.25)", "snapshot_download wording"])
