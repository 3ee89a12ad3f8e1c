"""Which releases to fetch for a claim, and where to bisect next.

The first sample is: the oldest and the newest release, the first and last release the claim names,
the releases just outside them, and a few evenly spaced inside.  After those are searched, every
pair of neighbouring checked releases where the text appears or disappears is bisected until the two
are adjacent in the release list, so the first and last release with the text are exact.
"""
from __future__ import annotations

from typing import Optional

from packaging.version import InvalidVersion, Version

from faultline.verification.claims import Claim, UnreadableClaim, bound, unreadable

INSIDE = 3  # evenly spaced releases sampled inside the claimed range


def finals(versions: list[str]) -> list[str]:
    """The final releases (no pre-, dev- or post-less oddities), oldest first."""
    out: list[tuple[Version, str]] = []
    for v in versions:
        try:
            pv = Version(v)
        except InvalidVersion:
            continue
        if not (pv.is_prerelease or pv.is_devrelease or pv.local):
            out.append((pv, v))
    return [v for _pv, v in sorted(set(out))]


def claimed_span(claim: Claim, releases: list[str]) -> tuple[Optional[int], Optional[int]]:
    """Indexes of the first and last release inside the claim (None, None if none is).

    Raises UnreadableClaim when a bound names no release ("<4.3x")."""
    why = unreadable(claim)
    if why:
        raise UnreadableClaim(why)
    lo_v = bound(claim.lo)[0] if claim.lo else None
    hi_v = bound(claim.hi)[1] if claim.hi else None
    below = Version(claim.below) if claim.below else None
    inside = [i for i, r in enumerate(releases)
              if (lo_v is None or Version(r) >= lo_v) and (hi_v is None or Version(r) < hi_v)
              and (below is None or Version(r) < below)]
    return (inside[0], inside[-1]) if inside else (None, None)


def first_sample(claim: Claim, releases: list[str]) -> list[str]:
    if not releases:
        return []
    n = len(releases)
    picks = {0, n - 1}
    a, b = claimed_span(claim, releases)
    if a is not None and b is not None:
        picks |= {a, b, max(a - 1, 0), min(b + 1, n - 1)}
        for k in range(1, INSIDE + 1):
            picks.add(a + (b - a) * k // (INSIDE + 1))
    return [releases[i] for i in sorted(picks)]


def next_to_check(releases: list[str], seen: dict[str, bool]) -> list[str]:
    """Midpoints of every neighbouring checked pair whose presence differs and that are not adjacent."""
    idx = sorted(releases.index(v) for v in seen if v in releases)
    out = []
    for i, j in zip(idx, idx[1:]):
        if seen[releases[i]] != seen[releases[j]] and j - i > 1:
            out.append(releases[(i + j) // 2])
    return out


def summary(releases: list[str], seen: dict[str, bool]) -> dict:
    """first/last release with the text, the checked releases right outside them, and any gaps."""
    order = [v for v in releases if v in seen]
    present = [v for v in order if seen[v]]
    if not present:
        return {"first_present": None, "last_present": None, "absent_before": None,
                "absent_after": None, "gaps": []}
    first, last = present[0], present[-1]
    before = [v for v in order if releases.index(v) < releases.index(first)]
    after = [v for v in order if releases.index(v) > releases.index(last)]
    gaps = [v for v in order if not seen[v] and releases.index(first) < releases.index(v) < releases.index(last)]
    return {"first_present": first, "last_present": last,
            "absent_before": before[-1] if before else None,
            "absent_after": after[0] if after else None, "gaps": gaps}
