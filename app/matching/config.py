"""The ranker's weights, as one versioned configuration.

A change of weights is a new ``RankConfig`` with a new dated id (and a line in CHANGELOG below),
benchmarked against the previous id: `/match` and `bench/results/latest.json` echo the id used.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RankConfig:
    id: str = "rank:2026-12-02"
    confident: float = 0.5  # matches below this confidence go to "related"
    spec_scale: float = 18.0  # confidence from specificity: 1 - exp(-specificity / spec_scale)
    root_bonus: float = 1.0  # the entry explains the first failure of the log
    cause_bonus: float = 0.25  # role: cause
    wrapper_penalty: float = 0.25  # role: wrapper (only reports that a child failed)
    exception_line_bonus: float = 0.05  # matched on a Python exception or C++ what() line
    env_mismatch_penalty: float = 0.6  # the environment's versions are outside the entry's range
    env_mismatch_confidence: float = 0.7  # ... and the confidence is multiplied by this
    extra_signature_confidence: float = 0.03  # per further distinct signature of the same entry
    confidence_cap: float = 0.99
    similar_cutoff: float = 0.25  # word-similarity fallback when nothing matched
    truncated_weight: float = 0.8  # specificity per character of a pasted line found inside an entry's text
    context_bonus: float = 0.0  # the best signature needs context words (a framework, a config) and the log has them
    killed_confidence: float = 0.55
    short_paste_confidence: float = 0.55  # a title fragment or one phrase found in exactly one entry's text  # a bare "Killed" / exit -9 ending a training log: host OOM, less certain
    # logistic calibration of confidence over rank.calibration_features (empty: confidence = signature strength)
    calibration: tuple[float, ...] = ()


CHANGELOG = {
    "rank:2026-12-02": "the weights of the matcher before they were named (no behaviour change)",
    "rank:2026-12-02b": "confidence is calibrated: a logistic fit on bench/holdout and bench/holdout2 "
                        "(python -m bench.calibrate), reported on bench/holdout3; the ranking itself is unchanged",
    "rank:2026-12-04": "an entry matched through a signature whose context words the log shows ranks above one matched "
                       "on the same line without context (a specific cause over a generic message); confidence unchanged",
}

NAMED = RankConfig()  # the first named weights, kept runnable for comparisons
CALIBRATED = RankConfig(
    id="rank:2026-12-02b",
    calibration=(-1.450, 0.008, 1.372, 0.675, 2.567, -0.672, -0.768, 0.000, -0.756),
)
DEFAULT = RankConfig(id="rank:2026-12-04", calibration=CALIBRATED.calibration, context_bonus=0.1)
CONFIGS = {c.id: c for c in (NAMED, CALIBRATED, DEFAULT)}
