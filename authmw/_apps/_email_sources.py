"""API 2.8's e-mail templates and themes of the project (admin tier): TSX sources under
``/internal/email-templates`` and ``/internal/email-themes`` (service-api B14.4)."""

from __future__ import annotations

from typing import Any

from .._ops import Op, Response
from .._transport import parse_json, segment
from ..errors import HttpStatusError, InvalidServerResponse, NotInServiceVersion
from ..models import EmailTheme, EmailThemeSummary, TsxEmailTemplate
from ._base import UNSET, _Namespace, parse
from ._binding import R, Twin, operation

__all__ = ["AdminEmailThemes", "AdminTsxEmailTemplates"]

NEEDS_2_8 = (
    "The service has no {path}: TSX e-mail templates and themes are API 2.8, and this service "
    "answers as API 2.7. Use admin.email_templates (2.7's subject and content templates) instead."
)


class _SourcesOps(_Namespace):
    _list_path = ""

    def _call(self, method: str, path: str, **kwargs: Any) -> Op[Response]:
        """The call; a 404 becomes :class:`NotInServiceVersion` when the list itself is missing
        (a 2.8 service also answers 404 to an unknown template or theme id)."""
        try:
            return (yield from self._transport.call(method, path, **kwargs))
        except HttpStatusError as exc:
            if exc.status != 404:
                raise
            if path != self._list_path:
                try:
                    yield from self._transport.call("GET", self._list_path)
                except HttpStatusError as probe:
                    if probe.status != 404:
                        raise exc from None
                else:
                    raise
            raise NotInServiceVersion(NEEDS_2_8.format(path=self._list_path), method=method, url=exc.url) from None

    def _json(self, method: str, path: str, **kwargs: Any) -> Op[dict[str, Any]]:
        answer = parse_json((yield from self._call(method, path, **kwargs)))
        if not isinstance(answer, dict):
            raise InvalidServerResponse(f"The answer of {method} {path} is not an object.")
        return answer


class _TsxTemplatesOps(_SourcesOps):
    _list_path = "/internal/email-templates"

    @operation
    def list(self) -> Op[list[TsxEmailTemplate]]:
        """Every template: the built-in ones (e-mail verification, password reset, magic link,
        team invitation, ...) and the project's own."""
        answer = yield from self._json("GET", self._list_path)
        return [parse(TsxEmailTemplate, item) for item in answer.get("templates") or []]

    @operation
    def get(self, template_id: str) -> Op[TsxEmailTemplate]:
        """One template by id (from the list: the service has no single-template read).
        ``LookupError`` when there is none."""
        for template in (yield from _TsxTemplatesOps.list.op(self)):
            if template.id == template_id:
                return template
        raise LookupError(f"The project has no e-mail template {template_id!r}; list() shows the ids.")

    @operation
    def create(self, display_name: str) -> Op[str]:
        """A new template with the service's starter source; returns its id.

        ``RequiresCustomEmailServer`` while the project uses the shared e-mail server."""
        answer = yield from self._json("POST", self._list_path, json={"display_name": display_name})
        return str(answer["id"])

    @operation
    def update(self, template_id: str, tsx_source: str, *, theme_id: str | bool | None = UNSET) -> Op[str]:
        """Replace the template's source (and its theme: an id, ``False`` for none, ``None`` for
        the project's); returns the preview HTML the service rendered.

        ``EmailRenderingError`` (nothing stored) when the source does not render or lacks its
        ``<Subject>`` or ``<NotificationCategory>``; ``RequiresCustomEmailServer`` on the shared
        e-mail server; ``HttpStatusError`` 404 for an unknown id."""
        body: dict[str, Any] = {"tsx_source": tsx_source}
        if theme_id is not UNSET:
            body["theme_id"] = theme_id
        answer = yield from self._json("PATCH", f"{self._list_path}/{segment(template_id)}", json=body)
        return str(answer["rendered_html"])

    @operation
    def delete(self, template_id: str) -> Op[None]:
        """Delete the project's own template. (The local service brings a built-in template back
        to the source it ships instead; the hosted service removes it.)"""
        yield from self._call("DELETE", f"{self._list_path}/{segment(template_id)}")


class _ThemesOps(_SourcesOps):
    _list_path = "/internal/email-themes"

    @operation
    def list(self) -> Op[list[EmailThemeSummary]]:
        """Every theme (the built-in ones first) by id and name."""
        answer = yield from self._json("GET", self._list_path)
        return [parse(EmailThemeSummary, item) for item in answer.get("themes") or []]

    @operation
    def get(self, theme_id: str) -> Op[EmailTheme]:
        """One theme with its source; ``HttpStatusError`` 404 for an unknown id."""
        answer = yield from self._json("GET", f"{self._list_path}/{segment(theme_id)}")
        return parse(EmailTheme, {**answer, "id": theme_id})

    @operation
    def create(self, display_name: str) -> Op[str]:
        """A new theme starting from the default one; returns its id."""
        answer = yield from self._json("POST", self._list_path, json={"display_name": display_name})
        return str(answer["id"])

    @operation
    def update(self, theme_id: str, tsx_source: str) -> Op[None]:
        """Replace the theme's source; ``EmailRenderingError`` (nothing stored) when it does not render."""
        yield from self._json("PATCH", f"{self._list_path}/{segment(theme_id)}", json={"tsx_source": tsx_source})


class AdminTsxEmailTemplates(_TsxTemplatesOps, Twin[R]):
    """``admin.tsx_email_templates``: the project's API 2.8 e-mail templates (TSX sources)."""


class AdminEmailThemes(_ThemesOps, Twin[R]):
    """``admin.email_themes``: the project's API 2.8 e-mail themes (TSX sources)."""
