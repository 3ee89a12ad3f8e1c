"""A CUDA error named by its number or its enum name only (app/matching/cudacodes.py).  Forms from public
reports: Paddle's "CUDA error(719)" titles, "CUDA error 719", legacy THC numbers, enum names in sentences."""
from __future__ import annotations

from pathlib import Path

import pytest

from faultline.kbfiles import load_kb
from faultline.matching.cudacodes import code_of
from faultline.matching.index import MatchIndex
from faultline.render.match import match_text

KB = Path(__file__).resolve().parent.parent / "kb"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB, lenient=True).entries)


@pytest.mark.parametrize("text,code", [
    ("Cuda error(719)", 719),
    ("yolov7训练为什么会cuda error(719)", 719),
    ("CUDA error 700 after a few hundred steps", 700),
    ("RuntimeError: cuda runtime error (59) at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265", 59),
    ("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=405 error=77", 77),
    ("the job dies with cudaErrorLaunchFailure every night", 719),
    ("CUDA_ERROR_ILLEGAL_ADDRESS in the backward pass", 700),
    ("CUDA error 1", None),  # invalid value: no entry's business
    ("CUDA error 100% of the time when I train", None),  # a quantity
    ("error code 719", None),  # no CUDA named
])
def test_codes_read(text, code):
    assert code_of(text) == code


@pytest.mark.parametrize("text,expected", [
    ("Cuda error(719)", "pytorch/cuda-unspecified-launch-failure"),
    ("训练的时候突然出现 CUDA error(719)", "pytorch/cuda-unspecified-launch-failure"),
    ("CUDA error 700 after a few hundred steps", "pytorch/cuda-illegal-memory-access"),
    ("RuntimeError: cuda runtime error (59) at /pytorch/aten/src/THC/THCCachingHostAllocator.cpp:265",
     "pytorch/cuda-device-side-assert"),
    ("got cudaErrorNoKernelImageForDevice on the new GPU", "pytorch/no-kernel-image-for-device"),
])
def test_a_code_leads_to_the_entry_of_its_text(index, text, expected):
    res = match_text(index, text)
    m = res["matches"][0]
    assert m["id"] == expected and m["why"][0]["params"]["sig"] == "cuda-error-code"  # says how it was read


def test_the_text_beside_the_code_is_matched_by_the_signature(index):
    res = match_text(index, "OSError: (External) CUDA error(719), unspecified launch failure.")
    assert res["matches"][0]["why"][0]["params"]["sig"] != "cuda-error-code"
