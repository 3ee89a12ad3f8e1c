"""The matcher's reason codes (app/matching/result.py `Reason`, `Finding`) as sentences in a language.

Every message is marked with ``N_()`` so that `make i18n-update` extracts it into the catalogs;
``reason_text`` translates it with the page's gettext and fills in the parameters.
"""
from __future__ import annotations

from typing import Any, Mapping

from faultline.i18n.translations import gettext_for


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
    "exit_code_signal": N_("%(wrapper)s reports that the child process ended with %(exit)s; this entry is what "
                           "usually ends a training process with that signal"),
    "exit_code_signal_wrapper": N_("%(wrapper)s reports that the child process ended with %(exit)s: a signal, "
                                   "not an exception of the child"),
    "symptom_of_cause": N_("a consequence of %(entry)s, the first failure: another rank or process stopped waiting for it"),
    "wrapper_of_cause": N_("the launcher's report of the failure that %(entry)s explains"),
    "led_from_cause": N_("a consequence of %(entry)s, the first failure (the knowledge base says it leads here)"),
    "before_first_failure": N_("printed before the first failure that %(entry)s explains, and not what ended the run"),
    "after_first_failure": N_("seen later in the log, after the first failure that %(entry)s explains; not an answer of its own"),
    "alternative_reading": N_("another reading of the same line; %(entry)s explains the first failure better"),
    "consequence_of_interrupt": N_("a consequence of stopping the run (Ctrl-C), not an error of the job"),
}

FINDINGS: dict[str, str] = {
    "different_step": N_("ranks timed out at different collective sequence numbers: some ranks ran more "
                         "collectives than others (uneven inputs at an epoch end, a rank that skipped a step, "
                         "or a rank that died)"),
    "different_collective": N_("ranks timed out in the same collective step with different operations or sizes: "
                               "they called mismatched collectives"),
    "interrupted": N_("the run was stopped by you (Ctrl-C / SIGINT), not by an error; the errors after it are "
                      "consequences of stopping it. Where each rank was when it stopped is listed"),
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


# The verdict on the root cause (app/matching/verdict.py): who must act, whether a retry as is can help.
BLAME: dict[str, str] = {
    "user_code": N_("your code"),
    "configuration": N_("the configuration"),
    "library_version": N_("a library version"),
    "installation": N_("the installation"),
    "environment": N_("the environment (the host, its memory, disk or drivers)"),
    "hardware": N_("the hardware"),
    "network": N_("the network"),
    "scheduler": N_("the job scheduler"),
}

RETRY: dict[str, str] = {
    "transient": N_("transient: retry as is"),
    "after_change": N_("retry only after the fix"),
    "never_as_is": N_("never retry as is"),
}

VERDICT_REASONS: dict[str, str] = {
    "exception_type": N_("no entry knows this error, but its type, %(exception)s, says who must act"),
    "raised_in_user_code": N_("no entry knows this error; it was raised in your code: %(file)s, line %(line)s"),
    "raised_in_package_from_user_call": N_(
        "no entry knows this error; it was raised inside %(package)s, called from your code at %(user_file)s, "
        "line %(user_line)s, with something it refuses"),
    "raised_in_package": N_(
        "no entry knows this error; it was raised inside the package %(package)s: check its version and its issue tracker"),
    "raised_in_stdlib_from_user_call": N_(
        "no entry knows this error; it was raised in the Python standard library, called from your code at "
        "%(user_file)s, line %(user_line)s"),
    "hardware_report": N_("the log reports a GPU hardware fault (an Xid or an ECC error)"),
    "signal_sigkill": N_("the process was killed with SIGKILL; on a training host that is usually the kernel's "
                         "out-of-memory killer"),
    "signal_sigterm": N_("the process was stopped with SIGTERM, usually by the job scheduler (preemption or a stop)"),
    "signal_sighup": N_("the process got SIGHUP: its terminal or session went away, or the scheduler stopped it"),
    "signal_sigsegv": N_("the process crashed in native code (SIGSEGV): most often compiled libraries that do not "
                         "match each other"),
    "signal_sigabrt": N_("native code aborted the process (SIGABRT): most often a failed check in a compiled library"),
    "signal_sigill": N_("the process ran an instruction its CPU does not have (SIGILL): a binary built for another machine"),
    "signal_sigfpe": N_("an arithmetic fault in native code ended the process (SIGFPE)"),
    "signal_sigbus": N_("the process got SIGBUS: usually shared memory (/dev/shm) too small for the DataLoader's "
                        "workers, or a file truncated while it was mapped"),
    "derived_after_change": N_("rerunning the same code in the same environment fails the same way: change something first"),
    "derived_transient": N_("this kind of failure often passes by itself: a retry as is may work, a few times at most, with a pause"),
    "derived_hardware_transient": N_("a rerun may work on a healthy GPU or another node; report the node so that it is "
                                     "checked and drained"),
}


def blame_label(kind: str, lang: str) -> str:
    template = BLAME.get(kind)
    return gettext_for(lang)(template) if template else kind


def retry_label(kind: str, lang: str) -> str:
    template = RETRY.get(kind)
    return gettext_for(lang)(template) if template else kind


def verdict_reason_text(code: str, params: Mapping[str, Any], lang: str) -> str:
    """A derived verdict's reason in ``lang`` (an entry's own reasons are its text, not a code)."""
    template = VERDICT_REASONS.get(code)
    return _fill(gettext_for(lang)(template), params) if template else code
