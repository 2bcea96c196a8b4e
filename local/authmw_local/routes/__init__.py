"""Route modules of the local service.

Each module exposes `routes: list[starlette.routing.Route]` (usually `group.routes` of an
`EndpointGroup`); adding an area is one import and one entry in ROUTE_MODULES.
"""

from __future__ import annotations

from starlette.routing import BaseRoute

from . import (
    admin_tools,
    anonymous,
    api_keys,
    auth_password,
    cli_auth,
    config_override,
    connected_accounts,
    contact_channels,
    email_drafts,
    email_templates,
    email_templates_28,
    internal,
    jwks,
    mailbox,
    mfa,
    misc,
    notification_preferences,
    oauth,
    oauth_authorize,
    oauth_providers,
    otp,
    outbox,
    passkeys,
    payments,
    permission_definitions,
    project_permissions,
    projects,
    send_email,
    sessions,
    team_invitations,
    team_member_profiles,
    teams,
    users,
    webhooks,
)

#: Order matters only where paths overlap (a module's literal paths before its parameters).
ROUTE_MODULES = [
    misc,
    jwks,
    outbox,
    mailbox,
    webhooks,
    auth_password,
    anonymous,
    cli_auth,
    otp,
    passkeys,
    mfa,
    sessions,
    oauth,
    oauth_authorize,
    connected_accounts,
    oauth_providers,
    projects,
    internal,
    config_override,
    users,
    teams,
    team_member_profiles,
    team_invitations,
    permission_definitions,
    project_permissions,
    api_keys,
    email_templates,
    email_templates_28,
    email_drafts,
    admin_tools,
    contact_channels,
    notification_preferences,
    send_email,
    payments,
]


def all_routes() -> list[BaseRoute]:
    return [route for module in ROUTE_MODULES for route in module.routes]
