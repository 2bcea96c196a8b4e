"""A small OpenID Connect provider for tests of OAuth with outside providers (outside_oauth.py).

    with OidcProvider() as provider:          # a real HTTP server on a free port of 127.0.0.1
        provider.issuer                        # its discovery: {issuer}/.well-known/openid-configuration

It speaks the parts of OAuth 2 / OIDC a client uses: discovery, an authorization endpoint that
shows a sign-in form (e-mail address, optional account id, Allow / Deny), the token endpoint
(authorization code with PKCE S256 and client authentication; refresh tokens), userinfo and the
JWKS of the RSA key that signs its ID tokens. Tests steer it: `revoke_access_token`,
`revoke_grant`, `fail_next_token(error, status)`, `forge_id_tokens` (sign with a key it does not
publish), `claims_override` (e.g. another `iss` or `aud`) and read `token_requests`.
"""

from __future__ import annotations

import base64
import hashlib
import html
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

CLIENT_ID = "authmw-test-client"
CLIENT_SECRET = "authmw-test-secret"


async def _form(request: Request) -> dict[str, str]:
    """An urlencoded form (the first value of each field)."""
    return dict(reversed(parse_qsl((await request.body()).decode())))


@dataclass
class Grant:
    sub: str
    email: str
    email_verified: bool
    name: str | None
    scope: str
    alive: bool = True


@dataclass
class _Code:
    grant: Grant
    client_id: str
    redirect_uri: str
    challenge: str
    method: str


