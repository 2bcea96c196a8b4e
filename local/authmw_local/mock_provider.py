"""The mock OAuth provider's sign-in page, `/dev/oauth/{provider}` (local service only).

`/auth/oauth/authorize/{provider}` sends the browser here with the flow's inner state and the
service's own callback as `redirect_uri`, as a real provider would be asked. The page shows the
provider's name, the app asking, an e-mail field (and an optional provider account id), and
"Authorize" / "Deny" buttons. It only ever sends the browser back to the `redirect_uri`
registered for that flow: any other `redirect_uri` (another host, `javascript:`, ...) gets an
error page and no form. Authorize returns `code` and `state`; Deny returns
`error=access_denied` and `state`, as RFC 6749 section 4.1.2.1 says.

The provider account id defaults to one derived from the e-mail address, so the same address
is the same provider account; give one explicitly to sign the same person in again under a
changed address, or two people in with one address. "Keep my address private" signs in
that account without sharing its address, as GitHub does for a private address: the app gets a
user with no e-mail (what the onboarding page asks such a user to add).
"""

from __future__ import annotations

import hashlib
import html
import sqlite3
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from .db import load
from .ids import now_millis, sha256_hex
from .oauth_flow import OUTER_FLOW, PROVIDER_CODE, PROVIDER_CODE_LIFETIME_MILLIS
from .projects import get_project
from .schema import is_email
from .service import Service
from .urls import with_query_param
from .verification import create_code

#: Names shown on the page (service-api A7.4 lists the provider ids).
PROVIDER_NAMES = {
    "google": "Google",
    "github": "GitHub",
    "microsoft": "Microsoft",
    "spotify": "Spotify",
    "facebook": "Facebook",
    "discord": "Discord",
    "gitlab": "GitLab",
    "bitbucket": "Bitbucket",
    "linkedin": "LinkedIn",
    "apple": "Apple",
    "x": "X",
}

#: Longest provider account id accepted from the form.
MAX_ACCOUNT_ID_LENGTH = 200

#: Self-contained pages: inline style, no script. The form posts to this page (its action is
#: fixed here); no form-action directive, because browsers apply it to the redirects that follow a
#: submission too, and the flow ends on the app's own origin.
HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
}


def provider_name(provider_id: str) -> str:
    return PROVIDER_NAMES.get(provider_id, provider_id.capitalize())


def default_account_id(email: str) -> str:
    """The provider account of an e-mail address when none is given."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:20]


def _flow(c: sqlite3.Connection, inner_state: str) -> tuple[dict[str, Any], str] | None:
    """The live OAuth flow of `inner_state` and its project's display name, else None."""
    row = c.execute(
        "SELECT project_id, data, expires_at_millis, used_at_millis FROM verification_codes"
        " WHERE code_hash = ? AND type = ?",
        (sha256_hex(inner_state.lower()), OUTER_FLOW),
    ).fetchone()
    if row is None or row["used_at_millis"] is not None or row["expires_at_millis"] <= now_millis():
        return None
    project = get_project(c, row["project_id"])
    if project is None:
        return None
    return load(row["data"]), project.display_name


_STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #f6f8fa; --card: #fff; --line: #d0d7de; --muted: #59636e;
  --accent: #1f883d; --accent-fg: #fff; --danger: #cf222e; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --card: #161b22; --line: #30363d;
  --muted: #9198a1; --accent: #238636; --danger: #f85149; } }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1rem;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
main { width: 100%; max-width: 26rem; background: var(--card); border: 1px solid var(--line);
  border-radius: 12px; padding: 2rem 1.5rem; }
.logo { width: 3rem; height: 3rem; border-radius: 50%; display: grid; place-items: center; margin: 0 auto 1rem;
  background: var(--fg); color: var(--card); font-weight: 700; font-size: 1.4rem; }
h1 { font-size: 1.25rem; text-align: center; margin: 0 0 .25rem; }
p { margin: .5rem 0; } .muted { color: var(--muted); font-size: .875rem; text-align: center; }
label { display: grid; gap: .25rem; margin-top: 1rem; font-weight: 600; font-size: .875rem; }
label.check { display: flex; align-items: center; gap: .5rem; font-weight: 400; }
input { font: inherit; padding: .5rem .75rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--fg); }
details { margin-top: 1rem; font-size: .875rem; } summary { cursor: pointer; color: var(--muted); }
.actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
button { flex: 1; font: inherit; font-weight: 600; padding: .6rem 1rem; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--line); background: var(--bg); color: var(--fg); }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-fg); }
.error { color: var(--danger); font-weight: 600; }
.note { margin-top: 1.5rem; padding-top: 1rem; border-top: 1px solid var(--line); }
"""


def _page(title: str, body: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body><main>{body}</main></body></html>"
    )


def _error_page(provider: str, message: str, status: int = 400) -> HTMLResponse:
    body = (
        f'<div class="logo" aria-hidden="true">{html.escape(provider[:1])}</div>'
        f"<h1>{html.escape(provider)} sign-in failed</h1>"
        f'<p class="error" role="alert">{html.escape(message)}</p>'
        '<p class="muted">Start signing in again from the app.</p>'
    )
    return HTMLResponse(_page(f"{provider} sign-in failed", body), status, headers=HEADERS)


def sign_in_page(provider: str, app_name: str, inner_state: str, redirect_uri: str, error: str | None = None) -> str:
    e = html.escape
    problem = f'<p class="error" role="alert">{e(error)}</p>' if error else ""
    body = f"""<div class="logo" aria-hidden="true">{e(provider[:1])}</div>
