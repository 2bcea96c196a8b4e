"""OAuth sign-in through the local mock provider (contract 5.4.6).

No real provider is reachable from a development machine, so every enabled provider is served
by a built-in mock: `/auth/oauth/authorize/{provider}` redirects to `/dev/oauth/{provider}`
(mock_provider.py), a page that asks for an e-mail address and returns to the callback with a
code standing for that provider account (or with `error=access_denied`).
Everything the client sees (redirects, cookies, codes, PKCE, errors) follows the contract.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

#: Verification-code types of the flow.
OUTER_FLOW = "oauth_outer_flow"
AUTHORIZATION_CODE = "oauth_authorization_code"
#: What the mock provider hands back to the service's callback.
PROVIDER_CODE = "oauth_mock_provider_code"

OUTER_FLOW_LIFETIME_MILLIS = 10 * 60 * 1000
AUTHORIZATION_CODE_LIFETIME_MILLIS = 300 * 1000
PROVIDER_CODE_LIFETIME_MILLIS = 300 * 1000
INNER_COOKIE_MAX_AGE = 600
INNER_COOKIE_PREFIX = "stack-oauth-inner-"


def pkce_matches(verifier: str, challenge: str, method: str) -> bool:
    if method == "plain":
        return hmac.compare_digest(verifier, challenge)
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return hmac.compare_digest(digest, challenge)
