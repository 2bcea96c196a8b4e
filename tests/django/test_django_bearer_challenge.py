"""Django: a bearer token with a crafted ``alg`` gets the fixed 401 challenge, never its text
(tests/middleware/test_bearer_challenge.py has the attack, real servers and the other clients)."""

from __future__ import annotations

from middleware.test_bearer_challenge import HOSTILE_ALGS, check_refusal, crafted


def test_django_answers_a_crafted_alg_with_the_fixed_challenge(site, local_service) -> None:
    client = site.client()
    for alg in HOSTILE_ALGS:
        r = client.get("/whoami", headers={"authorization": f"Bearer {crafted(alg)}"})
        check_refusal(r.status_code, {k.lower(): v for k, v in r.headers.items()}, r.content)
    s = local_service.sign_up()
    assert client.get("/whoami", headers={"authorization": f"Bearer {s.access_token}"}).json()["id"] == s.user_id
