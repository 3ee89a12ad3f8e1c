"""Rates from evidence: a curated estimate updated by outcome reports.

Every rate the KB shows (a workaround's success rate, a dead end's fail rate,
an entry's fix rate) is the mean of a Beta posterior.  The prior is the
curated estimate worth ``PRIOR_WEIGHT`` pseudo-reports; each report adds one
success or one failure.  With no report the mean is the curated estimate and
the rate is labelled "estimated"; with reports it is labelled "from N reports"
and comes with a 90% credible interval.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

PRIOR_WEIGHT = 4.0  # the curated estimate counts as this many reports
INTERVAL = 0.90
_EDGE = 0.01  # a curated 0% or 100% is kept inside (0, 1) so that the prior stays a proper Beta


@dataclass(frozen=True)
class Rate:
    mean: float
    low: float
    high: float
    reports: int  # how many reports updated the estimate
    successes: int
    estimate: float  # the curated value
    basis: str  # "estimated" | "measured" (curated, measured elsewhere) | "reports"

    def as_dict(self, lang: str = "en") -> dict:
        return {
            "value": round(self.mean, 3),
            "estimate": self.estimate,
            "interval": [round(self.low, 3), round(self.high, 3)],
            "reports": self.reports,
            "successes": self.successes,
            "basis": self.basis,
            "label": label(self, lang),
            "detail": detail(self, lang),
        }


@functools.lru_cache(maxsize=8192)  # pure, and its Rate is frozen: the same estimates and counts recur
def posterior(estimate: float, successes: int = 0, failures: int = 0, measured: bool = False,
              weight: float = PRIOR_WEIGHT) -> Rate:
    """The Beta posterior of a rate whose curated value is ``estimate``."""
    if successes < 0 or failures < 0:
        raise ValueError("report counts cannot be negative")
    p = min(max(estimate, _EDGE), 1 - _EDGE)
    a = weight * p + successes
    b = weight * (1 - p) + failures
    n = successes + failures
    mean = estimate if n == 0 else a / (a + b)
    tail = (1 - INTERVAL) / 2
    low, high = beta_ppf(tail, a, b), beta_ppf(1 - tail, a, b)
    basis = "reports" if n else ("measured" if measured else "estimated")
    return Rate(mean, min(low, mean), max(high, mean), n, successes, estimate, basis)


_LABELS = {
    "en": {"estimated": "estimated", "measured": "measured", "one": "from 1 report", "many": "from {n} reports"},
    "zh": {"estimated": "估计值", "measured": "实测值", "one": "基于 1 份报告", "many": "基于 {n} 份报告"},
}


def label(rate: Rate, lang: str = "en") -> str:
    t = _LABELS.get(lang, _LABELS["en"])
    if rate.basis != "reports":
        return t[rate.basis]
    return t["one"] if rate.reports == 1 else t["many"].format(n=rate.reports)


def detail(rate: Rate, lang: str = "en") -> str:
    """The label with the interval when reports back the rate: "from 3 reports, 90% interval 41–78%"."""
    if rate.basis != "reports":
        return label(rate, lang)
    sep = "，90% 区间 " if lang == "zh" else ", 90% interval "
    return f"{label(rate, lang)}{sep}{round(rate.low * 100)}–{round(rate.high * 100)}%"


# --- the regularised incomplete beta function and its inverse -------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of I_x(a, b), evaluated with the modified Lentz method."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-12:
            break
    return h


def beta_cdf(x: float, a: float, b: float) -> float:
    """P(X <= x) for X ~ Beta(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    ln_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(ln_front)
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1 - x) / b


@functools.lru_cache(maxsize=8192)
def beta_ppf(q: float, a: float, b: float) -> float:
    """The q-quantile of Beta(a, b), by bisection on the CDF (monotone, so this always converges).

    Cached: every /match shows intervals for the same few (prior, reports) pairs, and 60 steps of a
    continued fraction per bound cost more than the match itself."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if beta_cdf(mid, a, b) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
