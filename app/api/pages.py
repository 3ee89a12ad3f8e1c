"""The page routes that are not API views: the home page (paste a log), its results, the
language switch, the static files, and HTML error pages for browsers.

A posted log is kept (its input, compressed, in the database) under a random id and the browser is
sent (303) to ``/results/<id>``: an address that can be shared, reloaded and shown in the other
language for KEEP_DAYS days.  At most KEEP_MAX results are kept (the oldest make room) and one of at
most KEEP_MAX_BYTES compressed; a bigger one, or one posted while the database cannot be written, is
answered on the spot without a link.

`install(app)` is called by app/main.py.
"""
from __future__ import annotations

import base64
import inspect
import json
import logging
import re
import zlib
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.formparsers import MultiPartException, MultiPartParser

from faultline.api.deps import snapshot, wants_html
from faultline.api.match import read_body
from faultline.api.upload import MULTIPART_OVERHEAD
from faultline.logsets import Limits, LogSetError, match_files, read_uploads
from faultline.logsets.inputs import looks_like_archive
from faultline.settings import MAX_BODY_BYTES
from faultline.api.problems import ApiError
from faultline.i18n.negotiate import SUPPORTED, UnsupportedLanguage, explicit, negotiate
from faultline.i18n.translations import NATIVE_NAME, gettext_for
from faultline.web.pages import STATIC, error_page, home_page, is_local_path, results_page, strip_lang

MAX_MATCHES = 10
COOKIE_MAX_AGE = 365 * 24 * 3600
KEEP_DAYS = 7  # a result's link works this long
KEEP_MAX = 500  # results kept at most; the oldest make room
KEEP_MAX_BYTES = 256 * 1024  # the most a kept input may take, compressed (a 1 MiB log usually takes far less)
KEPT_ID = re.compile(r"[A-Za-z0-9_-]{22}")
log = logging.getLogger("faultline")


def page_lang(request: Request, form_lang: str | None = None) -> str:
    """The language of a page: ?lang= (or a form field), the lang cookie, Accept-Language; bad values ignored."""
    for candidate in (form_lang, request.query_params.get("lang")):
        try:
            chosen = explicit(candidate)
        except UnsupportedLanguage:
            chosen = None
        if chosen:
            return chosen
    return negotiate(None, request.headers.get("accept-language"), request.cookies.get("lang"))


async def home(request: Request) -> Response:
    return home_page(request, snapshot(request), page_lang(request))


async def _form_fields(request: Request, body: bytes) -> dict[str, Any]:
    ctype = request.headers.get("content-type", "").lower()
    if ctype.startswith("multipart/form-data"):
        async def stream():
            yield body

        from faultline.api.upload import in_memory_parser

        form = await in_memory_parser(len(body))(request.headers, stream(),
                                                 max_files=Limits.from_settings().max_files).parse()
        fields: dict[str, Any] = {}
        for key, value in form.multi_items():
            fields.setdefault(key, value)
            if key == "logfile":  # the file picker takes several files
                fields.setdefault("logfiles", []).append(value)
        return fields
    if ctype.startswith("application/x-www-form-urlencoded"):
        fields = {}
        for key, value in parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True):
            fields.setdefault(key, value)
        return fields
    # text/plain (or no type): the body is the log itself
    return {"text": body.decode("utf-8", errors="replace")}


async def _field_text(value: Any) -> str:
    if isinstance(value, UploadFile):
        data = await value.read()
        await value.close()
        return data.decode("utf-8", errors="replace")
    return value if isinstance(value, str) else ""


