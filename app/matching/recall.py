"""The recall forms of real reports (issue 18), one small module per form, run after the signatures.

Each reader adds hits, at a lower confidence, for entries the log names in a form no signature can
hold: a CUDA error's number (cudacodes.py), the DataLoader's re-raise frames of a cut paste
(reraise.py), a kill or an OOM named in words, and the shell's kill report as a terminal leaves it
(prose.py), an entry's message quoted in a sentence or retyped without its details (quoted.py).
The KB decides which entry each form leads to: every reader probes the index with the text the
lowest layer prints for it.
"""
from __future__ import annotations

from faultline.matching.config import DEFAULT, RankConfig
from faultline.matching.cudacodes import SIG_NAME as CUDA_CODE, cuda_code_hits
from faultline.matching.index import Hit, MatchIndex
from faultline.matching.logparse import ParsedLog
from faultline.matching.prose import prose_hits, tail_kill_hits
from faultline.matching.quoted import quoted_hits
from faultline.matching.reraise import SIG_NAME as RERAISE, reraise_hits

# hits of these names stand for a message the log does not show whole (rank.calibration_features)
LOW_EVIDENCE = frozenset({"bare-kill", "truncated-text", "short-paste", "exit-code-signal", CUDA_CODE, RERAISE})


def recall_hits(index: MatchIndex, parsed: ParsedLog, already: set[str], cfg: RankConfig = DEFAULT) -> list[Hit]:
    """Hits of the recall forms; ``already`` (entry ids matched so far) grows with them."""
    hits = cuda_code_hits(index, parsed, already, cfg)
    hits += reraise_hits(index, parsed, already, cfg)
    hits += tail_kill_hits(index, parsed, already, cfg)
    hits += quoted_hits(index, parsed, already, cfg)  # short pastes nothing else recognised: quotes first,
    hits += prose_hits(index, parsed, already, cfg)  # then a kill or an OOM named in words
    return hits


__all__ = ["recall_hits", "LOW_EVIDENCE"]
