import authmw_flask


def test_exported_members() -> None:
    exported = authmw_flask.__all__  # order: ruff (RUF022)
    assert set(exported) == {
        "AuthMW",
        "DEFAULT_TEAM_ARG",
        "EXEMPT_METHODS",
        "EmailLinkRefused",
        "FlaskAuth",
        "Guard",
        "TeamRequirement",
        "current_user",
        "get_user",
        "linkable_email",
        "oauth_blueprint",
        "serve_web",
        "team_member_required",
        "require_permission",
        "team_permission_required",
        "user_required",
        "webhook_blueprint",
    }
    for name in exported:
        assert hasattr(authmw_flask, name)