async def results(request: Request) -> Response:
    snap = snapshot(request)
    lang = page_lang(request)
    _ = gettext_for(lang)
    multipart = request.headers.get("content-type", "").lower().startswith("multipart/form-data")
    limit = Limits.from_settings().max_total_bytes + MULTIPART_OVERHEAD if multipart else MAX_BODY_BYTES
    try:
        body = await read_body(request, limit)
    except ApiError as exc:
        if exc.status != 413:
            raise
        return error_page(request, lang, 413, _("The log is too large"),
                          _("The form can send at most %(limit)s. Paste the part of the log around the first "
                            "error (the first traceback of every rank), or trim repeated lines.",
                            limit=f"{limit / (1 << 20):g} MiB"))
    try:
        fields = await _form_fields(request, body)
    except MultiPartException as exc:
        return error_page(request, lang, 400, _("The form could not be read"), str(exc))
    lang = page_lang(request, fields.get("lang") if isinstance(fields.get("lang"), str) else None)
    _ = gettext_for(lang)
    uploads = [(v.filename or "upload", await v.read()) for v in fields.get("logfiles", [])
               if isinstance(v, UploadFile) and v.filename]
    uploads = [(n, d) for n, d in uploads if d]
    if len(uploads) > 1 or (uploads and is_logset_upload(*uploads[0])):  # several logs of a job (app/logsets)
        text, env_text = await _field_text(fields.get("text")), await _field_text(fields.get("environment"))
        kid = await _keep(request, text, env_text, uploads)
        if kid:
            return _to_kept(request, kid, fields)
        return await _results_of_files(request, snap, lang, uploads, text, env_text)
    if len(body) > MAX_BODY_BYTES:
        return error_page(request, lang, 413, _("The log is too large"),
                          _("The form can send at most %(limit)s. Paste the part of the log around the first "
                            "error (the first traceback of every rank), or trim repeated lines.", limit="1 MiB"))
    text = await _field_text(fields.get("text"))
    upload = uploads[0][1].decode("utf-8", errors="replace") if uploads else ""  # read once, above
    if not text.strip() and upload.strip():
        text = upload
    env_text = await _field_text(fields.get("environment"))
    if not text.strip():
        return home_page(request, snap, lang, text=text, environment_text=env_text, status=422,
                         error=_("The log is empty. Paste a traceback or log (or choose a log file), then submit."))
    kid = await _keep(request, text, env_text, [])
    if kid:
        return _to_kept(request, kid, fields)
    return await _results_of_text(request, snap, lang, text, env_text, note_unknown=True)


async def _results_of_text(request: Request, snap, lang: str, text: str, env_text: str, note_unknown: bool,
                           kept: dict[str, Any] | None = None) -> Response:
    from faultline.api.match import match_while_connected

    result = await match_while_connected(request, snap.index, text, env_text if env_text.strip() else None,
                                         MAX_MATCHES, lang)
    from faultline.api import inbox, outcomes  # rates from outcome reports; the inbox of unknown errors (issue 11)
    result = await outcomes.with_evidence(request, result, lang)
    if note_unknown:  # once per paste: not again for each view of its link
        await inbox.note_unknown(request, result, text)
    return results_page(request, snap, lang, result, text=text, environment_text=env_text, kept=kept)


# ----------------------------------------------------------------------------- results kept for a link


async def _keep(request: Request, text: str, env_text: str, uploads: list[tuple[str, bytes]]) -> str | None:
    """Keep a result page's input under a new id; None when it is too large or the database cannot take it."""
    from faultline.store.written import store_for_app

    doc = {"text": text, "environment": env_text,
           "files": [[name, base64.b64encode(data).decode("ascii")] for name, data in uploads]}
    payload = zlib.compress(json.dumps(doc).encode("utf-8"), 6)
    if len(payload) > KEEP_MAX_BYTES:
        return None
    try:
        return await run_in_threadpool(store_for_app(request.app).keep, payload, KEEP_DAYS * 86400.0, KEEP_MAX)
    except Exception:  # noqa: BLE001 - a read-only or unavailable database: the page, without a link
        log.warning("cannot keep a result for a link; answering it without one", exc_info=True)
        return None


