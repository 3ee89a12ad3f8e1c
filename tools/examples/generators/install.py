"""Real example logs for installation and build entries.

Covers pytorch/cpp-extension-build-failed (torch.utils.cpp_extension.load_inline with code that does
not compile, built by the real compiler and ninja), install/pip-no-matching-distribution-torch (pip
offered only wheels built for other Pythons or platforms, as on a too-new interpreter) and
numpy/compiled-against-numpy1 (the C-API handshake an extension built against NumPy 1.x performs) and
setuptools/pkg-resources-missing (legacy pkg_resources imports under a setuptools without it).

Needs torch (CPU build) with its headers, a C++ compiler (g++) and ninja on PATH, and pip in the
same venv.  Nothing is downloaded: pip runs with --no-index on a local folder.
"""
from __future__ import annotations

from generate import run_script

# ------------------------------------------------------------------ torch C++ extensions that fail
EXT_SYNTAX = r'''
import torch
from torch.utils.cpp_extension import load_inline

print("torch", torch.__version__, flush=True)
cpp = """
#include <torch/extension.h>
torch::Tensor fused_gelu(torch::Tensor x) {
    auto y = 0.5 * x * (1 + torch::tanh(0.79788456 * (x + 0.044715 * x.pow(3)))
    return y;
}
"""
mod = load_inline(name="fused_gelu_ext", cpp_sources=[cpp], functions=["fused_gelu"], verbose=False)
'''

EXT_MISSING_HEADER = r'''
import os, torch
from torch.utils.cpp_extension import load_inline

cpp = """
#include <torch/extension.h>
#include <cuda_runtime.h>
int device_count() { int n = 0; cudaGetDeviceCount(&n); return n; }
"""
print(f"[build] JIT-compiling ops on rank {os.environ.get('RANK', 0)}", flush=True)
mod = load_inline(name="dev_count_ext", cpp_sources=[cpp], functions=["device_count"], verbose=True)
'''

EXT_OLD_API = r'''
import torch
from torch.utils.cpp_extension import load_inline

print("building roi_align from a 2020 repository", flush=True)
cpp = """
#include <torch/extension.h>
#include <THC/THC.h>          // THC was removed from PyTorch in 1.11
at::Tensor roi_align_forward(const at::Tensor& input, const at::Tensor& rois) {
    THCudaCheck(cudaGetLastError());
    return input;
}
"""
mod = load_inline(name="roi_align_ext", cpp_sources=[cpp], functions=["roi_align_forward"], verbose=False)
'''

# ---------------------------------------------------------------------------------- pip and torch
PIP_DRIVER = r'''
import os, pathlib, subprocess, sys
wheels = pathlib.Path("wheelhouse"); wheels.mkdir()
# what the index offers: torch 2.1.x wheels for CPython 3.8-3.10 only (this interpreter is newer)
for py in ("38", "39", "310"):
    for v in ("2.1.0", "2.1.1", "2.1.2"):
        (wheels / f"torch-{v}-cp{py}-cp{py}-manylinux1_x86_64.whl").write_bytes(b"")
        (wheels / f"torch-{v}-cp{py}-none-macosx_11_0_arm64.whl").write_bytes(b"")
cmd = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--dry-run", "--ignore-installed",
       "--no-index", "--find-links", str(wheels)] + sys.argv[1:]
# a plain pip: no site or user configuration (find-links, constraints) of the machine running this
env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
env["PIP_CONFIG_FILE"] = os.devnull
print("$ pip install " + " ".join(sys.argv[1:]), flush=True)
sys.exit(subprocess.run(cmd, stderr=subprocess.STDOUT, env=env).returncode)
'''

# --------------------------------------------------------------------------- numpy 1.x extensions
NUMPY1_EXT = r'''
import numpy
print("numpy", numpy.__version__, flush=True)
# what an extension compiled against NumPy 1.x does at import (import_array): fetch the C-API table
from numpy.core._multiarray_umath import _ARRAY_API
'''


def generate() -> None:
    ext = "pytorch/cpp-extension-build-failed"
    run_script(ext, "load-inline-syntax-error", EXT_SYNTAX, timeout=600)
    run_script(ext, "load-inline-missing-cuda-header-verbose", EXT_MISSING_HEADER, timeout=600, keep="tail:40")
    run_script(ext, "load-inline-removed-thc-header", EXT_OLD_API, timeout=600, keep="tail:14")

    pip = "install/pip-no-matching-distribution-torch"
    run_script(pip, "pinned-torch-no-wheel-for-python", PIP_DRIVER, args=["torch==2.1.2"])
    run_script(pip, "unpinned-torch-from-requirements", PIP_DRIVER, args=["torch>=2.0"], keep="tail:3")

    run_script("numpy/compiled-against-numpy1", "array-api-handshake", NUMPY1_EXT)
    generate_setuptools()


# ----------------------------------------------------------------- setuptools without pkg_resources
PKG_RESOURCES_VERSION_CHECK = r'''
import sys
print("python", sys.version.split()[0], flush=True)
import pkg_resources   # legacy version check, as many older training repositories do
torch_version = pkg_resources.get_distribution("torch").version
'''

PKG_RESOURCES_SETUP = r'''
# setup.py of a repository with a custom op (pip install -e . runs it)
import os
from setuptools import setup
import pkg_resources

setup(
    name="clip-ops",
    version="1.0",
    install_requires=[str(r) for r in pkg_resources.parse_requirements(open("requirements.txt"))],
)
'''


def generate_setuptools() -> None:
    pkg = "setuptools/pkg-resources-missing"
    run_script(pkg, "legacy-version-check", PKG_RESOURCES_VERSION_CHECK)
    run_script(pkg, "setup-py-parse-requirements", PKG_RESOURCES_SETUP, keep="tail:6")
