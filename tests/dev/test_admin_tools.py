"""Admin tools: webhook token, metrics, test e-mail (service-api A5.12)."""

from __future__ import annotations

import datetime as dt
import socket

from .conftest import Api, assert_known_error


def test_svix_token_is_created(api: Api) -> None:
    response = api.call("POST", "/webhooks/svix-token", "admin", json={})
    assert response.status_code == 201 and isinstance(response.json()["token"], str)


def test_metrics_have_31_days_and_recent_users(api: Api, user: dict) -> None:
    body = api.call("GET", "/internal/metrics", "admin").json()
    assert body["total_users"] >= 1
    for key in ("daily_users", "daily_active_users"):
        assert len(body[key]) == 31
        assert body[key][-1]["date"] == dt.datetime.now(dt.timezone.utc).date().isoformat()
    assert body["daily_users"][-1]["activity"] >= 1
    assert body["users_by_country"] == {}
    assert len(body["recently_registered"]) <= 5
    assert user["user_id"] in [u["id"] for u in body["recently_registered"]]
    methods = {entry["method"]: entry["count"] for entry in body["login_methods"]}
    assert methods["password"] >= 1
    assert_known_error(api.call("GET", "/internal/metrics", "server"), "INSUFFICIENT_ACCESS_TYPE", 401)


def test_test_email_reports_a_connection_failure(api: Api) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = {
        "host": "127.0.0.1",
        "port": port,
        "username": "u",
        "password": "p",
        "sender_name": "Dev",
        "sender_email": "dev@example.com",
    }
    response = api.call(
        "POST", "/internal/send-test-email", "admin", json={"recipient_email": "a@example.com", "email_config": config}
    )
    assert response.status_code == 200
    assert response.json() == {
        "success": False,
        "error_message": "Could not connect to the e-mail server: check the host and port.",
    }
    missing = api.call("POST", "/internal/send-test-email", "admin", json={"recipient_email": "a@example.com"})
    assert "body.email_config must be defined" in assert_known_error(missing, "SCHEMA_ERROR", 400)["error"]