def _to_kept(request: Request, kid: str, fields: dict[str, Any]) -> Response:
    """303 to the kept result, keeping a language the form or the address chose."""
    chosen = None
    for candidate in (fields.get("lang") if isinstance(fields.get("lang"), str) else None,
                      request.query_params.get("lang")):
        try:
            chosen = chosen or explicit(candidate)
        except UnsupportedLanguage:
            pass
    return RedirectResponse(f"/results/{kid}" + (f"?lang={chosen}" if chosen else ""), status_code=303)


async def results_kept(kid: str, request: Request) -> Response:
    """A kept result, matched again in the page's language (rates as they are now)."""
    from faultline.store.written import store_for_app

    snap = snapshot(request)
    lang = page_lang(request)
    _ = gettext_for(lang)
    got = None
    if KEPT_ID.fullmatch(kid):
        try:
            got = await run_in_threadpool(store_for_app(request.app).kept, kid)
        except Exception:  # noqa: BLE001
            log.warning("cannot read a kept result", exc_info=True)
            return error_page(request, lang, 503, _("Something went wrong"),
                              _("The result cannot be read right now. Try again in a moment."))
    if got is None:
        return error_page(request, lang, 404, _("This result is no longer kept"),
                          _("A result is kept for %(days)s days after it was matched. Paste the log again to "
                            "match it.", days=KEEP_DAYS))
    payload, expires, first = got
    doc = json.loads(zlib.decompress(payload))  # written by _keep from a body under the form's limits
    kept = {"url": f"/results/{kid}", "expires": expires, "days": KEEP_DAYS}
    if doc.get("files"):
        uploads = [(name, base64.b64decode(data)) for name, data in doc["files"]]
        resp = await _results_of_files(request, snap, lang, uploads, doc.get("text") or "",
                                       doc.get("environment") or "", kept=kept)
    else:
        resp = await _results_of_text(request, snap, lang, doc.get("text") or "", doc.get("environment") or "",
                                      note_unknown=first, kept=kept)
    resp.headers["Cache-Control"] = "private, no-cache"
    resp.headers["X-Robots-Tag"] = "noindex"
    return resp


def is_logset_upload(name: str, data: bytes) -> bool:
    """One uploaded file that is a set of logs by itself: an archive, or a torchelastic error file."""
    return looks_like_archive(name) or data[:2] == b"\x1f\x8b" or data[:4] == b"PK\x03\x04" or name.endswith(".json")


async def _results_of_files(request: Request, snap, lang: str, uploads: list[tuple[str, bytes]], text: str,
                            env_text: str, kept: dict[str, Any] | None = None) -> Response:
    """The results page for several files (or an archive): one answer, each finding with its file."""
    import threading
    import time

    from faultline.api import outcomes
    from faultline.api.match import in_thread_while_connected
    from faultline.settings import settings

    _ = gettext_for(lang)
    t0 = time.thread_time()
    if text.strip():
        uploads = uploads + [("pasted text", text.encode("utf-8"))]
    try:
        collected = read_uploads(uploads)
    except LogSetError as exc:
        title = _("The files are too large or too many") if exc.status == 413 else _("The files could not be read")
        return error_page(request, lang, exc.status, title, exc.message)
    cancel = threading.Event()
    spent_ms = (time.thread_time() - t0) * 1000

    def work():
        return match_files(snap.index, collected, env_text if env_text.strip() else None, MAX_MATCHES, lang,
                           settings().match_budget_ms, cancel, spent_ms)

    try:
        result = await in_thread_while_connected(request, work, cancel, f"{len(collected.files)} files")
    except LogSetError as exc:
        return error_page(request, lang, exc.status, _("The files could not be read"), exc.message)
    result = await outcomes.with_evidence(request, result, lang)
    return results_page(request, snap, lang, result, text=text, environment_text=env_text, kept=kept)


async def results_get(request: Request) -> Response:
    """A results page exists only as the answer to a form post: go to the form."""
    target = "/" + (f"?lang={request.query_params['lang']}" if request.query_params.get("lang") in SUPPORTED else "")
    return RedirectResponse(target, status_code=303)


