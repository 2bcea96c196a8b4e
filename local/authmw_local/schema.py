"""Request validation with the service's problem texts (service-api A1.4).

A spec describes one value; `Obj` rejects unknown properties. `check(spec, value, "body")`
returns the cleaned value and appends problems such as `body.email must be defined`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from .api_version import current_api
from .ids import is_uuid

MISSING: Any = object()

_EMAIL_RE = re.compile(
    r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$"
)
_STRICT_TLD_RE = re.compile(r"\.[^.]{2,}$")
_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def is_email(value: str, *, strict: bool = False) -> bool:
    if not _EMAIL_RE.match(value):
        return False
    return not strict or bool(_STRICT_TLD_RE.search(value))


def is_url(value: str) -> bool:
    from urllib.parse import urlsplit

    if not _SCHEME_RE.match(value) or any(ch.isspace() for ch in value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    if parts.scheme.lower() in ("http", "https"):
        return bool(parts.hostname)
    return True


def _describe(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


class Unprefixed(str):
    """A `test` message used as written, without the field's path before it (as the service
    words some of its checks, e.g. "URL must start with http:// or https://")."""


class Spec:
    type_name = "mixed"

    def __init__(self, *, required: bool = False, nullable: bool = False) -> None:
        self.required = required
        self.nullable = nullable

    def check(self, value: Any, path: str, problems: list[str], query: bool = False) -> Any:
        if value is MISSING:
            if self.required:
                problems.append(f"{path} must be defined")
            return MISSING
        if value is None:
            if not self.nullable:
                problems.append(f"{path} cannot be null")
            return None
        return self.check_value(value, path, problems, query)

    def check_value(self, value: Any, path: str, problems: list[str], query: bool) -> Any:
        return value

    def wrong_type(self, value: Any, path: str, problems: list[str]) -> Any:
        problems.append(f"{path} must be a `{self.type_name}` type, but the final value was: `{_describe(value)}`.")
        return MISSING


class Json(Spec):
    """Any JSON value (metadata fields)."""

    def __init__(self, *, required: bool = False) -> None:
        super().__init__(required=required, nullable=True)


class Str(Spec):
    type_name = "string"

    def __init__(
        self,
        *,
        required: bool = False,
        nullable: bool = False,
        min_length: int | None = None,
        max_length: int | None = None,
        email: bool = False,
        strict_email: bool = False,
        url: bool = False,
        one_of: tuple[str, ...] | None = None,
        pattern: str | None = None,
        test: Callable[[str], str | None] | None = None,
        non_empty: bool = False,
    ) -> None:
        super().__init__(required=required, nullable=nullable)
        #: "" is refused as "must not be empty" (the service's other string checks pass "" by).
        self.non_empty = non_empty
        self.min_length = min_length
        self.max_length = max_length
        self.email = email or strict_email
        self.strict_email = strict_email
        self.url = url
        self.one_of = one_of
        self.pattern = re.compile(pattern) if pattern else None
        self.test = test

    def check_value(self, value: Any, path: str, problems: list[str], query: bool) -> Any:
        if not isinstance(value, str):
            return self.wrong_type(value, path, problems)
        before = len(problems)
        if self.non_empty and value == "":
            problems.append(f"{path} must not be empty")
            return value
        if self.one_of is not None and value not in self.one_of:
            problems.append(f"{path} must be one of the following values: {', '.join(self.one_of)}")
        if self.min_length is not None and len(value) < self.min_length:
            problems.append(f"{path} must be at least {self.min_length} characters")
        if self.max_length is not None and len(value) > self.max_length:
            problems.append(f"{path} must be at most {self.max_length} characters")
        if self.email and not is_email(value, strict=self.strict_email):
            problems.append(f"{path} must be a valid email")
        if self.url and " " in value and current_api().url_space_problem:
            problems.append(f"{path} contains spaces")
        if self.url and not is_url(value):
            problems.append(f"{path} is not a valid URL")
        if self.pattern is not None and not self.pattern.search(value):
            problems.append(f'{path} must match the following: "{self.pattern.pattern}"')
        if self.test is not None and len(problems) == before:
            message = self.test(value)
            if message:
                problems.append(message if isinstance(message, Unprefixed) else f"{path} {message}")
        return value


class Uuid(Spec):
    """A UUID; `allow_me=True` also accepts "me" (service-api A1.4)."""

    type_name = "string"

    def __init__(self, *, required: bool = False, nullable: bool = False, allow_me: bool = False) -> None:
        super().__init__(required=required, nullable=nullable)
        self.allow_me = allow_me

    def check_value(self, value: Any, path: str, problems: list[str], query: bool) -> Any:
        if not isinstance(value, str):
            return self.wrong_type(value, path, problems)
        if self.allow_me and value == "me":
            return value
        if not is_uuid(value):
            problems.append(f"{path} must be a valid UUID")
        return value.lower()


class Bool(Spec):
    """A boolean; `only=True` / `only=False` accepts just that value."""

    type_name = "boolean"

    def __init__(self, *, required: bool = False, nullable: bool = False, only: bool | None = None) -> None:
        super().__init__(required=required, nullable=nullable)
        self.only = only

    def check_value(self, value: Any, path: str, problems: list[str], query: bool) -> Any:
        if query and value in ("true", "false"):
            value = value == "true"
        if not isinstance(value, bool):
            return self.wrong_type(value, path, problems)
        if self.only is not None and value is not self.only:
            problems.append(f"{path} must be one of the following values: {str(self.only).lower()}")
        return value


class Num(Spec):
    type_name = "number"

    def __init__(
        self,
        *,
        required: bool = False,
        nullable: bool = False,
        integer: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        super().__init__(required=required, nullable=nullable)
        self.integer = integer
        self.min_value = min_value
        self.max_value = max_value

    def check_value(self, value: Any, path: str, problems: list[str], query: bool) -> Any:
        if query and isinstance(value, str):
            try:
                value = float(value) if value.strip() else value
            except ValueError:
                pass
            if isinstance(value, float) and value.is_integer():
                value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
            value = _as_js_number(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return self.wrong_type(value, path, problems)
        if abs(value) > MAX_SAFE_INTEGER:
            # Beyond what a JavaScript client can hold exactly (and SQLite's 64-bit integers).
            bound = "less than or equal to" if value > 0 else "greater than or equal to"
            problems.append(f"{path} must be {bound} {MAX_SAFE_INTEGER if value > 0 else -MAX_SAFE_INTEGER}")
            return value
        if self.integer and not float(value).is_integer():
            problems.append(f"{path} must be an integer")
        if self.min_value is not None and value < self.min_value:
            problems.append(f"{path} must be greater than or equal to {_num(self.min_value)}")
        if self.max_value is not None and value > self.max_value:
            problems.append(f"{path} must be less than or equal to {_num(self.max_value)}")
        return value


#: Number.MAX_SAFE_INTEGER: the largest magnitude every number field accepts.
MAX_SAFE_INTEGER = 2**53 - 1


def _as_js_number(value: int) -> float:
    """A JSON integer as JavaScript reads it: a float, or +/-Infinity when it is out of range."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class Arr(Spec):
    type_name = "array"

    def __init__(self, item: Spec, *, required: bool = False, nullable: bool = False) -> None:
        super().__init__(required=required, nullable=nullable)
        self.item = item

    def check_value(self, value: Any, path: str, problems: list[str], query: bool) -> Any:
        if not isinstance(value, list):
            return self.wrong_type(value, path, problems)
        return [self.item.check(v, f"{path}[{i}]", problems, query) for i, v in enumerate(value)]


