"""A CUDA error named by its number or its enum name only, read as the runtime's own text.

Frameworks and users often keep the code and drop the text: Paddle's title "(External) CUDA
error(719)", "CUDA error 700", legacy THC's "cuda runtime error (59)", a "cudaErrorLaunchFailure" or
"CUDA_ERROR_ILLEGAL_ADDRESS" quoted in a sentence.  The number is the lowest layer's own verdict:
``cudaGetErrorString`` of that code is the text the KB's signatures already recognise, so the line is
probed with that text and the KB says which entry explains it.  Only codes whose meaning does not
depend on the CUDA release are read: CUDA 10.1 renumbered the runtime's errors, and a small number of
the old table (4, 6, 7) means something else in the new one.

Every pattern is RE2 (linear time), tried only on lines that hold its literal.
"""
from __future__ import annotations

import math

import re2

from faultline.matching.config import DEFAULT, RankConfig
from faultline.matching.index import Hit, MatchIndex, SigSpec
from faultline.matching.logparse import ParsedLog, parse_log

SIG_NAME = "cuda-error-code"

# cudaError_t (and CUresult, which numbers these the same) -> cudaGetErrorString; from driver_types.h
RUNTIME_TEXT = {
    2: "out of memory",
    35: "CUDA driver version is insufficient for CUDA runtime version",
    46: "all CUDA-capable devices are busy or unavailable",
    100: "no CUDA-capable device is detected",
    209: "no kernel image is available for execution on the device",
    214: "uncorrectable ECC error encountered",
    700: "an illegal memory access was encountered",
    701: "too many resources requested for launch",
    702: "the launch timed out and was terminated",
    710: "device-side assert triggered",
    715: "an illegal instruction was encountered",
    716: "misaligned address",
    719: "unspecified launch failure",
    999: "unknown error",
    # CUDA <= 10.0 numbering, where the number means nothing else in the newer table
    30: "unknown error",
    38: "no CUDA-capable device is detected",
    39: "uncorrectable ECC error encountered",
    48: "no kernel image is available for execution on the device",
    59: "device-side assert triggered",
    77: "an illegal memory access was encountered",
}
# the enum names printed by cudaGetErrorName / cuGetErrorName, and Paddle's hints
NAMES = {
    "cudaErrorMemoryAllocation": 2, "CUDA_ERROR_OUT_OF_MEMORY": 2,
    "cudaErrorInsufficientDriver": 35,
    "cudaErrorDevicesUnavailable": 46,
    "cudaErrorNoDevice": 100, "CUDA_ERROR_NO_DEVICE": 100,
    "cudaErrorNoKernelImageForDevice": 209, "CUDA_ERROR_NO_BINARY_FOR_GPU": 209,
    "cudaErrorECCUncorrectable": 214, "CUDA_ERROR_ECC_UNCORRECTABLE": 214,
    "cudaErrorIllegalAddress": 700, "CUDA_ERROR_ILLEGAL_ADDRESS": 700,
    "cudaErrorLaunchOutOfResources": 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES": 701,
    "cudaErrorLaunchTimeout": 702, "CUDA_ERROR_LAUNCH_TIMEOUT": 702,
    "cudaErrorAssert": 710, "CUDA_ERROR_ASSERT": 710,
    "cudaErrorIllegalInstruction": 715, "CUDA_ERROR_ILLEGAL_INSTRUCTION": 715,
    "cudaErrorMisalignedAddress": 716, "CUDA_ERROR_MISALIGNED_ADDRESS": 716,
    "cudaErrorLaunchFailure": 719, "CUDA_ERROR_LAUNCH_FAILED": 719,
}
# "CUDA error(719)", "Cuda error 700", "cuda runtime error (59)", "CUDA error code: 719",
# "THCudaCheck FAIL file=... line=... error=59"; and an enum name as a word
_NUMBER = re2.compile(r"(?i)\bcuda[ _](?:runtime[ _])?error(?:[ _]code)?\s*[:=#]?\s*\(?\s*(\d{1,4})\b"
                      r"|THCudaCheck FAIL .*\berror=(\d{1,4})\b")
_NAME = re2.compile(r"\b(cudaError[A-Z][A-Za-z]+|CUDA_ERROR_[A-Z_]+)\b")


def _quantity(after: str) -> bool:
    """The number goes on as a quantity ("100%", "2.5"), not a code."""
    return after[:1] == "%" or (after[:1] == "." and after[1:2].isdigit())


def code_of(text: str) -> int | None:
    """The CUDA error code a line names by number or enum name, when its meaning is known."""
    if "rror" not in text and "RROR" not in text:
        return None
    if (m := _NUMBER.search(text)) is not None and not _quantity(text[m.end():m.end() + 2]):
        code = int(m.group(1) or m.group(2))
        if code in RUNTIME_TEXT:
            return code
    for name in _NAME.findall(text) if ("cudaError" in text or "CUDA_ERROR_" in text) else ():
        if name in NAMES:
            return NAMES[name]
    return None


def probe(code: int) -> str:
    """The line torch prints for that code: what the KB's CUDA entries recognise."""
    return f"RuntimeError: CUDA error: {RUNTIME_TEXT[code]}"


def cuda_code_hits(index: MatchIndex, parsed: ParsedLog, already: set[str], cfg: RankConfig = DEFAULT) -> list[Hit]:
    """Hits, at the lower confidence of a number standing for a text, for the entry that explains a
    CUDA error the log names only by its code.  An entry already matched (the text was there too) is
    not added again."""
    spec = int(-math.log(1 - cfg.killed_confidence) * cfg.spec_scale) + 1
    cache = index.signal_entries  # per index, like exits.py's signals: ("cuda", code) -> entries
    out: list[Hit] = []
    if parsed.joined and "uda" not in parsed.joined and "UDA" not in parsed.joined:
        return out
    for ln in parsed.messages:
        if "uda" not in ln.text and "UDA" not in ln.text:
            continue
        code = code_of(ln.text)
        if code is None:
            continue
        key = ("cuda", code)
        if key not in cache:
            found = sorted((h.sig for h in index.hits(parse_log(probe(code)))
                            if index.roles.get(h.sig.entry_id, "cause") == "cause"), key=lambda s: -s.specificity)
            cache[key] = list(dict.fromkeys(s.entry_id for s in found))[:1]
        for eid in cache[key]:
            if eid not in already:
                already.add(eid)
                out.append(Hit(SigSpec(eid, SIG_NAME, "", True, None, (), spec), ln))
    return out


__all__ = ["RUNTIME_TEXT", "NAMES", "code_of", "probe", "cuda_code_hits", "SIG_NAME"]
