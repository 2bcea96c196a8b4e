"""Errors the local service answers with: known errors from the catalogue, plain-text errors.

Handlers raise them; the endpoint layer renders them (service-api A1.5 and A2).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
from functools import lru_cache
from importlib import resources
from typing import Any

from starlette.responses import PlainTextResponse, Response

from .api_version import current_api
from .responses import json_response


@lru_cache(maxsize=1)
def catalogue() -> dict[str, dict[str, Any]]:
    text = resources.files("authmw").joinpath("catalogue.json").read_text(encoding="utf-8")
    return {entry["code"]: entry for entry in json.loads(text)["errors"]}


class ServiceError(Exception):
    """Anything the service turns into an error response."""

    def to_response(self) -> Response:  # pragma: no cover - abstract
        raise NotImplementedError


class CatalogueError(ServiceError):
    """`raise CatalogueError("PASSWORD_TOO_SHORT", min_length=8)`: answer with a code of the
    catalogue (the service's side of what the SDK raises as `authmw.errors.KnownError`).

    Keyword arguments fill the catalogue's message template and its `details` fields;
    arguments that are not detail fields only feed the message.
    """

    def __init__(self, code: str, **args: Any) -> None:
        entry = catalogue().get(code)
        if entry is None or entry.get("abstract"):
            raise ValueError(f"{code} is not a concrete code of authmw/catalogue.json")
        optional = entry.get("details_added_in_2_8", ())
        missing = [name for name in entry["details"] if name not in args and name not in optional]
        if missing:
            raise ValueError(f"{code} needs the detail fields {', '.join(missing)}")
        self.code = code
        self.status: int = entry["status"]
        self.details = {name: args[name] for name in entry["details"] if name in args}
        self.message = entry["message"].format_map(args)
        if current_api().name == "2.7":
            # 2.7 had neither these details nor the 2.8 wording (service-api B2.2).
            for name in optional:
                self.details.pop(name, None)
        elif "message_2_8" in entry:
            with contextlib.suppress(KeyError):  # the 2.8 wording, when its values were given
                self.message = entry["message_2_8"].format_map(args)
        super().__init__(f"{code}: {self.message}")

    def to_response(self) -> Response:
        body: dict[str, Any] = {"code": self.code}
        if self.details:
            body["details"] = self.details
        body["error"] = self.message
        return json_response(body, self.status, headers={"x-stack-known-error": self.code})


class PlainError(ServiceError):
    """A `text/plain` error without a code, e.g. 400 `User already has a password set.`"""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def to_response(self) -> Response:
        return PlainTextResponse(self.message, self.status)


class OAuthError(ServiceError):
    """RFC 6749 error JSON (`{"error": "invalid_request", ...}`), no known-error header."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status

    def to_response(self) -> Response:
        return json_response({"error": self.error, "error_description": self.description}, self.status)


def schema_error(method: str, pathname: str, problems: list[str]) -> CatalogueError:
    text = f"Request validation failed on {method} {pathname}:\n" + "\n".join(f"  - {problem}" for problem in problems)
    return CatalogueError("SCHEMA_ERROR", message=text)


def expired_error(code: str, exp_seconds: int | float | None, **ids: Any) -> CatalogueError:
    """ACCESS_TOKEN_EXPIRED / ADMIN_ACCESS_TOKEN_EXPIRED with the optional time suffix; `ids`
    (project_id, user_id, refresh_token_id) fill the details the 2.8 catalogue entry has."""
    if exp_seconds is None:
        return CatalogueError(code, expired_at_millis=None, expired_suffix="", **{"ids_suffix": "", **ids})
    when = _dt.datetime.fromtimestamp(exp_seconds, tz=_dt.timezone.utc)
    iso = when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
    return CatalogueError(
        code,
        expired_at_millis=int(exp_seconds * 1000),
        expired_suffix=f" (The access token expired at {iso}.)",
        **{"ids_suffix": "", **ids},
    )


INTERNAL_ERROR_TEXT = "Something went wrong. Please make sure the data you entered is correct."


def email_taken(email: str, *, would_work_if_email_was_verified: bool = False) -> CatalogueError:
    """USER_EMAIL_ALREADY_EXISTS with the details and wording 2.8 gives it (service-api B2.2)."""
    suffix = (
        " but the email is not verified. Please login to your existing account with the method you used to sign up,"
        " and then verify your email to sign in with this login method."
        if would_work_if_email_was_verified
        else "."
    )
    return CatalogueError(
        "USER_EMAIL_ALREADY_EXISTS",
        email=email,
        would_work_if_email_was_verified=would_work_if_email_was_verified,
        unverified_suffix=suffix,
    )