@dataclass
class OidcProvider:
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET
    #: Whether the provider says it checked the addresses its users sign in with.
    email_verified: bool = True
    forge_id_tokens: bool = False
    claims_override: dict[str, Any] = field(default_factory=dict)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    authorize_requests: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._kid = secrets.token_hex(4)
        self._codes: dict[str, _Code] = {}
        self._access: dict[str, Grant] = {}
        self._refresh: dict[str, Grant] = {}
        self._failures: list[tuple[str, int]] = []
        self._lock = threading.Lock()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(128)  # connections wait in the backlog until the server takes them
        self.port = int(self._sock.getsockname()[1])
        self.issuer = f"http://127.0.0.1:{self.port}"
        app = Starlette(
            routes=[
                Route("/.well-known/openid-configuration", self._discovery),
                Route("/authorize", self._authorize, methods=["GET", "POST"]),
                Route("/token", self._token, methods=["POST"]),
                Route("/userinfo", self._userinfo),
                Route("/jwks", self._jwks),
            ]
        )
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread: threading.Thread | None = None

    # -- control -------------------------------------------------------------------------------

    def __enter__(self) -> OidcProvider:
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._sock.close()

    def revoke_access_token(self, token: str) -> None:
        with self._lock:
            self._access.pop(token, None)

    def revoke_grant(self, access_token: str) -> None:
        """Revoke the grant of an access token: it and every token of the grant stop working."""
        with self._lock:
            grant = self._access.get(access_token)
            if grant is not None:
                grant.alive = False

    def fail_next_token(self, error: str, status: int = 400) -> None:
        """The next token request answers `{"error": error}` with `status`."""
        with self._lock:
            self._failures.append((error, status))

    # -- endpoints -----------------------------------------------------------------------------

    async def _discovery(self, request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "userinfo_endpoint": f"{self.issuer}/userinfo",
                "jwks_uri": f"{self.issuer}/jwks",
                "response_types_supported": ["code"],
                "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "code_challenge_methods_supported": ["S256"],
                "authorization_response_iss_parameter_supported": True,
            }
        )

    async def _authorize(self, request: Request) -> Response:
        if request.method == "GET":
            query = dict(request.query_params)
            self.authorize_requests.append(query)
            if query.get("client_id") != self.client_id or query.get("response_type") != "code":
                return HTMLResponse("<p>Unknown client or response type.</p>", 400)
            hidden = "".join(
                f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in query.items()
            )
            page = (
                '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test OIDC sign-in</title></head>'
                f'<body><main><h1>Test OIDC provider</h1><form method="post">{hidden}'
                '<label>E-mail address <input type="email" name="login" required></label>'
                '<label>Account id <input name="sub"></label>'
                '<button name="decision" value="allow">Allow</button>'
                '<button name="decision" value="deny" formnovalidate>Deny</button></form></main></body></html>'
            )
            return HTMLResponse(page)
        fields = await _form(request)
        redirect_uri = fields["redirect_uri"]
        back = {"state": fields.get("state", ""), "iss": self.issuer}
        if fields.get("decision") == "deny":
            return RedirectResponse(f"{redirect_uri}?{urlencode({'error': 'access_denied', **back})}", 303)
        email = fields["login"].strip().lower()
        sub = fields.get("sub") or "sub-" + hashlib.sha256(email.encode()).hexdigest()[:16]
        grant = Grant(sub, email, self.email_verified, email.split("@")[0].title(), fields.get("scope", ""))
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = _Code(
                grant,
                fields["client_id"],
                redirect_uri,
                fields.get("code_challenge", ""),
                fields.get("code_challenge_method", ""),
            )
        return RedirectResponse(f"{redirect_uri}?{urlencode({'code': code, **back})}", 303)

    def _client_ok(self, request: Request, form: dict[str, str]) -> bool:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("basic "):
            client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        else:
            client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        return secrets.compare_digest(client_id, self.client_id) and secrets.compare_digest(secret, self.client_secret)

    async def _token(self, request: Request) -> Response:
        form = await _form(request)
        self.token_requests.append(form)
        with self._lock:
            if self._failures:
                error, status = self._failures.pop(0)
                return JSONResponse({"error": error}, status)
        if not self._client_ok(request, form):
            return JSONResponse({"error": "invalid_client"}, 401)
        with self._lock:
            if form.get("grant_type") == "authorization_code":
                code = self._codes.pop(form.get("code", ""), None)
                verifier = form.get("code_verifier", "")
                digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if (
                    code is None
                    or code.redirect_uri != form.get("redirect_uri")
                    or code.method != "S256"
                    or not secrets.compare_digest(digest, code.challenge)
                ):
                    return JSONResponse({"error": "invalid_grant"}, 400)
                grant = code.grant
            elif form.get("grant_type") == "refresh_token":
                found = self._refresh.pop(form.get("refresh_token", ""), None)
                if found is None or not found.alive:
                    return JSONResponse({"error": "invalid_grant"}, 400)
                grant = found
            else:
                return JSONResponse({"error": "unsupported_grant_type"}, 400)
            access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
            self._access[access] = grant
            self._refresh[refresh] = grant
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": 3600,
            "refresh_token": refresh,
            "scope": grant.scope,
        }
        if "openid" in grant.scope.split():
            body["id_token"] = self.id_token(grant)
        return JSONResponse(body, headers={"cache-control": "no-store"})

    def id_token(self, grant: Grant) -> str:
        """An ID token of this provider for `grant` (signed with the other key when forging)."""
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": grant.sub,
            "aud": self.client_id,
            "iat": now,
            "exp": now + 600,
            "email": grant.email,
            "email_verified": grant.email_verified,
            **self.claims_override,
        }
        key = self._other_key if self.forge_id_tokens else self._key
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": self._kid})

    async def _userinfo(self, request: Request) -> Response:
        token = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        with self._lock:
            grant = self._access.get(token)
        if grant is None or not grant.alive:
            return JSONResponse({"error": "invalid_token"}, 401)
        return JSONResponse(
            {"sub": grant.sub, "email": grant.email, "email_verified": grant.email_verified, "name": grant.name}
        )

    async def _jwks(self, request: Request) -> Response:
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self._key.public_key(), as_dict=True)
        return JSONResponse({"keys": [{**public, "kid": self._kid, "use": "sig", "alg": "RS256"}]})
