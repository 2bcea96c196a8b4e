"""Sign-up rules (API 2.8): allow, reject, restrict or log a sign-up by a condition.

A project's rules live in its config as `sign_up_rules` ({rule id: rule}) and
`sign_up_rules_default_action` ("allow" or "reject"); the 2.8 way to set them is a config
override of `auth.signUpRules.<id>` and `auth.signUpRulesDefaultAction` (routes/config_override.py).
A rule is `{"enabled", "displayName", "priority", "condition", "action": {"type", "message"}}`.

Every sign-up path asks `check_sign_up` before it makes (or upgrades an anonymous user into) an
account: password sign-up, a new account by OTP / magic link, OAuth and passkey sign-ups. The
creation of an anonymous user is not a sign-up and is not checked. The enabled rules are tried
from the highest `priority` down (ties by rule id); `log` rules only match, the first matching
`restrict` rule marks the new user restricted by the administrator (and evaluation goes on), the
first matching `allow` or `reject` decides; when none decides, the default action does.

Conditions are expressions of Google's Common Expression Language over the sign-up's facts:
`email`, `emailDomain` (the e-mail lower-cased), `authMethod` ("password", "otp", "oauth",
"passkey"), `oauthProvider`, `countryCode` (ISO alpha-2 or "") and `riskScores.bot` /
`riskScores.free_trial_abuse` (always 0 here: the local service scores no risk). The backend
evaluates the part of CEL it needs (literals, lists, `== != < <= > >= in`, `! && ||`,
parentheses, field access and the string methods `contains`, `startsWith`, `endsWith`,
`matches`); this module parses exactly that part itself rather than pulling in a CEL library
(cel-python brings seven packages, among them a native RE2 binding, and RE2 has no
backreferences, which the backend's `matches` supports). A condition that does not parse is
refused when the rule is saved; one that fails while evaluated (a bad regular expression)
does not match, as on the backend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import end_user
from .errors import CatalogueError

ACTIONS = ("allow", "reject", "restrict", "log")
DEFAULT_ACTIONS = ("allow", "reject")
AUTH_METHODS = ("password", "otp", "oauth", "passkey")
#: What the user is told; the rule's own `message` is for the project's staff only.
REJECTED_MESSAGE = "Your sign up was rejected by an administrator's sign-up rule."
RULE_FIELDS = ("enabled", "displayName", "priority", "condition", "action")


class CelError(ValueError):
    """A condition that does not parse, or fails while evaluated."""


# -- the expression language -------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<string>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
    | (?P<number>\d+(?:\.\d+)?)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op>==|!=|<=|>=|&&|\|\||[<>!().,\[\]])
    )""",
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "`": "`", "?": "?"}
_METHODS = ("contains", "startsWith", "endsWith", "matches")


