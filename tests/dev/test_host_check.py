"""DNS rebinding: a page that points its own name at 127.0.0.1 must not read the local
service (host_check.py). Real HTTP to a LocalService; the browser's Host header is what a
rebinding page sends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from authmw.dev import LocalService

from .conftest import Api, unique_email

EVIL = "evil.example"


def get(url: str, path: str, host: str, **headers: str) -> httpx.Response:
    return httpx.get(url + path, headers={"host": host, **headers}, timeout=10)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalService]:
    with LocalService(tmp_path_factory.mktemp("rebinding"), quiet=True, mail_api_port=0) as running:
        yield running


def test_a_rebound_name_reads_neither_the_outbox_nor_the_pages_nor_the_api(service: LocalService) -> None:
    """Attack: evil.example resolved to 127.0.0.1 after the page loaded; its scripts are then
    same-origin with http://evil.example:<port> and send `Host: evil.example:<port>`."""
    api = Api.of(service)
    email = unique_email()
    api.sign_up(email)  # a verification link with its code is now in the outbox
    port = service.port
    assert service.mail_api_url is not None
    mail_port = int(service.mail_api_url.rsplit(":", 1)[1])
    for path in ("/dev/outbox", "/dev/mailbox", "/dev/webhook-messages", "/health"):
        refused = get(service.url, path, f"{EVIL}:{port}")
        assert refused.status_code == 403, path
        assert "code=" not in refused.text and email not in refused.text
        assert "--public-url" in refused.text  # names the fix
    keys = api.headers("server")
    assert get(service.url, "/api/v1/users", f"{EVIL}:{port}", **keys).status_code == 403
    local_part = email.split("@")[0]
    assert get(service.mail_api_url, f"/api/v1/mailbox/{local_part}", f"{EVIL}:{mail_port}").status_code == 403
    for trick in (f"{EVIL}.:{port}", f"localhost.{EVIL}:{port}", f"127.0.0.1.{EVIL}", f"{EVIL}@localhost", "[::1"):
        assert get(service.url, "/dev/outbox", trick).status_code in (400, 403), trick

    # Controls: every name a developer's browser or tool uses for this machine still works.
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"app.localhost:{port}", "LOCALHOST", f"[::1]:{port}"):
        answer = get(service.url, "/dev/outbox", host)
        assert answer.status_code == 200 and email in answer.text, host
    assert get(service.url, "/api/v1/users", f"localhost:{port}", **keys).status_code == 200
    assert get(service.mail_api_url, f"/api/v1/mailbox/{local_part}", f"localhost:{mail_port}").status_code == 200


def test_the_public_url_host_is_answered(tmp_path: Path) -> None:
    """A developer who reaches the service by a name of their own says so with public_url."""
    with LocalService(tmp_path, quiet=True, public_url="http://devbox.test:8102") as service:
        base = f"http://127.0.0.1:{service.port}"
        assert get(base, "/health", "devbox.test:8102").status_code == 200
        assert get(base, "/health", "other.test:8102").status_code == 403


def test_listening_beyond_loopback_was_asked_for_so_every_name_is_answered(tmp_path: Path) -> None:
    with LocalService(tmp_path, host="0.0.0.0", quiet=True) as service:
        assert get(f"http://127.0.0.1:{service.port}", "/health", f"{EVIL}:{service.port}").status_code == 200


def test_chromium_with_the_name_rebound_to_this_machine_gets_no_mail(service: LocalService, chromium_with: Any) -> None:
    """The browser's view: a name resolving to 127.0.0.1 (what rebinding achieves) is what a
    rebound page's own requests use; Chromium then gets the 403, never the mailbox."""
    email = unique_email()
    Api.of(service).sign_up(email)
    page = chromium_with("--host-resolver-rules=MAP rebound.example 127.0.0.1").new_page()
    answer = page.goto(f"http://rebound.example:{service.port}/dev/mailbox?to={email}")
    assert answer is not None and answer.status == 403
    assert email not in page.content() and "code=" not in page.content()
    answer = page.goto(f"http://localhost:{service.port}/dev/mailbox?to={email}")  # control
    assert answer is not None and answer.status == 200
    assert page.locator("article").count() == 1 and "code=" in page.content()
