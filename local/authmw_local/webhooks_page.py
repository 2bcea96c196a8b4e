"""The HTML of `GET /dev/webhooks` (routes/webhooks.py): the webhook messages the local service
sent, newest first, with each one's status. Everything shown is escaped; no script."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from .mailbox_page import _iso, _page, _when

_STATUS = {
    "delivered": ("sent", "delivered", "The endpoint answered 2xx."),
    "pending": ("pending", "retrying\u2026", "Not delivered yet; the service tries again (see next attempt)."),
    "failed": ("failed", "failed", "Every attempt failed; the service stopped trying."),
}


def messages_page(items: list[dict[str, Any]]) -> str:
    count = f"{len(items)} message{'s' if len(items) != 1 else ''}"
    articles = "\n".join(_article(item) for item in items) or (
        '<p class="muted">No webhook sent yet. Add an endpoint (<code>authmw dev --webhook URL</code>), '
        "change a user or a team, then refresh.</p>"
    )
    content = f"""<h1>Webhooks</h1>
<p class="muted">Events the authmw local service sent to the projects' webhook endpoints, newest first. {count}.
<a href="/dev/webhooks">Refresh</a> &middot; JSON: <a href="/dev/webhook-messages">/dev/webhook-messages</a>
&middot; <a href="/dev/mailbox">Mailbox</a></p>
{articles}"""
    return _page("Webhooks", content)


def _article(item: dict[str, Any]) -> str:
    state, label, title = _STATUS.get(item["status"], ("failed", item["status"], ""))
    payload = json.dumps(item["payload"], indent=2, sort_keys=True)
    return f"""<article data-message-id="{escape(item["id"])}" data-status="{escape(item["status"])}">
  <div class="meta">
    <span>To <b>{escape(item["url"])}</b></span>
    <time datetime="{_iso(item["created_at_millis"])}">{_when(item["created_at_millis"])}</time>
    <span class="badge delivery-{state}" title="{escape(title)}">{escape(label)}</span>
    <span>{item["attempts"]} attempt{"s" if item["attempts"] != 1 else ""}{
        f", last: {escape(item['last_result'])}" if item["last_result"] else ""
    }</span>
  </div>
  <h2>{escape(item["type"])}</h2>
  <dl><dt>Message id</dt><dd>{escape(item["id"])}</dd><dt>Project</dt><dd>{escape(item["project_id"])}</dd></dl>
  <div class="body">{escape(payload)}</div>
</article>"""
