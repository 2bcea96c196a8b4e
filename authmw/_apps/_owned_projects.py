"""Projects a user owns, for a client app signed in on the ``internal`` project
(the dashboard's project, whose users own the others).

The owner lists and creates projects, and gets an admin app for one of them that sends the
user's access token as the admin access token (refreshed and retried when the service
refuses it as expired).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._ops import Op
from .._session import Session
from ..models import AdminProject, AdminProjectConfigUpdate, AdminProjectUpdate
from ._admin import AdminApp, AsyncAdminApp, project_update_body
from ._base import UNSET, _Api, parse, parse_items
from ._binding import AsyncRunner, operation


class _OwnedProjectsOps(_Api):
    session: Session

    @operation
    def list_owned_projects(self) -> Op[list[AdminProject]]:
        """The projects the signed-in user owns, newest first (the app must be on ``internal``)."""
        body = yield from self._transport.call_json("GET", "/internal/projects", session=self.session)
        return parse_items(AdminProject, body)

    @operation
    def create_project(
        self,
        project: AdminProjectUpdate | Mapping[str, Any] | None = None,
        /,
        *,
        display_name: str = UNSET,
        description: str | None = UNSET,
        is_production_mode: bool = UNSET,
        config: AdminProjectConfigUpdate | Mapping[str, Any] = UNSET,
        owner_team_id: str = UNSET,
    ) -> Op[AdminProject]:
        """Create a project owned by the signed-in user (``display_name`` is required).

        API 2.8 needs ``owner_team_id``: a team of ``internal`` the user is a member of, whose
        members all manage the project. API 2.7 has no owner teams.
        """
        body = project_update_body(
            project,
            display_name=display_name,
            description=description,
            is_production_mode=is_production_mode,
            config=config,
        )
        if not body.get("display_name"):
            raise ValueError("create_project needs a display_name.")
        if owner_team_id is not UNSET:
            body["owner_team_id"] = owner_team_id
        answer = yield from self._transport.call_json("POST", "/internal/projects", json=body, session=self.session)
        return parse(AdminProject, answer)

    def admin_app(self, project_id: str) -> AdminApp | AsyncAdminApp:
        """An admin app for one of the user's projects, over this app's connections and session.

        Its calls send the user's access token as ``x-stack-admin-access-token``; closing it
        leaves this app's connections open.
        """
        cls = AsyncAdminApp if isinstance(self, AsyncRunner) else AdminApp
        config = self.config.with_(
            project_id=project_id, publishable_client_key=None, secret_server_key=None, super_secret_admin_key=None
        )
        return cls(config, driver=self._driver, owner_session=self.session)
