"""E-mail templates of the project (admin tier)."""

from __future__ import annotations

from typing import Any

from .._ops import Op, Response
from .._transport import parse_json, segment
from ..errors import HttpStatusError, NotInServiceVersion
from ..models import EmailTemplate
from ._base import UNSET, _Namespace, changes, parse, parse_items
from ._binding import R, Twin, operation

__all__ = ["AdminEmailTemplates"]


#: What a 2.8 service answers to the 2.7 routes: a plain 404 (the routes were removed).
GONE_IN_2_8 = (
    "The service has no /email-templates: that is an API 2.7 call, and this service answers as API 2.8, "
    "which removed it: its templates are TSX sources under /internal/email-templates, which "
    "admin.tsx_email_templates (and admin.email_themes) manage."
)


class _EmailTemplatesOps(_Namespace):
    def _call(self, method: str, path: str, **kwargs: Any) -> Op[Response]:
        """The call; a 404 becomes :class:`NotInServiceVersion` when the list itself is
        missing (a 2.7 service also answers 404 to resetting a template never changed)."""
        try:
            return (yield from self._transport.call(method, path, **kwargs))
        except HttpStatusError as exc:
            if exc.status != 404:
                raise
            if path != "/email-templates":
                try:
                    yield from self._transport.call("GET", "/email-templates")
                except HttpStatusError as probe:
                    if probe.status != 404:
                        raise exc from None
                else:
                    raise
            raise NotInServiceVersion(GONE_IN_2_8, method=method, url=exc.url) from None

    @operation
    def list(self) -> Op[list[EmailTemplate]]:
        """The four templates (e-mail verification, password reset, magic link, team invitation)."""
        answer = parse_json((yield from self._call("GET", "/email-templates")))
        return parse_items(EmailTemplate, answer)

    @operation
    def get(self, template_type: str) -> Op[EmailTemplate]:
        """One template by type (``SchemaError`` for an unknown type)."""
        answer = parse_json((yield from self._call("GET", f"/email-templates/{segment(template_type)}")))
        return parse(EmailTemplate, answer)

    @operation
    def update(self, template_type: str, *, subject: str = UNSET, content: Any = UNSET) -> Op[EmailTemplate]:
        """Change the subject and/or the content (an editor document); ``is_default`` becomes False.

        Invalid content is refused with ``HttpStatusError`` 400.
        """
        if content is None:
            raise ValueError("content cannot be None: pass the editor document, or reset(type) for the default.")
        body = changes(subject=subject, content=content)
        answer = parse_json((yield from self._call("PATCH", f"/email-templates/{segment(template_type)}", json=body)))
        return parse(EmailTemplate, answer)

    @operation
    def reset(self, template_type: str) -> Op[None]:
        """Back to the default template. ``HttpStatusError`` 404 when it was not changed."""
        yield from self._call("DELETE", f"/email-templates/{segment(template_type)}")


class AdminEmailTemplates(_EmailTemplatesOps, Twin[R]):
    """``admin.email_templates``: the project's e-mail templates."""