<h1>Sign in to {e(provider)}</h1>
<p class="muted">to continue to <strong>{e(app_name)}</strong></p>
<form method="post">
  <input type="hidden" name="state" value="{e(inner_state)}">
  <input type="hidden" name="redirect_uri" value="{e(redirect_uri)}">
  {problem}
  <label>E-mail address
    <input type="email" name="email" autocomplete="email" autofocus>
  </label>
  <details><summary>More options</summary>
    <label>{e(provider)} account id (optional)
      <input type="text" name="account_id" maxlength="{MAX_ACCOUNT_ID_LENGTH}" autocomplete="off">
    </label>
    <label class="check"><input type="checkbox" name="private_email" value="on">
      Keep my address private ({e(app_name)} gets no e-mail)</label>
  </details>
  <p>{e(app_name)} will get your e-mail address and your {e(provider)} profile.</p>
  <div class="actions">
    <button type="submit" name="action" value="deny" formnovalidate>Deny</button>
    <button type="submit" name="action" value="authorize" class="primary">Authorize</button>
  </div>
</form>
<p class="muted note">Local mock of {e(provider)} served by the authmw local service: any e-mail address works.</p>"""
    return _page(f"Sign in to {provider}", body)


async def mock_provider_page(request: Request) -> Response:
    service: Service = request.app.state.service
    provider_id = request.path_params["provider_id"].lower()
    provider = provider_name(provider_id)
    # the form is urlencoded (no multipart parser needed); the first value of a field wins
    source: dict[str, str] = (
        dict(request.query_params)
        if request.method == "GET"
        else dict(reversed(parse_qsl((await request.body()).decode("utf-8", "replace"))))
    )
    inner_state = str(source.get("state") or "")
    redirect_uri = str(source.get("redirect_uri") or "")

    def read() -> tuple[dict[str, Any], str] | None:
        with service.db.tx() as c:
            return _flow(c, inner_state) if inner_state else None

    found = await run_in_threadpool(read)
    if found is None or found[0]["provider_id"] != provider_id:
        return _error_page(provider, "This sign-in request is unknown or has expired.")
    flow, app_name = found
    provider = provider_name(str(flow.get("provider_kind") or provider_id))
    registered = flow.get("provider_redirect_uri")
    if not registered or redirect_uri != registered:
        return _error_page(provider, "The redirect_uri is not the one registered for this sign-in request.")
    if request.method == "GET":
        return HTMLResponse(sign_in_page(provider, app_name, inner_state, registered), headers=HEADERS)

    if source.get("action") == "deny":
        query = {"error": "access_denied", "error_description": "The user denied the request.", "state": inner_state}
        return RedirectResponse(f"{registered}?{urlencode(query)}", status_code=303, headers=HEADERS)
    email = str(source.get("email") or "").strip()
    account_id = str(source.get("account_id") or "").strip()
    problem = None
    if not is_email(email):
        problem = "Enter a valid e-mail address."
    elif len(account_id) > MAX_ACCOUNT_ID_LENGTH:
        problem = f"The account id may have at most {MAX_ACCOUNT_ID_LENGTH} characters."
    if problem:
        page = sign_in_page(provider, app_name, inner_state, registered, problem)
        return HTMLResponse(page, 400, headers=HEADERS)

    # A private address identifies the provider account but is not shared with the app.
    shared = source.get("private_email") != "on"
    account = {
        "account_id": account_id or default_account_id(email),
        "email": email.lower() if shared else None,
        "email_verified": shared,
    }

    def issue() -> str:
        with service.db.tx() as c:
            data = {"inner_state_hash": sha256_hex(inner_state.lower()), "account": account}
            return create_code(c, flow["project_id"], PROVIDER_CODE, data, PROVIDER_CODE_LIFETIME_MILLIS)

    code = await run_in_threadpool(issue)
    location = with_query_param(with_query_param(registered, "code", code), "state", inner_state)
    return RedirectResponse(location, status_code=303, headers=HEADERS)


routes = [Route("/dev/oauth/{provider_id}", mock_provider_page, methods=["GET", "POST"])]