def _unescape(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:
            raise CelError(f"unknown escape sequence \\{nxt} in a string")
    return "".join(out)


def _tokens(source: str) -> list[tuple[str, Any]]:
    tokens: list[tuple[str, Any]] = []
    position = 0
    source = source.rstrip()
    while position < len(source):
        match = _TOKEN.match(source, position)
        if match is None or match.end() == position:
            raise CelError(f"unexpected character {source[position:].lstrip()[:1]!r} at position {position}")
        kind = match.lastgroup
        text = match.group(kind or "op")
        if kind == "string":
            tokens.append(("value", _unescape(text[1:-1])))
        elif kind == "number":
            tokens.append(("value", float(text) if "." in text else int(text)))
        elif kind == "name" and text in ("true", "false", "null"):
            tokens.append(("value", {"true": True, "false": False, "null": None}[text]))
        elif kind == "name" and text == "in":
            tokens.append(("op", "in"))
        else:
            tokens.append((kind or "op", text))
        position = match.end()
    return tokens


# A parsed expression is a tuple tree: ("value", v), ("name", n), ("field", e, n),
# ("call", e, method, arg), ("list", [e]), ("not", e), ("and"|"or", a, b), ("cmp", op, a, b).
Node = tuple[Any, ...]


class _Parser:
    def __init__(self, source: str) -> None:
        self.tokens = _tokens(source)
        self.at = 0

    def parse(self) -> Node:
        if not self.tokens:
            raise CelError("the condition is empty")
        node = self._or()
        if self.at != len(self.tokens):
            raise CelError(f"unexpected {self.tokens[self.at][1]!r} after a complete expression")
        return node

    def _peek(self) -> tuple[str, Any] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self, op: str) -> bool:
        token = self._peek()
        if token is not None and token == ("op", op):
            self.at += 1
            return True
        return False

    def _expect(self, op: str) -> None:
        if not self._take(op):
            token = self._peek()
            raise CelError(f"expected {op!r}, found {'the end' if token is None else repr(token[1])}")

    def _or(self) -> Node:
        node = self._and()
        while self._take("||"):
            node = ("or", node, self._and())
        return node

    def _and(self) -> Node:
        node = self._unary()
        while self._take("&&"):
            node = ("and", node, self._unary())
        return node

    def _unary(self) -> Node:
        if self._take("!"):
            return ("not", self._unary())
        node = self._postfix()
        token = self._peek()
        if token is not None and token[0] == "op" and token[1] in ("==", "!=", "<", "<=", ">", ">=", "in"):
            self.at += 1
            return ("cmp", token[1], node, self._postfix())
        return node

    def _postfix(self) -> Node:
        node = self._primary()
        while self._take("."):
            token = self._peek()
            if token is None or token[0] != "name":
                raise CelError("expected a field or method name after '.'")
            self.at += 1
            if self._take("("):
                if token[1] not in _METHODS:
                    raise CelError(f"unknown method {token[1]}(); the string methods are {', '.join(_METHODS)}")
                argument = self._or()
                self._expect(")")
                node = ("call", node, token[1], argument)
            else:
                node = ("field", node, token[1])
        return node

    def _primary(self) -> Node:
        token = self._peek()
        if token is None:
            raise CelError("the condition ends where a value was expected")
        self.at += 1
        kind, text = token
        if kind == "value":
            return ("value", text)
        if kind == "name":
            return ("name", text)
        if text == "(":
            node = self._or()
            self._expect(")")
            return node
        if text == "[":
            items: list[Node] = []
            if not self._take("]"):
                items.append(self._or())
                while self._take(","):
                    items.append(self._or())
                self._expect("]")
            return ("list", items)
        raise CelError(f"unexpected {text!r}")


def parse_condition(source: str) -> Node:
    """The parsed condition; CelError naming what is wrong."""
    return _Parser(source).parse()


def _evaluate(node: Node, facts: dict[str, Any]) -> Any:
    kind = node[0]
    if kind == "value":
        return node[1]
    if kind == "name":
        if node[1] not in facts:
            raise CelError(f"unknown name {node[1]!r}")
        return facts[node[1]]
    if kind == "field":
        base = _evaluate(node[1], facts)
        if not isinstance(base, dict) or node[2] not in base:
            raise CelError(f"no field {node[2]!r}")
        return base[node[2]]
    if kind == "list":
        return [_evaluate(item, facts) for item in node[1]]
    if kind == "not":
        return not _boolean(_evaluate(node[1], facts))
    if kind == "and":
        return _boolean(_evaluate(node[1], facts)) and _boolean(_evaluate(node[2], facts))
    if kind == "or":
        return _boolean(_evaluate(node[1], facts)) or _boolean(_evaluate(node[2], facts))
    if kind == "call":
        target, argument = _evaluate(node[1], facts), _evaluate(node[3], facts)
        if not isinstance(target, str) or not isinstance(argument, str):
            raise CelError(f"{node[2]}() works on strings")
        if node[2] == "contains":
            return argument in target
        if node[2] == "startsWith":
            return target.startswith(argument)
        if node[2] == "endsWith":
            return target.endswith(argument)
        try:
            return re.search(argument, target) is not None
        except re.error as error:
            raise CelError(f"invalid regular expression in matches(): {error}") from None
    op, left, right = node[1], _evaluate(node[2], facts), _evaluate(node[3], facts)
    if op == "in":
        if not isinstance(right, list):
            raise CelError("the right side of 'in' must be a list")
        return left in right
    if op == "==":
        return left == right
    if op == "!=":
        return left != right
    return _ordered(op, left, right)


