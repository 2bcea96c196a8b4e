"""Flask-Login fed by authmw: an existing app with its own SQLAlchemy user table keeps
``flask_login.current_user`` and ``@login_required`` working. The table's ``load_user`` follows
the linking rule (the attacks on it: test_flask_login_takeover.py)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask_login import LoginManager, UserMixin, current_user, login_required, login_user
from flask_testapp import with_cookies
from middleware.support import cookie_header
from sqlalchemy import ForeignKey, String, create_engine, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from authmw import ServerApp
from authmw.errors import ConfigurationError
from authmw_flask import AuthMW, EmailLinkRefused, linkable_email


class Base(DeclarativeBase):
    pass


class User(UserMixin, Base):
    """The app's own user table, from before authmw."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str | None] = mapped_column(String(200), unique=True)
    authmw_id: Mapped[str | None] = mapped_column(String(64), unique=True)


class Order(Base):
    __tablename__ = "orders"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))


def make_app(config: Any) -> tuple[Flask, Any]:
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    app = Flask(__name__)
    app.config.update(TESTING=True, SECRET_KEY="flask-login-tests")
    manager = LoginManager(app)
    manager.user_loader(lambda user_id: Session(engine).get(User, int(user_id)))

    def load_user(authmw_user: Any) -> User | None:
        with Session(engine, expire_on_commit=False) as db:
            user = db.scalar(select(User).where(User.authmw_id == authmw_user.id))
            if user is not None:  # linked before: by id, for good
                return user
            try:  # first sign-in: an unlinked row with the verified, unshared address, or a new row
                email: str | None = linkable_email(authmw_user)
            except EmailLinkRefused as refused:
                if refused.reason == "unverified":
                    return None
                email = None
            old = db.scalar(select(User).where(User.email == email, User.authmw_id.is_(None))) if email else None
            user = old or User(email=email)
            user.authmw_id = authmw_user.id
            db.add(user)
            db.commit()
            return user

    AuthMW(app, config=config, flask_login=load_user)

    @app.get("/me")
    @login_required
    def me() -> Any:
        return {"id": current_user.id, "email": current_user.email}

    @app.post("/orders")
    @login_required
    def order() -> Any:
        with Session(engine) as db:
            db.add(Order(user_id=current_user.id))
            db.commit()
            count = db.scalar(select(func.count()).select_from(Order).where(Order.user_id == current_user.id))
        return {"orders": count}

    @app.post("/password-login/<int:user_id>")
    def password_login(user_id: int) -> Any:
        login_user(Session(engine).get(User, user_id))
        return {"ok": True}

    return app, engine


def verified_sign_up(local_service: Any) -> Any:
    s = local_service.sign_up()
    ServerApp(local_service.config).users.update(s.user_id, primary_email_verified=True)  # the e-mailed link, clicked
    return s


def test_the_authmw_user_becomes_the_apps_user_and_login_required_works(local_service) -> None:
    app, _ = make_app(local_service.config)
    assert app.test_client().get("/me").status_code == 401  # Flask-Login's own refusal
    s = verified_sign_up(local_service)
    client = with_cookies(app.test_client(), cookie_header(local_service.project_id, s.refresh_token, s.access_token))
    first = client.get("/me").json
    assert first["email"] == s.email
    assert client.get("/me").json["id"] == first["id"]  # found again, not created twice
    assert client.post("/orders").json == {"orders": 1}
    assert client.post("/orders").json == {"orders": 2}


def test_an_existing_row_with_the_same_e_mail_is_linked_not_duplicated(local_service) -> None:
    app, engine = make_app(local_service.config)
    s = verified_sign_up(local_service)
    with Session(engine) as db:
        db.add(User(email=s.email))
        db.commit()
        existing = db.scalar(select(User.id).where(User.email == s.email))
    client = with_cookies(app.test_client(), cookie_header(local_service.project_id, s.refresh_token, s.access_token))
    assert client.get("/me").json["id"] == existing


def test_signing_out_of_authmw_signs_out_of_flask_login(local_service) -> None:
    app, _ = make_app(local_service.config)
    s = verified_sign_up(local_service)
    client = with_cookies(app.test_client(), cookie_header(local_service.project_id, s.refresh_token, s.access_token))
    assert client.get("/me").status_code == 200
    local_service.sign_out(s)
    client.delete_cookie("stack-access")
    assert client.get("/me").status_code == 401


def test_flask_logins_own_session_users_still_work(local_service) -> None:
    app, engine = make_app(local_service.config)
    with Session(engine) as db:
        db.add(User(email="legacy@example.com"))
        db.commit()
        legacy = db.scalar(select(User.id).where(User.email == "legacy@example.com"))
    client = app.test_client()
    client.post(f"/password-login/{legacy}")
    assert client.get("/me").json["id"] == legacy


def test_flask_login_feeding_explains_what_is_missing(local_service) -> None:
    app = Flask(__name__)
    with pytest.raises(ConfigurationError, match="LoginManager"):
        AuthMW(app, config=local_service.config, flask_login=lambda user: None)
    with pytest.raises(ConfigurationError, match="function"):
        LoginManager(other := Flask("other"))
        AuthMW(other, config=local_service.config, flask_login="not callable")  # type: ignore[arg-type]
