import authmw_django
import authmw_django.rest_framework


def test_exported_members() -> None:
    for module, expected in (
        (
            authmw_django,
            {
                "AuthMiddleware",
                "DEFAULT_TEAM_KWARG",
                "Guard",
                "TeamRequirement",
                "get_auth_config",
                "oauth_urls",
                "team_member_required",
                "require_permission",
                "team_permission_required",
                "user_required",
                "web_urls",
                "webhook_view",
            },
        ),
        (
            authmw_django.rest_framework,
            {"AuthMWAuthentication", "HasPermission", "HasTeamPermission", "IsSignedIn", "IsTeamMember", "RefusalError"},
        ),
    ):
        exported = module.__all__  # order: ruff (RUF022)
        assert set(exported) == expected
        for name in exported:
            assert hasattr(module, name)