def _ordered(op: str, left: Any, right: Any) -> bool:
    numbers = (int, float)
    comparable = (isinstance(left, numbers) and isinstance(right, numbers)) or (
        isinstance(left, str) and isinstance(right, str)
    )
    if not comparable or isinstance(left, bool) or isinstance(right, bool):
        raise CelError(f"'{op}' compares two numbers or two strings")
    result: bool = {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    return result


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise CelError(f"expected a boolean, got {value!r}")
    return value


def evaluate_condition(source: str, facts: dict[str, Any]) -> bool:
    return _boolean(_evaluate(parse_condition(source), facts))


# -- rules in a project's config -------------------------------------------------------------


def default_rule() -> dict[str, Any]:
    """A rule's fields before an override sets them (the backend's defaults)."""
    return {"enabled": False, "displayName": None, "priority": 0, "condition": None, "action": {"type": "allow"}}


def checked_rule(rule_id: str, value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """`value` laid over `base` (or the defaults) and checked; ValueError naming the problem."""
    where = f"auth.signUpRules.{rule_id}"
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]*", rule_id):
        raise ValueError(f"{where}: a rule id holds letters, digits, '_' and '-' only")
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be an object with {', '.join(RULE_FIELDS)}")
    unknown = sorted(set(value) - set(RULE_FIELDS))
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r} (the fields are {', '.join(RULE_FIELDS)})")
    rule = {**(base or default_rule()), **value}
    if not isinstance(rule["enabled"], bool):
        raise ValueError(f"{where}.enabled must be a boolean")
    if rule["displayName"] is not None and not isinstance(rule["displayName"], str):
        raise ValueError(f"{where}.displayName must be a string")
    priority = rule["priority"]
    if isinstance(priority, bool) or not isinstance(priority, int) or priority < 0:
        raise ValueError(f"{where}.priority must be a whole number of 0 or more")
    if rule["condition"] is not None:
        if not isinstance(rule["condition"], str):
            raise ValueError(f"{where}.condition must be a string (a CEL expression)")
        try:
            parse_condition(rule["condition"])
        except CelError as error:
            raise ValueError(f"{where}.condition does not parse: {error}") from None
    action = rule["action"]
    if not isinstance(action, dict) or action.get("type") not in ACTIONS or set(action) - {"type", "message"}:
        raise ValueError(f"{where}.action must be {{\"type\": one of {', '.join(ACTIONS)}, \"message\"?: string}}")
    if action.get("message") is not None and not isinstance(action["message"], str):
        raise ValueError(f"{where}.action.message must be a string")
    return rule


