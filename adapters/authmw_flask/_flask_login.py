"""Feeding Flask-Login: the app's own user object for the request's authmw user.

::

    from authmw_flask import AuthMW, EmailLinkRefused, linkable_email

    login_manager = LoginManager(app)

    def load_user(authmw_user):            # an AuthUser; return the app's user, or None
        user = User.query.filter_by(authmw_id=authmw_user.id).one_or_none()
        if user is not None:               # linked before: by id, for good
            return user
        try:                               # first sign-in: an old row by e-mail, only if safe
            email = linkable_email(authmw_user)
            user = User.query.filter_by(email=email, authmw_id=None).one_or_none()
        except EmailLinkRefused as refused:
            if refused.reason == "unverified":
                return None                # signed out here until the address is verified
            email = None                   # another authmw user holds it too, or none
        user = user or User(email=email)   # else a row of their own
        user.authmw_id = authmw_user.id
        db.session.add(user); db.session.commit()
        return user

    AuthMW(app, flask_login=load_user)

``flask_login.current_user`` and ``@login_required`` then follow the authmw session: a
request loader asks ``load_user`` once per request for a signed-in authmw user, so signing out
of authmw signs out of Flask-Login too. Users Flask-Login keeps in its own session
(``login_user``) still win, as Flask-Login decides.

Matching by e-mail follows the one rule of :func:`authmw.adapter.linkable_email`: the address
must be verified at the service and held by no other authmw user, and a row already linked
to an authmw user is never taken over (``authmw_id=None`` above).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

from authmw import adapter
from authmw.errors import ConfigurationError
from authmw.middleware import AuthUser

#: Maps the request's signed-in authmw user to the app's user object (or None: nobody).
LoadUser = Callable[[AuthUser], Any]


def feed_flask_login(app: Flask, load_user: LoadUser, current_authmw_user: Callable[[], Any]) -> None:
    if not callable(load_user):
        raise ConfigurationError("flask_login= must be a function taking the AuthUser and returning your user.")
    try:
        import flask_login  # noqa: F401
    except ImportError:
        raise ConfigurationError(
            "flask_login= needs Flask-Login: pip install flask-login, and set up LoginManager(app) first."
        ) from None
    manager = getattr(app, "login_manager", None)
    if manager is None:
        raise ConfigurationError(
            "flask_login= needs Flask-Login's LoginManager on the app: call LoginManager(app) "
            "(or login_manager.init_app(app)) before AuthMW(app, flask_login=...)."
        )

    def request_loader(_request: Any) -> Any:
        user = current_authmw_user()
        return load_user(user) if isinstance(user, AuthUser) else None

    manager.request_loader(request_loader)


def linkable_email(authmw_user: AuthUser) -> str:
    """``authmw_user``'s e-mail when it may match one of your users: verified at the service
    and held by no other authmw user (asked through the extension's server app, so the secret
    server key is needed). Otherwise raises :class:`authmw.adapter.EmailLinkRefused` naming why.

    Match only rows not linked to an authmw user yet, and keep the link by authmw user id.
    """
    if not isinstance(authmw_user, AuthUser):
        raise TypeError(f"linkable_email takes the signed-in AuthUser, not {authmw_user!r}.")
    return adapter.linkable_email(authmw_user.server, authmw_user.id)  # type: ignore[arg-type]
