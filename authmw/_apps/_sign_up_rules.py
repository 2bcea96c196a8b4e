"""Sign-up rules of the project (admin tier, API 2.8): an allowlist or blocklist of sign-ups by
e-mail, domain, method or country, kept in the project's config (``auth.signUpRules``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from .._ops import Op
from .._transport import parse_json, segment
from ..errors import HttpStatusError, InvalidServerResponse, NotInServiceVersion
from ..models import SignUpRule, SignUpRules
from ._base import _Api, _Namespace
from ._binding import R, Twin, operation

__all__ = ["AdminSignUpRules", "ConfigCalls", "ConfigLevel"]

ConfigLevel = Literal["project", "branch", "environment"]

NOT_IN_2_7 = (
    "The service has no /internal/config: the project's config (and with it sign-up rules) came with "
    "API 2.8, and this service answers as API 2.7. Use a 2.8 service (`authmw dev --api 2.8`)."
)


class ConfigCalls(_Api):
    """The config calls, shared by the admin app (``update_config``, ``get_config``) and
    ``admin.sign_up_rules``."""

    def _config_call(self, method: str, path: str, **kwargs: Any) -> Op[Any]:
        try:
            return parse_json((yield from self._transport.call(method, path, **kwargs)))
        except HttpStatusError as exc:
            if exc.status == 404 and not isinstance(exc, NotInServiceVersion):
                raise NotInServiceVersion(NOT_IN_2_7, method=method, url=exc.url) from None
            raise

    def _update_config(self, values: Mapping[str, Any], level: ConfigLevel) -> Op[None]:
        body = {"config_override_string": json.dumps(dict(values))}
        yield from self._config_call("PATCH", f"/internal/config/override/{segment(level)}", json=body)

    def _get_config(self) -> Op[dict[str, Any]]:
        answer = yield from self._config_call("GET", "/internal/config")
        text = answer.get("config_string") if isinstance(answer, dict) else None
        try:
            config = json.loads(text) if isinstance(text, str) else None
        except ValueError:
            config = None
        if not isinstance(config, dict):
            raise InvalidServerResponse("The config answer has no config_string holding a JSON object.")
        return config


class _SignUpRulesOps(ConfigCalls, _Namespace):
    @operation
    def list(self) -> Op[SignUpRules]:
        """The rules, in the order they are tried, and the default action."""
        auth = (yield from self._get_config()).get("auth") or {}
        return SignUpRules(
            rules={rule_id: SignUpRule.model_validate(rule) for rule_id, rule in (auth.get("signUpRules") or {}).items()},
            default_action=auth.get("signUpRulesDefaultAction") or "allow",
        )

    @operation
    def set(
        self,
        rule_id: str,
        rule: SignUpRule | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> Op[None]:
        """Create or replace a rule: a :class:`SignUpRule`, a dict of its fields, or keywords,
        e.g. ``set("no-temp-mail", condition='emailDomain in ["tempmail.com"]', action="reject",
        enabled=True)``. A condition that does not parse is refused (``HttpStatusError`` 400
        naming the problem)."""
        if rule is not None and fields:
            raise TypeError("set(rule_id, rule) or set(rule_id, **fields), not both")
        model = rule if isinstance(rule, SignUpRule) else SignUpRule.model_validate({**(rule or {}), **fields})
        yield from self._update_config({f"auth.signUpRules.{rule_id}": model.to_wire()}, "environment")

    @operation
    def delete(self, rule_id: str) -> Op[None]:
        """Remove a rule (nothing happens when there is none by that id)."""
        yield from self._update_config({f"auth.signUpRules.{rule_id}": None}, "environment")

    @operation
    def set_default_action(self, action: Literal["allow", "reject"]) -> Op[None]:
        """What happens to a sign-up no ``allow`` or ``reject`` rule decided: ``reject`` makes
        the rules an allowlist."""
        if action not in ("allow", "reject"):
            raise ValueError(f"the default action is 'allow' or 'reject', not {action!r}")
        yield from self._update_config({"auth.signUpRulesDefaultAction": action}, "environment")


class AdminSignUpRules(_SignUpRulesOps, Twin[R]):
    """``admin.sign_up_rules``: who may sign up (API 2.8)."""
