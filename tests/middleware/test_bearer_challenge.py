"""A refused bearer token's ``WWW-Authenticate`` challenge never repeats the token's content.

The attack: an ASCII token whose JOSE header names a non-Latin-1 ``alg`` (``"ES256\\u20ac"``,
base64url-encoded, so the token itself is plain ASCII). When the challenge quoted the
refusal's message, which quotes the ``alg``, uvicorn answered 500 and wsgiref dropped the
connection, both while encoding the header as Latin-1; a CR LF in the ``alg`` is a header
injection attempt. Each real server and each framework's test client must answer a clean 401
with the fixed challenge, and a valid token must still sign in (the control).
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import wsgiref.simple_server
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.testclient import TestClient

from authmw.middleware import WSGIAuthMiddleware

from .support import make_app

INVALID = 'Bearer realm="authmw", error="invalid_token", error_description="The access token is not valid."'
HOSTILE_ALGS = ["ES256\u20ac", "\u00e9\u20ac\U0001f600", 'ES256", error="none', "ES256\r\nset-cookie: owned=1"]


def crafted(alg: str) -> str:
    """An ASCII token whose header's ``alg`` is ``alg`` (UTF-8 JSON, base64url)."""

    def part(value: dict[str, Any]) -> str:
        raw = json.dumps(value, ensure_ascii=False).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    token = f"{part({'alg': alg, 'typ': 'JWT', 'kid': 'k'})}.{part({'sub': 'x', 'exp': 4102444800})}.c2ln"
    assert token.isascii()
    return token


def check_refusal(status: int, headers: Any, body: Any) -> None:
    assert status == 401
    assert headers["www-authenticate"] == INVALID
    assert json.loads(body)["code"] == "UNPARSABLE_ACCESS_TOKEN"
    assert "owned" not in str(headers.get("set-cookie"))


@contextmanager
def loopback_server(serve: Any, stop: Any, sock: socket.socket) -> Iterator[str]:
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        host, port = sock.getsockname()[:2]
        yield f"http://{host}:{port}"
    finally:
        stop()
        thread.join(timeout=30)
        assert not thread.is_alive(), "the server did not stop"


@contextmanager
def uvicorn_server(app: Any) -> Iterator[str]:
    """uvicorn on 127.0.0.1, on a socket bound and listening before the thread starts (so the
    first connection waits in the backlog: no polling for readiness)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="critical"))

    def stop() -> None:
        server.should_exit = True

    with sock, loopback_server(lambda: server.run(sockets=[sock]), stop, sock) as url:
        yield url


@contextmanager
def wsgiref_server(app: Any) -> Iterator[str]:
    class Quiet(wsgiref.simple_server.WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = wsgiref.simple_server.make_server("127.0.0.1", 0, app, handler_class=Quiet)  # listening now
    with loopback_server(server.serve_forever, server.shutdown, server.socket) as url:
        yield url
    server.server_close()


def wsgi_app(config: Any) -> Any:
    def hello(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        user = environ["authmw.user"]
        start_response("200 OK", [("content-type", "application/json")])
        return [json.dumps({"id": user.id}).encode()]

    return WSGIAuthMiddleware(hello, config)


@pytest.mark.parametrize("server", ["uvicorn", "wsgiref"])
def test_a_real_server_answers_a_crafted_alg_with_the_fixed_challenge(local_service, server: str) -> None:
    s = local_service.sign_up()
    if server == "uvicorn":
        running, path = uvicorn_server(make_app(local_service.config)), "/maybe"
    else:
        running, path = wsgiref_server(wsgi_app(local_service.config)), "/"
    with running as url, httpx.Client(base_url=url, timeout=30) as client:
        for alg in HOSTILE_ALGS:
            r = client.get(path, headers={"authorization": f"Bearer {crafted(alg)}"})
            check_refusal(r.status_code, r.headers, r.content)
        # the control: the same server signs a valid bearer token in
        assert client.get(path, headers={"authorization": f"Bearer {s.access_token}"}).json()["id"] == s.user_id


def test_the_asgi_and_flask_test_clients_get_the_fixed_challenge(local_service) -> None:
    from flask import Flask

    from authmw_flask import AuthMW, current_user

    s = local_service.sign_up()
    app = Flask(__name__)
    AuthMW(app, config=local_service.config)
    app.get("/whoami")(lambda: {"id": current_user.id})
    flask = app.test_client()
    with TestClient(make_app(local_service.config)) as asgi:
        for alg in HOSTILE_ALGS:
            header = {"authorization": f"Bearer {crafted(alg)}"}
            r = asgi.get("/maybe", headers=header)
            check_refusal(r.status_code, r.headers, r.content)
            f = flask.get("/whoami", headers=header)
            check_refusal(f.status_code, {k.lower(): v for k, v in f.headers.items()}, f.data)
        assert asgi.get("/maybe", headers={"authorization": f"Bearer {s.access_token}"}).json()["id"] == s.user_id
        assert flask.get("/whoami", headers={"authorization": f"Bearer {s.access_token}"}).json["id"] == s.user_id


def test_an_expired_token_gets_its_own_fixed_challenge(local_service) -> None:
    import time

    s = local_service.sign_up()
    with TestClient(make_app(local_service.config, clock=lambda: time.time() + 3600)) as asgi:
        r = asgi.get("/maybe", headers={"authorization": f"Bearer {s.access_token}"})
    assert r.status_code == 401 and r.json()["code"] == "ACCESS_TOKEN_EXPIRED"
    assert r.headers["www-authenticate"].endswith('error_description="The access token expired."')
