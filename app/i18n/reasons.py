"""The matcher's reason codes (app/matching/result.py `Reason`, `Finding`) as sentences in a language.

Every message is marked with ``N_()`` so that `make i18n-update` extracts it into the catalogs;
``reason_text`` translates it with the page's gettext and fills in the parameters.
"""
from __future__ import annotations

from typing import Any, Mapping

from app.i18n.translations import gettext_for


def N_(message: str) -> str:
    """Mark a message for extraction; it is translated later, when the language is known."""
    return message


MESSAGES: dict[str, str] = {
    "signature_matched": N_("signature %(sig)s matched line %(line)s"),
    "signature_matched_rank": N_("signature %(sig)s matched line %(line)s (rank %(rank)s)"),
    "explains_root_cause": N_("it explains the first failure in the log (the root cause)"),
    "first_failure_seen": N_("it is the first failure seen in the log; no earlier cause was found"),
    "consequence_elsewhere": N_("this error is usually a consequence of a failure elsewhere (another rank or process)"),
    "reports_child_failure": N_("this only reports that another process failed; the entries above say why"),
    "env_outside_range": N_("your versions fall outside this entry's affected range: %(reasons)s"),
    "env_in_range": N_("your versions are in this entry's affected range"),
    "weak_signature": N_("weak signature match"),
    "finding": N_("ranks timed out in different collectives (see findings)"),
    "similar_words": N_("similar words, no signature matched"),
    "consequence_of_unknown_root": N_("matched, but only a consequence of the first failure, an error no entry knows"),
    "leads_to": N_("it leads to %(entry)s, also in this log"),
    "led_from": N_("a consequence of %(entry)s, also in this log"),
    "host_oom_kill": N_("the run ended in a bare kill (signal 9); on a training host that is usually the kernel's out-of-memory killer"),
}

FINDINGS: dict[str, str] = {
    "different_step": N_("ranks timed out at different collective sequence numbers: some ranks ran more "
                         "collectives than others (uneven inputs at an epoch end, a rank that skipped a step, "
                         "or a rank that died)"),
    "different_collective": N_("ranks timed out in the same collective step with different operations or sizes: "
                               "they called mismatched collectives"),
}

ORIGINS: dict[str, str] = {
    "user": N_("raised in your code: %(file)s, line %(line)s, in %(function)s"),
    "package": N_("raised inside the package %(package)s: %(file)s, line %(line)s, in %(function)s"),
    "package_version": N_("raised inside the package %(package)s %(version)s: %(file)s, line %(line)s, in %(function)s"),
    "library": N_("raised in the Python standard library: %(file)s, line %(line)s, in %(function)s"),
    "unknown": N_("no entry knows this error"),
}


def _fill(template: str, params: Mapping[str, Any]) -> str:
    try:
        return template % dict(params)
    except (KeyError, TypeError, ValueError):
        return template


def reason_text(code: str, params: Mapping[str, Any], lang: str) -> str:
    """The sentence for one reason code in ``lang`` (the code itself when it is unknown)."""
    _ = gettext_for(lang)
    if code == "signature_matched" and params.get("rank") is not None:
        code = "signature_matched_rank"
    template = MESSAGES.get(code)
    if template is None:
        return code
    params = dict(params)
    if isinstance(params.get("reasons"), (list, tuple)):
        params["reasons"] = "; ".join(params["reasons"])
    return _fill(_(template), params)


def finding_text(kind: str, lang: str) -> str:
    template = FINDINGS.get(kind)
    return gettext_for(lang)(template) if template else kind


def origin_text(origin: Mapping[str, Any] | None, lang: str) -> str:
    _ = gettext_for(lang)
    if not origin:
        return _(ORIGINS["unknown"])
    if origin.get("package"):
        key = "package_version" if origin.get("version") else "package"
    else:
        key = "user" if origin.get("in_user_code", True) else "library"
    return _fill(_(ORIGINS[key]), origin)
