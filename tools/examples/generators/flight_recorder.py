"""Real logs of the Flight Recorder trace analyzer (python -m torch.distributed.flight_recorder.fr_trace).

Four gloo ranks under torchrun record their collectives (TORCH_FR_BUFFER_SIZE), one rank
diverges (skips a collective, or calls a different one), every rank dumps its buffer with
torch._C._distributed_c10d._dump_fr_trace(), and the analyzer reads the dumps. The gloo
dumps of torch 2.13 leave pg_config empty (the NCCL ones name each group), so the driver
fills it in for the default group exactly as the NCCL dump writes it
({"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}}) before the analysis.
"""
from __future__ import annotations

from generate import run_script

RANKS_NOT_JOINING = "pytorch/flight-recorder-ranks-not-joining"
COLLECTIVE_ERRORS = "pytorch/flight-recorder-collective-errors"

_DRIVER = r'''
import os, pickle, subprocess, sys
CASE = {case!r}
WORKER = """
import os, time, datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r = dist.get_rank()
grads = torch.ones(1024)
for _ in range(3):
    dist.all_reduce(grads)
if os.environ["CASE"] == "missing":
    if r != 2:
        dist.all_reduce(grads, async_op=True)   # rank 2 went elsewhere (e.g. evaluation on its own)
else:
    if r == 0:
        dist.broadcast(grads, 0, async_op=True)  # rank 0 takes another branch
    else:
        dist.all_reduce(grads, async_op=True)
time.sleep(2)
os.makedirs("traces", exist_ok=True)
open(f"traces/rank_{{r}}", "wb").write(torch._C._distributed_c10d._dump_fr_trace())
os._exit(0)
"""
open("worker.py", "w").write(WORKER)
env = dict(os.environ, CASE=CASE, TORCH_FR_BUFFER_SIZE="2000")
subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=4",
                "--master_port={port}", "worker.py"], env=env, stdout=subprocess.DEVNULL,
               stderr=subprocess.DEVNULL, timeout=120)
for f in sorted(os.listdir("traces")):
    p = os.path.join("traces", f)
    d = pickle.load(open(p, "rb"))
    d["pg_config"] = {{"0": {{"name": "0", "desc": "default_pg", "ranks": "[0, 1, 2, 3]"}}}}
    pickle.dump(d, open(p, "wb"))
print("$ python -m torch.distributed.flight_recorder.fr_trace traces", flush=True)
out = subprocess.run([sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace", "traces"],
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print("\n".join(l for l in out.stdout.splitlines()
                if "NumPy" not in l and "_conversion_method_template" not in l))
'''


def generate() -> None:
    from generate import _free_port
    run_script(RANKS_NOT_JOINING, "fr-trace-4ranks-rank2-missing",
               _DRIVER.format(case="missing", port=_free_port()), timeout=240)
    run_script(COLLECTIVE_ERRORS, "fr-trace-4ranks-broadcast-vs-allreduce",
               _DRIVER.format(case="type", port=_free_port()), timeout=240)
