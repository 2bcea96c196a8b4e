"""The local service's side: the admin routes for endpoints, what is (not) sent, giving up
after the retries, the /dev/webhooks page, and `authmw dev --webhook`."""

from __future__ import annotations

import argparse
from pathlib import Path

import httpx
from webhook_loop import Loop

from authmw.cli import _dev_problem, build_parser
from authmw.dev import LocalService
from authmw_local.webhooks import BACKOFF_SECONDS

UNREACHABLE = "http://127.0.0.1:9/hooks"  # the discard port: nothing listens, the connection is refused


def endpoints(loop: Loop, method: str, path: str = "", **kwargs: object) -> httpx.Response:
    return loop.http.request(method, "/internal/webhook-endpoints" + path, **kwargs)  # type: ignore[arg-type]


def test_endpoints_need_the_admin_key_and_a_real_url(loop: Loop) -> None:
    assert endpoints(loop, "POST", json={"url": UNREACHABLE}).status_code in (401, 403)  # the server key
    assert endpoints(loop, "POST", headers=loop.admin, json={"url": "ftp://example.com/x"}).status_code == 400
    assert (
        endpoints(loop, "POST", headers=loop.admin, json={"url": UNREACHABLE, "secret": "sk_123456"}).status_code == 400
    )
    created = endpoints(loop, "POST", headers=loop.admin, json={"url": UNREACHABLE})
    assert created.status_code == 201 and created.json()["secret"].startswith("whsec_")
    listed = endpoints(loop, "GET", headers=loop.admin).json()["items"]
    assert [e["id"] for e in listed] == [created.json()["id"]]
    missing = "00000000-0000-4000-8000-000000000000"
    assert endpoints(loop, "DELETE", f"/{missing}", headers=loop.admin).status_code == 404
    assert endpoints(loop, "DELETE", f"/{created.json()['id']}", headers=loop.admin).json() == {"success": True}
    assert endpoints(loop, "GET", headers=loop.admin).json()["items"] == []


def test_nothing_is_queued_without_an_endpoint(loop: Loop) -> None:
    loop.call("POST", "/users", json={"primary_email": "nobody@example.com"})
    assert loop.messages() == []


def test_an_unreachable_endpoint_is_retried_then_failed_and_the_page_shows_it(loop: Loop) -> None:
    loop.service.add_webhook(UNREACHABLE)
    loop.call("POST", "/users", json={"display_name": "<script>alert(1)</script>"})
    for attempt, wait in enumerate(BACKOFF_SECONDS, start=1):
        loop.messages_once(lambda items, n=attempt: [m["attempts"] for m in items] == [n], f"attempt {attempt}")
        loop.clock.advance(wait)
    (message,) = loop.messages_once(lambda items: [m["status"] for m in items] == ["failed"], "the message failed")
    assert message["attempts"] == len(BACKOFF_SECONDS) + 1 and message["last_result"].startswith("no answer")
    assert message["type"] == "user.created" and message["url"] == UNREACHABLE and "secret" not in message
    page = httpx.get(loop.service.url + "/dev/webhooks", timeout=30)
    assert page.status_code == 200 and "default-src 'none'" in page.headers["content-security-policy"]
    assert f'data-message-id="{message["id"]}" data-status="failed"' in page.text
    assert "<script>alert" not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


def test_the_same_url_keeps_its_endpoint_and_secret(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True) as service:
        first = service.add_webhook(UNREACHABLE)
    with LocalService(tmp_path, quiet=True) as service:
        assert service.add_webhook(UNREACHABLE) == first


def test_api_27_sends_no_team_permission_events(tmp_path: Path) -> None:
    with LocalService(tmp_path, quiet=True, api="2.7") as service:
        service.add_webhook(UNREACHABLE)
        keys = service.bootstrap.project
        server = httpx.Client(
            base_url=service.url + "/api/v1",
            timeout=30,
            headers={
                "x-stack-project-id": keys.project_id,
                "x-stack-access-type": "server",
                "x-stack-secret-server-key": keys.secret_server_key,
            },
        )
        user = server.post("/users", json={}).json()
        team = server.post("/teams", json={"display_name": "T"}).json()
        assert server.post(f"/team-memberships/{team['id']}/{user['id']}", json={}).status_code == 201
        types = [m["type"] for m in httpx.get(service.url + "/dev/webhook-messages", timeout=30).json()["items"]]
        assert types == ["team_membership.created", "team.created", "user.created"]  # newest first


def test_cli_webhook_option() -> None:
    args = build_parser().parse_args(
        ["dev", "--webhook", "http://localhost:8000/webhooks/authmw", "--webhook", "https://x.test/h"]
    )
    assert args.webhook == ["http://localhost:8000/webhooks/authmw", "https://x.test/h"]
    bad = argparse.Namespace(**{**vars(args), "webhook": ["localhost:8000/hooks"]})
    problem = _dev_problem(bad)
    assert problem is not None and "--webhook localhost:8000/hooks is not an http(s) URL" in problem
