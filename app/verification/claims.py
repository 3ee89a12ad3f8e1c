"""The version range a signature's ``versions`` note claims, as data.

The note is free text ("transformers>=4.37 (AutoConfig.from_pretrained)", "accelerate ~0.15-1.16",
"trl 0.7.11-0.27.x", "datasets 2.16 to about 4.6").  The first package it names with a range
written right after the name ("4.37", ">=4.37", "0.15-1.16", "1.9+") is the claim; a note that
names packages but no range claims every release of the first one named.  A bound is kept at the precision it was written: "4.31" is any 4.31.x, "4.3x" any of
4.30-4.39, "5.x" any 5.*.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from packaging.version import InvalidVersion, Version

# a name as notes write it -> (where its releases are: "pypi" or "git:<owner>/<repo>", project name)
PACKAGES: dict[str, tuple[str, str]] = {
    "transformers": ("pypi", "transformers"),
    "accelerate": ("pypi", "accelerate"),
    "peft": ("pypi", "peft"),
    "trl": ("pypi", "trl"),
    "datasets": ("pypi", "datasets"),
    "huggingface_hub": ("pypi", "huggingface_hub"),
    "huggingface-hub": ("pypi", "huggingface_hub"),
    "pytorch_lightning": ("pypi", "pytorch-lightning"),
    "pytorch-lightning": ("pypi", "pytorch-lightning"),
    "lightning_fabric": ("pypi", "lightning-fabric"),
    "lightning": ("pypi", "lightning"),
    "deepspeed": ("pypi", "deepspeed"),
    "bitsandbytes": ("pypi", "bitsandbytes"),
    "safetensors": ("pypi", "safetensors"),
    "setuptools": ("pypi", "setuptools"),
    "tokenizers": ("pypi", "tokenizers"),
    "wandb": ("pypi", "wandb"),
    "fsspec": ("pypi", "fsspec"),
    "torchvision": ("pypi", "torchvision"),
    # torch: the macOS wheels (CPU-only, small); their Python sources and the strings of libtorch_cpu /
    # libc10 / libtorch_python hold every Python-level and ATen/c10 CPU message (sources.WHEEL_PLATFORMS)
    "torch": ("pypi", "torch"),
    "pytorch": ("pypi", "torch"),
    "numpy": ("pypi", "numpy"),
    "protobuf": ("pypi", "protobuf"),
    "jax": ("pypi", "jax"),
    "jaxlib": ("pypi", "jaxlib"),
    "ray": ("pypi", "ray"),
    "xformers": ("pypi", "xformers"),
    "unsloth": ("pypi", "unsloth"),
    "unsloth_zoo": ("pypi", "unsloth_zoo"),
    "xgboost": ("pypi", "xgboost"),
    "pip": ("pypi", "pip"),
    "uv": ("pypi", "uv"),
    "setuptools-rust": ("pypi", "setuptools-rust"),
    "cython": ("pypi", "cython"),
    "flash-attn": ("pypi", "flash-attn"),
    "flash_attn": ("pypi", "flash-attn"),
    "triton": ("pypi", "triton"),
    "tensorflow": ("pypi", "tensorflow"),
    "nvidia-nccl-cu12": ("pypi", "nvidia-nccl-cu12"),
    "nvidia-cuda-runtime-cu12": ("pypi", "nvidia-cuda-runtime-cu12"),
    "nccl": ("git:NVIDIA/nccl", "nccl"),
}

_VER = r"\d+(?:\.\d+)*(?:\.x|x)?"
_NAME = "|".join(sorted((re.escape(k) for k in PACKAGES), key=len, reverse=True))
_CLAIM = re.compile(
    rf"(?<![\w./-])(?P<pkg>{_NAME})(?![\w-]|\.\w)"
    rf"(?:\s*(?P<op>>=|<=|==|<|>)\s*(?P<v>{_VER})(?:\s*,\s*(?P<op2><=|<)\s*(?P<v2>{_VER}))?"
    rf"|\s+(?:~|about\s+|approximately\s+)?(?P<a>{_VER})\s*(?:-|–|to(?:\s+about)?)\s*~?(?P<b>{_VER})(?![\w.])"
    rf"|\s+~?(?P<one>{_VER})(?P<plus>\+)?(?![\w.]))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Claim:
    source: str                # "pypi" or "git:<owner>/<repo>"
    package: str               # the project's name there
    lo: Optional[str] = None   # the first release claimed, at the precision written ("4.31", "4.3x")
    hi: Optional[str] = None   # the last release claimed (inclusive), at the precision written
    below: Optional[str] = None  # "<V": every release claimed is older than V

    @property
    def spec(self) -> str:
        """The range in one short form: ">=4.37", "0.15-1.16", "<4.22", "<=0.45", "4.x" or "all"."""
        if self.lo and self.hi:
            return self.lo if self.lo == self.hi else f"{self.lo}-{self.hi}"
        if self.lo:
            return f">={self.lo}" + (f",<{self.below}" if self.below else "")
        if self.hi:
            return f"<={self.hi}"
        if self.below:
            return f"<{self.below}"
        return "all"


def _digits(parts: list[str]) -> Version:
    return Version(".".join(parts) if parts else "0")


def bound(text: str) -> tuple[Version, Version]:
    """[low, high) of the releases a bound written as ``text`` names: "4.31" -> [4.31, 4.32)."""
    parts = text.lower().split(".")
    last = parts[-1]
    if last == "x":
        base = parts[:-1]
        return _digits(base), _digits(base[:-1] + [str(int(base[-1]) + 1)])
    if last.endswith("x"):
        d = int(last[:-1])
        base = parts[:-1]
        return _digits(base + [str(d * 10)]), _digits(base + [str((d + 1) * 10)])
    return _digits(parts), _digits(parts[:-1] + [str(int(last) + 1)])


def parse_claim(note: Optional[str]) -> Optional[Claim]:
    """The claim of a ``versions`` note, or None when it names no package whose releases we can read."""
    if not note:
        return None
    found = list(_CLAIM.finditer(note))
    if not found:
        return None
    # the first mention that comes with a range ("... NCCL version x' (NCCL<2.18)"), else the first one
    m = next((x for x in found if x.group("op") or x.group("a") or x.group("one")), found[0])
    source, package = PACKAGES[m.group("pkg").lower()]
    op, v = m.group("op"), m.group("v")
    try:
        if op:
            lo = hi = below = None
            if op in (">=", "=="):
                lo = v
                hi = v if op == "==" else None
            elif op == ">":
                lo = str(bound(v)[1])
            elif op == "<=":
                hi = v
            elif op == "<":
                below = v
            if m.group("op2") == "<":
                below = m.group("v2")
            elif m.group("op2") == "<=":
                hi = m.group("v2")
            return Claim(source, package, lo=lo, hi=hi, below=below)
        if m.group("a"):
            return Claim(source, package, lo=m.group("a"), hi=m.group("b"))
        if m.group("one"):
            return Claim(source, package, lo=m.group("one"), hi=None if m.group("plus") else m.group("one"))
    except (InvalidVersion, ValueError):
        return None
    return Claim(source, package)


class UnreadableClaim(ValueError):
    """A claim whose bound names no release ("<4.3x"): it can be neither sampled nor compared."""


def unreadable(claim: Claim) -> Optional[str]:
    """Why the range of ``claim`` cannot be read as releases, or None when it can.

    "4.3x" is readable as a first or last release (any of 4.30-4.39), but not after "<": "<4.3x" may mean
    below 4.30 or below 4.40."""
    for text in (claim.lo, claim.hi):
        try:
            if text:
                bound(text)
        except (InvalidVersion, ValueError):
            return f"claim unreadable: {claim.package} {claim.spec}: '{text}' names no release"
    if claim.below:
        try:
            Version(claim.below)
        except InvalidVersion:
            hint = ""
            try:
                low, _high = bound(claim.below)
                hint = f" (write <{low} for below every {claim.below}, or <={claim.below} for up to the last one)"
            except (InvalidVersion, ValueError):
                pass
            return f"claim unreadable: {claim.package} <{claim.below}: '<' needs one release{hint}"
    return None


def disagreement(claim: Claim, first: Optional[str], last: Optional[str],
                 absent_before: Optional[str], absent_after: Optional[str]) -> Optional[str]:
    """Why the observed first/last release with the text contradicts the claim, or None if it agrees.

    ``absent_before``/``absent_after`` are the releases right before the first and right after the
    last that were checked and lack the text (None: the first is the oldest release / the last is
    the newest)."""
    why = unreadable(claim)
    if why:
        return why
    if first is None or last is None:
        return "the text was found in none of the releases checked"
    f, lst = Version(first), Version(last)
    if claim.lo:
        low, high = bound(claim.lo)
        if not low <= f < high:
            return f"claims {claim.package} from {claim.lo}, the text is first in {first}"
    if claim.hi:
        low, high = bound(claim.hi)
        if not low <= lst < high:
            return f"claims {claim.package} up to {claim.hi}, the text is last in {last}"
    if claim.below:
        if lst >= Version(claim.below) or (absent_after is not None and Version(absent_after) < Version(claim.below)):
            return f"claims {claim.package} below {claim.below}, the text is last in {last}"
    if claim.lo and not claim.hi and not claim.below and absent_after is not None:
        return f"claims {claim.package} from {claim.lo} on, the text is gone in {absent_after} (last in {last})"
    return None
