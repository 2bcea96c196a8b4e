"""E-mail templates of the project (contract 5.10, admin tier)."""

from __future__ import annotations

from typing import Any

from .._ops import Op
from .._transport import segment
from ..models import EmailTemplate
from ._base import UNSET, _Namespace, changes, parse, parse_items
from ._binding import AsyncRunner, SyncRunner, operation

__all__ = ["AdminEmailTemplates", "AsyncAdminEmailTemplates"]


class _EmailTemplatesOps(_Namespace):
    @operation
    def list(self) -> Op[list[EmailTemplate]]:
        """The four templates (e-mail verification, password reset, magic link, team invitation)."""
        answer = yield from self._transport.call_json("GET", "/email-templates")
        return parse_items(EmailTemplate, answer)

    @operation
    def get(self, template_type: str) -> Op[EmailTemplate]:
        """One template by type (``SchemaError`` for an unknown type)."""
        answer = yield from self._transport.call_json("GET", f"/email-templates/{segment(template_type)}")
        return parse(EmailTemplate, answer)

    @operation
    def update(self, template_type: str, *, subject: str = UNSET, content: Any = UNSET) -> Op[EmailTemplate]:
        """Change the subject and/or the content (an editor document); ``is_default`` becomes False.

        Invalid content is refused with ``HttpStatusError`` 400.
        """
        if content is None:
            raise ValueError("content cannot be None: pass the editor document, or reset(type) for the default.")
        body = changes(subject=subject, content=content)
        answer = yield from self._transport.call_json("PATCH", f"/email-templates/{segment(template_type)}", json=body)
        return parse(EmailTemplate, answer)

    @operation
    def reset(self, template_type: str) -> Op[None]:
        """Back to the default template. ``HttpStatusError`` 404 when it was not changed."""
        yield from self._transport.call("DELETE", f"/email-templates/{segment(template_type)}")


class AdminEmailTemplates(_EmailTemplatesOps, SyncRunner):
    """``admin.email_templates``: the project's e-mail templates."""


class AsyncAdminEmailTemplates(_EmailTemplatesOps, AsyncRunner):
    """``admin.email_templates`` of an async app."""
