import authmw
from authmw import errors, models


def test_public_names_are_exported_and_sorted():
    for module in (authmw, errors, models):
        assert module.__all__ == sorted(module.__all__)
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"


def test_errors_all_is_complete():
    assert sorted(errors.__all__) == sorted(set(errors.__all__))
    for name, value in vars(errors).items():
        if isinstance(value, type) and issubclass(value, errors.AuthmwError):
            assert name in errors.__all__, name


def test_middleware_names_are_reexported():
    from authmw.middleware import AuthMiddleware, WSGIAuthMiddleware

    assert authmw.AuthMiddleware is AuthMiddleware
    assert authmw.WSGIAuthMiddleware is WSGIAuthMiddleware