class Obj(Spec):
    """An object with known properties; others are rejected unless `allow_unknown`."""

    type_name = "object"

    def __init__(
        self,
        fields: dict[str, Spec],
        *,
        required: bool = False,
        nullable: bool = False,
        allow_unknown: bool = False,
        test: Callable[[dict[str, Any]], str | None] | None = None,
    ) -> None:
        super().__init__(required=required, nullable=nullable)
        self.fields = fields
        self.allow_unknown = allow_unknown
        #: A check of the whole object (after its fields passed), as a problem message or None.
        self.test = test

    def check_value(self, value: Any, path: str, problems: list[str], query: bool) -> Any:
        if not isinstance(value, dict):
            return self.wrong_type(value, path, problems)
        unknown = [key for key in value if key not in self.fields]
        if unknown and not self.allow_unknown:
            problems.append(f"{path} contains unknown properties: {', '.join(unknown)}")
        # Unknown properties pass through untouched when they are allowed.
        result: dict[str, Any] = {k: v for k, v in value.items() if k not in self.fields}
        for name, spec in self.fields.items():
            cleaned = spec.check(value.get(name, MISSING), f"{path}.{name}", problems, query)
            if cleaned is not MISSING:
                result[name] = cleaned
        if self.test is not None and not problems:
            message = self.test(result)
            if message:
                problems.append(message if isinstance(message, Unprefixed) else f"{path} {message}")
        return result


#: The usual password field: a string of at most 70 characters (service-api A7.2).
def password(*, required: bool = True, nullable: bool = False) -> Str:
    return Str(required=required, nullable=nullable, max_length=70)
