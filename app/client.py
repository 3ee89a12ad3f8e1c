"""A typed Python client for the Faultline HTTP API (httpx; sync ``Client`` and async ``AsyncClient``).

    from faultline.client import Client

    with Client("http://127.0.0.1:8000") as fl:
        res = fl.match(open("train.log").read(), lang="en")
        if res.matches:
            print(res.matches[0].id, res.matches[0].workarounds[0].action)

Responses are the API's own pydantic models (``app/schemas``); an error answer raises
``FaultlineError`` (or its subclass for the status) carrying the API's ``code`` and ``message``.
"""
from __future__ import annotations

from typing import Any, Optional, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from faultline.schemas.common import Health
from faultline.schemas.entries import EntryList, EntryView, GuideList, GuideView
from faultline.schemas.match import MatchResponse
from faultline.schemas.outcomes import OutcomeOut as OutcomeReport

M = TypeVar("M", bound=BaseModel)
DEFAULT_URL = "http://127.0.0.1:8000"


class FaultlineError(Exception):
    """An error answer from the service: ``status`` (HTTP), ``code`` (e.g. ``not_found``), ``message``."""

    def __init__(self, status: int, code: str, message: str, body: Any = None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.body = status, code, message, body


class NotFound(FaultlineError):
    pass


class Unauthorized(FaultlineError):
    pass


class InvalidRequest(FaultlineError):
    pass


class RateLimited(FaultlineError):
    def __init__(self, *a, retry_after: float | None = None, **kw):
        super().__init__(*a, **kw)
        self.retry_after = retry_after


_BY_STATUS = {401: Unauthorized, 403: Unauthorized, 404: NotFound, 413: InvalidRequest, 415: InvalidRequest,
              422: InvalidRequest, 429: RateLimited}


def _raise_for(r: httpx.Response) -> None:
    if r.status_code < 400:
        return
    try:
        body = r.json()
        err = body.get("error", {}) if isinstance(body, dict) else {}
    except ValueError:
        body, err = r.text, {}
    code = err.get("code") or ("http_error" if r.status_code < 500 else "server_error")
    message = err.get("message") or (r.text[:300] if isinstance(body, str) else r.reason_phrase)
    cls = _BY_STATUS.get(r.status_code, FaultlineError)
    if cls is RateLimited:
        ra = r.headers.get("retry-after")
        raise RateLimited(r.status_code, code, message, body, retry_after=float(ra) if ra and ra.isdigit() else None)
    raise cls(r.status_code, code, message, body)


def _match_body(text: str, environment: Any, limit: int, lang: Optional[str]) -> dict[str, Any]:
    body: dict[str, Any] = {"text": text, "limit": limit}
    if environment is not None:
        body["environment"] = environment
    if lang is not None:
        body["lang"] = lang
    return body


def _params(**kw) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


def _outcome_body(worked: bool, workaround: int | str | None, dead_end: int | str | None, environment: Any,
                  note: Optional[str]) -> dict[str, Any]:
    body: dict[str, Any] = {"worked": worked}
    for key, value in (("workaround", workaround), ("dead_end", dead_end), ("environment", environment), ("note", note)):
        if value is not None:
            body[key] = value
    return body


class _Base:
    def __init__(self, base_url: str, lang: Optional[str], token: Optional[str]):
        self.base_url = base_url.rstrip("/")
        self.lang = lang
        self.token = token

    def _headers(self, auth: bool = False, token: Optional[str] = None) -> dict[str, str]:
        h = {"Accept": "application/json"}
        if auth:
            token = token or self.token
            if not token:
                raise Unauthorized(401, "unauthorized", "this call needs a token: Client(..., token=...)")
            h["Authorization"] = f"Bearer {token}"
        return h

    def _lang(self, lang: Optional[str]) -> Optional[str]:
        return lang if lang is not None else self.lang


class Client(_Base):
    """Synchronous client.  ``Client(base_url, lang=None, token=None, timeout=30)``; use as a context manager."""

    def __init__(self, base_url: str = DEFAULT_URL, *, lang: Optional[str] = None, token: Optional[str] = None,
                 timeout: float = 30.0, transport: httpx.BaseTransport | None = None):
        super().__init__(base_url, lang, token)
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def get_json(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """GET ``path``, the JSON answer as it is (errors raised as FaultlineError)."""
        try:
            r = self._http.get(path, params=params, headers=self._headers())
        except httpx.HTTPError as exc:
            raise FaultlineError(0, "unreachable", f"cannot reach {self.base_url}: {exc}") from None
        _raise_for(r)
        return r.json()

    def post_json(self, path: str, body: dict[str, Any], auth: bool = False, token: Optional[str] = None) -> Any:
        """POST a JSON body to ``path`` (with the token when ``auth``), the JSON answer as it is."""
        try:
            r = self._http.post(path, json=body, headers=self._headers(auth, token))
        except httpx.HTTPError as exc:
            raise FaultlineError(0, "unreachable", f"cannot reach {self.base_url}: {exc}") from None
        _raise_for(r)
        return r.json()

    def match_json(self, text: str, *, environment: Any = None, limit: int = 5, lang: Optional[str] = None) -> dict:
        """``POST /match``, the response as plain JSON."""
        return self.post_json("/match", _match_body(text, environment, limit, self._lang(lang)))

    def match(self, text: str, *, environment: Any = None, limit: int = 5, lang: Optional[str] = None) -> MatchResponse:
        """``POST /match``: the known errors in a traceback or log, best first."""
        return MatchResponse.model_validate(self.match_json(text, environment=environment, limit=limit, lang=lang))

    def errors(self, q: Optional[str] = None, *, tag: Optional[str] = None, domain: Optional[str] = None,
               page: int = 1, per_page: int = 20, lang: Optional[str] = None) -> EntryList:
        """``GET /errors``: list and search entries."""
        return EntryList.model_validate(self.get_json("/errors", _params(q=q, tag=tag, domain=domain, page=page,
                                                                     per_page=per_page, lang=self._lang(lang))))

    def error(self, entry_id: str, *, lang: Optional[str] = None) -> EntryView:
        """``GET /errors/{id}``: one entry."""
        return EntryView.model_validate(self.get_json(f"/errors/{quote(entry_id)}", _params(lang=self._lang(lang))))

    def guides(self, *, lang: Optional[str] = None) -> GuideList:
        return GuideList.model_validate(self.get_json("/guides", _params(lang=self._lang(lang))))

    def guide(self, guide_id: str, *, lang: Optional[str] = None) -> GuideView:
        return GuideView.model_validate(self.get_json(f"/guides/{quote(guide_id)}", _params(lang=self._lang(lang))))

    def health(self) -> Health:
        return Health.model_validate(self.get_json("/healthz"))

    def report_outcome(self, entry_id: str, worked: bool, *, workaround: int | str | None = None,
                       dead_end: int | str | None = None, environment: Any = None,
                       note: Optional[str] = None) -> OutcomeReport:
        """``POST /errors/{id}/outcomes``: whether a workaround (or a dead end), by 1-based index or id, worked.
        Needs a token with the ``report`` scope."""
        body = _outcome_body(worked, workaround, dead_end, environment, note)
        return OutcomeReport.model_validate(self.post_json(f"/errors/{quote(entry_id)}/outcomes", body, auth=True))


class AsyncClient(_Base):
    """Asynchronous client with the same methods as ``Client``; ``async with AsyncClient(url) as fl: ...``."""

    def __init__(self, base_url: str = DEFAULT_URL, *, lang: Optional[str] = None, token: Optional[str] = None,
                 timeout: float = 30.0, transport: httpx.AsyncBaseTransport | None = None):
        super().__init__(base_url, lang, token)
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, transport=transport)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def get_json(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """GET ``path``, the JSON answer as it is (errors raised as FaultlineError)."""
        try:
            r = await self._http.get(path, params=params, headers=self._headers())
        except httpx.HTTPError as exc:
            raise FaultlineError(0, "unreachable", f"cannot reach {self.base_url}: {exc}") from None
        _raise_for(r)
        return r.json()

    async def post_json(self, path: str, body: dict[str, Any], auth: bool = False, token: Optional[str] = None) -> Any:
        """POST a JSON body to ``path`` (with the token when ``auth``), the JSON answer as it is."""
        try:
            r = await self._http.post(path, json=body, headers=self._headers(auth, token))
        except httpx.HTTPError as exc:
            raise FaultlineError(0, "unreachable", f"cannot reach {self.base_url}: {exc}") from None
        _raise_for(r)
        return r.json()

    async def match_json(self, text: str, *, environment: Any = None, limit: int = 5,
                         lang: Optional[str] = None) -> dict:
        return await self.post_json("/match", _match_body(text, environment, limit, self._lang(lang)))

    async def match(self, text: str, *, environment: Any = None, limit: int = 5,
                    lang: Optional[str] = None) -> MatchResponse:
        data = await self.match_json(text, environment=environment, limit=limit, lang=lang)
        return MatchResponse.model_validate(data)

    async def errors(self, q: Optional[str] = None, *, tag: Optional[str] = None, domain: Optional[str] = None,
                     page: int = 1, per_page: int = 20, lang: Optional[str] = None) -> EntryList:
        data = await self.get_json("/errors", _params(q=q, tag=tag, domain=domain, page=page, per_page=per_page,
                                                  lang=self._lang(lang)))
        return EntryList.model_validate(data)

    async def error(self, entry_id: str, *, lang: Optional[str] = None) -> EntryView:
        return EntryView.model_validate(await self.get_json(f"/errors/{quote(entry_id)}", _params(lang=self._lang(lang))))

    async def guides(self, *, lang: Optional[str] = None) -> GuideList:
        return GuideList.model_validate(await self.get_json("/guides", _params(lang=self._lang(lang))))

    async def guide(self, guide_id: str, *, lang: Optional[str] = None) -> GuideView:
        return GuideView.model_validate(await self.get_json(f"/guides/{quote(guide_id)}", _params(lang=self._lang(lang))))

    async def health(self) -> Health:
        return Health.model_validate(await self.get_json("/healthz"))

    async def report_outcome(self, entry_id: str, worked: bool, *, workaround: int | str | None = None,
                             dead_end: int | str | None = None, environment: Any = None,
                             note: Optional[str] = None) -> OutcomeReport:
        body = _outcome_body(worked, workaround, dead_end, environment, note)
        return OutcomeReport.model_validate(await self.post_json(f"/errors/{quote(entry_id)}/outcomes", body, auth=True))
