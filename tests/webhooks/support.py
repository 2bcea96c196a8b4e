"""Deliveries signed by Svix's own library, for the receiver tests."""

from __future__ import annotations

import base64
import json
import os
from datetime import datetime, timezone

from svix.webhooks import Webhook as SvixWebhook

SECRET = "whsec_" + base64.b64encode(os.urandom(24)).decode()
OTHER_SECRET = "whsec_" + base64.b64encode(os.urandom(24)).decode()
NOW = 1_790_000_000.0


def delivery(
    event_type: str, data: object, *, msg_id: str = "msg_1", secret: str = SECRET, timestamp: float = NOW
) -> tuple[bytes, dict[str, str]]:
    """A body and the svix-* headers Svix's library signs it with."""
    body = json.dumps({"type": event_type, "data": data}).encode()
    when = datetime.fromtimestamp(timestamp, tz=timezone.utc)
    signature = SvixWebhook(secret).sign(msg_id, when, body.decode())
    return body, {
        "svix-id": msg_id,
        "svix-timestamp": str(int(timestamp)),
        "svix-signature": signature,
        "content-type": "application/json",
    }