async def switch_language(code: str, request: Request, next: str | None = None) -> Response:
    try:
        lang = explicit(code)
    except UnsupportedLanguage:
        lang = None
    if not lang:
        here = page_lang(request)
        _ = gettext_for(here)
        names = ", ".join(f"{NATIVE_NAME[x]} ({x})" for x in SUPPORTED)
        return error_page(request, here, 404, _("Unknown language"),
                          _("This site is available in: %(names)s.", names=names))
    target = strip_lang(next) if is_local_path(next) else "/"
    resp = RedirectResponse(target, status_code=303)
    resp.set_cookie("lang", lang, max_age=COOKIE_MAX_AGE, path="/", samesite="lax", httponly=True,
                    secure=request.url.scheme == "https")
    resp.headers["Cache-Control"] = "no-store"
    return resp


# ----------------------------------------------------------------------------- HTML errors for browsers


def _browser_page_request(request: Request) -> bool:
    path = request.url.path
    return (request.method in ("GET", "HEAD") and wants_html(request)
            and not path.endswith((".json", ".md")) and not path.startswith("/static/"))


def _status_and_detail(exc: Exception) -> tuple[int, str]:
    if isinstance(exc, ApiError):
        return exc.status, exc.message
    if isinstance(exc, UnsupportedLanguage):
        return 422, str(exc)
    if isinstance(exc, StarletteHTTPException):
        return exc.status_code, str(exc.detail)
    if isinstance(exc, RequestValidationError):
        msgs = [f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg')}" for e in exc.errors()]
        return 422, "; ".join(msgs) or "invalid request"
    return 500, "internal error"


def html_error(request: Request, exc: Exception) -> Response:
    status, detail = _status_and_detail(exc)
    lang = page_lang(request)
    _ = gettext_for(lang)
    if isinstance(exc, UnsupportedLanguage):
        names = ", ".join(f"{NATIVE_NAME[x]} ({x})" for x in SUPPORTED)
        return error_page(request, lang, status, _("Unknown language"),
                          _("This site is available in: %(names)s.", names=names))
    titles = {
        404: (_("Not found"), _("There is nothing at this address. Try the search or the list of errors.")),
        405: (_("Not allowed"), _("This address does not answer to this kind of request.")),
        413: (_("Too large"), _("The request is larger than the limit of 1 MiB.")),
        422: (_("Invalid request"), _("Some of the values in the address are not valid.")),
    }
    title, message = titles.get(status, (_("Something went wrong"), _("The request could not be processed.")))
    return error_page(request, lang, status, title, message + " (" + detail + ")")


def _html_or(original):
    async def handler(request: Request, exc: Exception):
        if _browser_page_request(request):
            return html_error(request, exc)
        out = original(request, exc)
        return await out if inspect.isawaitable(out) else out

    return handler


def install(app: FastAPI) -> None:
    app.add_api_route("/", home, methods=["GET"], include_in_schema=False, name="web_home")
    app.add_api_route("/", results, methods=["POST"], include_in_schema=False, name="web_results_root")
    app.add_api_route("/results", results, methods=["POST"], include_in_schema=False, name="web_results")
    app.add_api_route("/results", results_get, methods=["GET"], include_in_schema=False, name="web_results_get")
    app.add_api_route("/results/{kid}", results_kept, methods=["GET"], include_in_schema=False, name="web_results_kept")
    app.add_api_route("/lang/{code}", switch_language, methods=["GET"], include_in_schema=False, name="web_lang")
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    # Browsers get the errors of the API routes (404, 422, ...) as pages; API clients keep the JSON problems.
    for exc_class in (ApiError, UnsupportedLanguage, StarletteHTTPException, RequestValidationError):
        original = app.exception_handlers.get(exc_class)
        if original is not None:
            app.add_exception_handler(exc_class, _html_or(original))
