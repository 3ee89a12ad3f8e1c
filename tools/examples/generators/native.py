"""Real example logs for native crashes (kb/entries/native/).

A process killed by SIGSEGV, SIGBUS or SIGABRT prints no Python traceback; what a log shows is the
shell's one-line report ("Segmentation fault (core dumped)"), faulthandler's dump when it is on
(``python -X faulthandler``), libstdc++'s "terminate called after throwing ..." and torchrun's
summary.  Every crash here is real: ud2 run from an executable page (SIGILL, as a wheel built
for a newer CPU's instructions); ``ctypes.string_at(0)`` reads address 0 (SIGSEGV); a
file mapped with mmap and truncated under it is read past the new end (SIGBUS, as when a dataset file on
a shared filesystem is rewritten while training reads it); a small C++ library called through ctypes
lets an exception escape (std::terminate, then SIGABRT).

Needs torch (CPU build), bash and g++.  The shell line comes from a non-interactive bash
(``bash -c``), with core dumps allowed in the temporary folder, so it reads "(core dumped)" as on
most workstations.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import generate as gen
from generate import run_script

TRAIN_SEGV = r'''
import ctypes, sys
import torch

print("torch", torch.__version__, flush=True)
model = torch.nn.Linear(16, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(8, 16)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)

def collate_native(batch):
    # stands for an extension that dereferences a bad pointer (a wrong-ABI wheel, a freed buffer)
    return ctypes.string_at(0)

collate_native([1, 2, 3])
'''

TRAIN_SIGBUS = r'''
import mmap, os
import torch

ROW = 1024 * 4  # one row of 1024 float32
SHARD = "features-00000.bin"


def write_feature_shard(path, rows):
    with open(path, "wb") as fh:
        fh.write(bytes(ROW) * rows)


def read_mmap_row(mm, i):
    # a slice of the mapping copies the row: the page fault (and the SIGBUS) happens here
    return torch.frombuffer(mm[i * ROW:(i + 1) * ROW], dtype=torch.float32)


class MmapShardDataset(torch.utils.data.Dataset):
    """Rows of a feature shard read through mmap (as np.memmap, LMDB and Arrow datasets do)."""
    def __init__(self, path):
        self.fh = open(path, "rb")
        self.mm = mmap.mmap(self.fh.fileno(), 0, access=mmap.ACCESS_READ)
    def __len__(self):
        return len(self.mm) // ROW
    def __getitem__(self, i):
        return read_mmap_row(self.mm, i)


def rewrite_shard_in_place(path):
    # another job rewrites the file in place (same name, shorter) while this one still maps it
    os.truncate(path, 4096)


write_feature_shard(SHARD, 4096)
ds = MmapShardDataset(SHARD)
print("dataset rows", len(ds), flush=True)
for i in range(3):
    print("row", i, float(ds[i].sum()), flush=True)
rewrite_shard_in_place(SHARD)
print("reading row 4000", flush=True)
print(float(ds[4000].sum()))
'''

CPP_THROW = r'''
#include <stdexcept>
#include <new>
#include <cstddef>
extern "C" int load_shard(int which) {
    if (which == 0) {
        throw std::runtime_error("shard index out of range: 17 >= 16");
    }
    std::size_t n = (std::size_t)1 << 60;
    char *p = new char[n];   // std::bad_alloc
    return p[0];
}
'''

# for torchrun, which runs one script: build the library first, from the same source
CPP_LOADER = "import subprocess\nopen('shard.cpp', 'w').write(" + repr(CPP_THROW) + ")\n" + \
    "subprocess.run(['g++', '-shared', '-fPIC', '-O1', '-o', 'libshard.so', 'shard.cpp'], check=True)\n"

TRAIN_ABORT = r'''
import ctypes, sys
import torch

lib = ctypes.CDLL("./libshard.so")
print("torch", torch.__version__, flush=True)
which = int(sys.argv[1])
print("loading shard with the native reader", flush=True)
lib.load_shard(which)
'''


TRAIN_SIGILL = r'''
import ctypes, mmap
import torch

print("torch", torch.__version__, flush=True)
# stands for a wheel built for a newer CPU (AVX/AVX2/AVX-512) than this one: the first such
# instruction traps.  Here the instruction is ud2, which every x86-64 CPU refuses.
buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
buf.write(b"\x0f\x0b")
fn = ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))
print("calling the optimised kernel", flush=True)
fn()
'''

RUN_SH = """\
# run.sh: the job script a scheduler or a notebook cell starts
ulimit -c unlimited
python train.py "$@"
status=$?
echo "train.py exited with status $status"
exit $status
"""
# the same job script with faulthandler on, as the mapped-file entry's workaround advises
RUN_SH_FAULTHANDLER = RUN_SH.replace("python train.py", "python -X faulthandler train.py")


def run_shell(entry_id: str, name: str, files: dict[str, str], cmd: str, timeout: int = 180) -> Path:
    """Write ``files`` into a temporary folder, run ``cmd`` there under ``bash -c``, save the output."""
    with tempfile.TemporaryDirectory(prefix="fl-gen-") as tmp:
        for fname, text in files.items():
            Path(tmp, fname).write_text(text)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1",
               "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
        try:
            proc = subprocess.run(["bash", "-c", cmd], cwd=tmp, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=timeout)
            out = proc.stdout.decode("utf-8", errors="replace")
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or b"").decode("utf-8", errors="replace")
        out = gen.scrub(out, tmp)
    dest = gen.EXAMPLES / entry_id / f"{name}.real.log"
    why = gen._missing_error(entry_id, out)
    if why:
        gen.FAILED.append(f"{entry_id}/{name}: {why}")
        print(f"  KEPT {dest.relative_to(gen.REPO)}: {why}", file=sys.stderr)
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(out)
    print(f"  wrote {dest.relative_to(gen.REPO)} ({len(out.splitlines())} lines)")
    return dest


def generate() -> None:
    seg = "native/segmentation-fault"
    run_shell(seg, "shell-core-dumped", {"train.py": TRAIN_SEGV, "run.sh": RUN_SH},
              "bash run.sh --epochs 1")
    run_shell(seg, "faulthandler-dump", {"train.py": TRAIN_SEGV},
              "python -X faulthandler train.py")
    run_script(seg, "torchrun-signal-11", TRAIN_SEGV, torchrun={"nproc_per_node": 1})

    generate_sigbus()

    ill = "native/illegal-instruction"
    run_shell(ill, "ud2-shell", {"train.py": TRAIN_SIGILL, "run.sh": RUN_SH}, "bash run.sh")
    run_shell(ill, "ud2-faulthandler", {"train.py": TRAIN_SIGILL}, "python -X faulthandler train.py")
    run_script(ill, "ud2-torchrun", TRAIN_SIGILL, torchrun={"nproc_per_node": 1})

    ab = "native/cpp-terminate-abort"
    build = "g++ -shared -fPIC -O1 -o libshard.so shard.cpp && "
    run_shell(ab, "runtime-error-shell", {"shard.cpp": CPP_THROW, "train.py": TRAIN_ABORT, "run.sh": RUN_SH},
              build + "bash run.sh 0")
    run_shell(ab, "bad-alloc-faulthandler", {"shard.cpp": CPP_THROW, "train.py": TRAIN_ABORT},
              build + "python -X faulthandler train.py 1")
    run_script(ab, "bad-alloc-torchrun", CPP_LOADER + TRAIN_ABORT, args=["1"], torchrun={"nproc_per_node": 1})


def generate_sigbus() -> None:
    """The mapped-file SIGBUS logs, each with faulthandler on: its Python stack names the mmap read
    (a bare SIGBUS with no such word is the shared-memory entry's, pytorch/dataloader-insufficient-shm)."""
    bus = "native/sigbus-mapped-file"
    run_shell(bus, "truncated-mmap-shell", {"train.py": TRAIN_SIGBUS, "run.sh": RUN_SH_FAULTHANDLER},
              "bash run.sh")
    run_shell(bus, "truncated-mmap-faulthandler", {"train.py": TRAIN_SIGBUS},
              "python -X faulthandler train.py")
    run_script(bus, "truncated-mmap-torchrun", TRAIN_SIGBUS, torchrun={"nproc_per_node": 1},
               env={"PYTHONFAULTHANDLER": "1"})