def ordered_rules(config: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The rules in evaluation order: highest priority first, then by id."""
    rules: dict[str, dict[str, Any]] = config.get("sign_up_rules") or {}
    return sorted(rules.items(), key=lambda item: (-item[1]["priority"], item[0]))


@dataclass(frozen=True)
class Decision:
    allowed: bool
    #: The first matching `restrict` rule (id, display name), or None.
    restricted_by: tuple[str, str | None] | None
    #: "allow" / "reject" (a rule decided: `rule_id`) or "default-allow" / "default-reject".
    decision: str = "default-allow"
    rule_id: str | None = None


@dataclass(frozen=True)
class Evaluation:
    rule_id: str
    rule: dict[str, Any]
    #: "matched", "not_matched", "disabled", "missing_condition" or "error" (`error` says why)
    status: str
    error: str | None = None


def trace(config: dict[str, Any], facts: dict[str, Any]) -> tuple[list[Evaluation], Decision]:
    """The rules tried, in order, up to the one that decides, and the decision."""
    evaluations: list[Evaluation] = []
    restricted_by: tuple[str, str | None] | None = None
    for rule_id, rule in ordered_rules(config):
        if not rule["enabled"] or not rule["condition"]:
            evaluations.append(Evaluation(rule_id, rule, "disabled" if not rule["enabled"] else "missing_condition"))
            continue
        try:
            matched = evaluate_condition(rule["condition"], facts)
        except CelError as error:  # as on the backend: a failing condition does not match
            evaluations.append(Evaluation(rule_id, rule, "error", str(error)))
            continue
        evaluations.append(Evaluation(rule_id, rule, "matched" if matched else "not_matched"))
        if not matched:
            continue
        action = rule["action"]["type"]
        if action == "restrict" and restricted_by is None:
            restricted_by = (rule_id, rule.get("displayName"))
        if action in ("allow", "reject"):
            return evaluations, Decision(action == "allow", restricted_by, action, rule_id)
    allowed = config.get("sign_up_rules_default_action", "allow") != "reject"
    return evaluations, Decision(allowed, restricted_by, "default-allow" if allowed else "default-reject")


def decide(config: dict[str, Any], facts: dict[str, Any]) -> Decision:
    return trace(config, facts)[1]


_COUNTRY_TAG = re.compile(r"^[^+]+\+([A-Za-z]{2})@example\.com$", re.IGNORECASE)


def sign_up_facts(
    email: str | None, auth_method: str, oauth_provider: str | None = None, country_code: str | None = None
) -> dict[str, Any]:
    """What a condition can test; the country is `country_code` when given (OTP: where the code
    was asked for), else the request's. As the backend does outside production, an address
    `name+CC@example.com` stands for a sign-up from country CC (the local service only runs
    for development, where no request comes from a real place)."""
    address = (email or "").strip().lower()
    info = end_user.current()
    country = country_code or (info.end_user.country_code if info and info.end_user else None)
    tagged = _COUNTRY_TAG.match(address)
    if tagged:
        country = tagged.group(1)
    return {
        "email": address,
        "emailDomain": address.rsplit("@", 1)[1] if "@" in address else "",
        "countryCode": (country or "").upper(),
        "authMethod": auth_method,
        "oauthProvider": oauth_provider or "",
        "riskScores": {"bot": 0, "free_trial_abuse": 0},
    }


def check_sign_up(
    config: dict[str, Any],
    email: str | None,
    auth_method: str,
    oauth_provider: str | None = None,
    country_code: str | None = None,
) -> str | None:
    """Raise SIGN_UP_REJECTED when the project's rules refuse this sign-up; else the private
    note to store on a user the rules restrict (None when they do not)."""
    decision = decide(config, sign_up_facts(email, auth_method, oauth_provider, country_code))
    if not decision.allowed:
        raise CatalogueError("SIGN_UP_REJECTED", message=REJECTED_MESSAGE)
    if decision.restricted_by is None:
        return None
    rule_id, name = decision.restricted_by
    return f"Restricted by sign-up rule {rule_id}" + (f" ({name})" if name else "")


def mark_restricted(c: Any, project_id: str, user_id: str, note: str | None) -> None:
    """Restrict a new user as a `restrict` rule asks, adding the rule to the private details."""
    if note is None:
        return
    row = c.execute(
        "SELECT restricted_by_admin_private_details FROM users WHERE project_id = ? AND id = ?", (project_id, user_id)
    ).fetchone()
    earlier = row["restricted_by_admin_private_details"] if row is not None else None
    c.execute(
        "UPDATE users SET restricted_by_admin = 1, restricted_by_admin_private_details = ?"
        " WHERE project_id = ? AND id = ?",
        (f"{earlier}\n\n{note}" if earlier else note, project_id, user_id),
    )
