import authmw.middleware


def test_exported_members() -> None:
    exported = authmw.middleware.__all__
    assert exported == sorted(exported)
    assert set(exported) == {
        "AnonymousUser",
        "ApiKeyTeam",
        "ApiKeyUser",
        "AuthCredentials",
        "AuthMiddleware",
        "AuthUser",
        "Refusal",
        "UnadmittedUser",
        "WSGIAuthMiddleware",
    }
    for name in exported:
        assert getattr(authmw.middleware, name).__module__.startswith("authmw.middleware")


def test_the_package_root_serves_the_middleware_lazily() -> None:
    import authmw

    assert authmw.AuthMiddleware is authmw.middleware.AuthMiddleware
    assert authmw.WSGIAuthMiddleware is authmw.middleware.WSGIAuthMiddleware
