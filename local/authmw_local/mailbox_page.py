"""The HTML of the mailbox pages (routes/mailbox.py): pure functions of outbox items.

Everything that comes from the outbox (addresses, subjects, bodies with user-chosen display
names, links) is escaped; only http(s) links become `<a href>`. No script, no external asset.
"""

from __future__ import annotations

import datetime as dt
import re
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

_SAFE_HREF = re.compile(r"^https?://", re.IGNORECASE)

KIND_LABELS = {
    "email_verification": "E-mail verification",
    "password_reset": "Password reset",
    "magic_link": "Magic link",
    "team_invitation": "Team invitation",
}

_STYLE = """
:root { color-scheme: light dark; --fg: #1b1b1f; --muted: #5f6168; --bg: #f6f6f8; --card: #fff;
        --line: #dedee3; --accent: #2f5bd3; --ok: #1d7a3a; --bad: #b3261e; --wait: #8a5a00; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e8e8ec; --muted: #a3a5ad; --bg: #151518; --card: #1f1f24; --line: #33343a;
          --accent: #8fb0ff; --ok: #6fd08c; --bad: #ff8a80; --wait: #f0c060; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
h2 { font-size: 1.1rem; margin: .25rem 0 .5rem; overflow-wrap: anywhere; }
a { color: var(--accent); }
.muted { color: var(--muted); }
form.filter { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; margin: 1rem 0; }
form.filter input { flex: 1 1 16rem; padding: .4rem .6rem; font: inherit; color: inherit;
                    background: var(--card); border: 1px solid var(--line); border-radius: 6px; }
form.filter button, a.button { padding: .4rem .9rem; font: inherit; border-radius: 6px; cursor: pointer;
                               border: 1px solid var(--accent); background: var(--accent); color: var(--card);
                               text-decoration: none; display: inline-block; }
article { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
          padding: 1rem 1.1rem; margin: 0 0 1rem; }
.meta { display: flex; gap: .4rem 1rem; flex-wrap: wrap; font-size: .9rem; color: var(--muted); }
.meta b { color: var(--fg); font-weight: 600; overflow-wrap: anywhere; }
.badge { font-size: .8rem; padding: 0 .5rem; border-radius: 99px; border: 1px solid var(--line); }
.delivery-sent { color: var(--ok); border-color: var(--ok); }
.delivery-failed { color: var(--bad); border-color: var(--bad); }
.delivery-pending { color: var(--wait); border-color: var(--wait); }
.body { white-space: pre-wrap; overflow-wrap: anywhere; margin: .5rem 0 .75rem;
        font-size: .95rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; font-size: .9rem; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
"""


def list_page(items: list[dict[str, Any]], recipient: str | None, total: int) -> str:
    """The newest messages (all, or those to `recipient`), out of `total`."""
    summary = f"{total} e-mail{'s' if total != 1 else ''}"
    if recipient:
        summary += f" to <b>{escape(recipient)}</b>"
    if total > len(items):
        summary += f", the newest {len(items)} shown"
    back = f"?{urlencode({'to': recipient})}" if recipient else ""
    articles = "\n".join(_article(item, back) for item in items) or _empty(recipient)
    content = f"""<h1>Mailbox</h1>
<p class="muted">E-mails sent by the authmw local service, newest first. {summary}.
<a href="/dev/mailbox{escape(back)}">Refresh</a> &middot; JSON: <a href="/dev/outbox{escape(back)}">/dev/outbox</a></p>
<form class="filter" method="get" action="/dev/mailbox" role="search">
  <label for="to" class="muted">Recipient</label>
  <input id="to" name="to" type="email" placeholder="user@example.com" value="{escape(recipient or "")}">
  <button type="submit">Filter</button>
  {'<a href="/dev/mailbox">Show all</a>' if recipient else ""}
</form>
{articles}"""
    return _page("Mailbox" + (f" \u2013 {recipient}" if recipient else ""), content)


def message_page(item: dict[str, Any], back: str) -> str:
    """One message, with its details; `back` is the query string of the list to return to."""
    details = f"""<dl>
  <dt>Id</dt><dd>{escape(item["id"])}</dd>
  <dt>Project</dt><dd>{escape(item["project_id"])}</dd>
  <dt>Kind</dt><dd>{escape(item["kind"])}</dd>
  <dt>Delivery</dt><dd>{escape(item["delivery"])}</dd>
  <dt>Link</dt><dd>{_link(item["link"]) if item["link"] else "none"}</dd>
</dl>"""
    content = f"""<p><a href="/dev/mailbox{escape(back)}">&larr; Mailbox</a></p>
{_article(item, back, details=details)}"""
    return _page(item["subject"], content)


def not_found_page() -> str:
    return _page("No such e-mail", '<h1>No such e-mail</h1>\n<p><a href="/dev/mailbox">&larr; Mailbox</a></p>')


def _page(title: str, content: str) -> str:
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{escape(title)} \u2013 authmw local service</title>
<style>{_STYLE}</style>
</head>
<body>
<main>
{content}
</main>
</body>
</html>
"""


def _article(item: dict[str, Any], back: str, *, details: str = "") -> str:
    href = f"/dev/mailbox/{quote(item['id'], safe='')}{back}"
    open_link = (
        f'<p><a class="button" href="{escape(item["link"])}">Open link</a></p>' if _is_safe(item["link"]) else ""
    )
    return f"""<article data-email-id="{escape(item["id"])}">
  <div class="meta">
    <span>To <b>{escape(item["to"])}</b></span>
    <time datetime="{_iso(item["sent_at_millis"])}">{_when(item["sent_at_millis"])}</time>
    <span class="badge">{escape(KIND_LABELS.get(item["kind"], item["kind"]))}</span>
    {_delivery_badge(item["delivery"])}
  </div>
  <h2><a href="{escape(href)}">{escape(item["subject"])}</a></h2>
  <div class="body">{_body(item["body"].rstrip(), item["link"])}</div>
  {open_link}
  {details}
</article>"""


def _empty(recipient: str | None) -> str:
    if recipient:
        return f'<p class="muted">No e-mail to <b>{escape(recipient)}</b> yet.</p>'
    return '<p class="muted">No e-mail yet. Sign up, reset a password or invite someone, then refresh.</p>'


def _body(body: str, link: str | None) -> str:
    """The text body, escaped, with each occurrence of the message's link made clickable."""
    if not _is_safe(link):
        return escape(body)
    assert link is not None
    return _link(link).join(escape(part) for part in body.split(link))


def _link(url: str) -> str:
    if not _is_safe(url):
        return escape(url)
    return f'<a href="{escape(url)}">{escape(url)}</a>'


def _is_safe(url: str | None) -> bool:
    return bool(url) and _SAFE_HREF.match(url or "") is not None


def _delivery_badge(delivery: str) -> str:
    state = "failed" if delivery.startswith("failed") else delivery
    labels = {"outbox-only": "outbox only", "pending": "sending\u2026", "sent": "sent by SMTP"}
    label = labels.get(delivery, "SMTP " + delivery)
    title = {
        "outbox-only": "The project uses the shared e-mail config: the e-mail stays here.",
        "pending": "Being delivered to the project's SMTP server.",
        "sent": "The project's SMTP server accepted the e-mail.",
    }.get(delivery, "The project's SMTP server did not take the e-mail; it is only here.")
    return f'<span class="badge delivery-{escape(state)}" title="{escape(title)}">{escape(label)}</span>'


def _moment(millis: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(millis / 1000, dt.timezone.utc)


def _iso(millis: int) -> str:
    return _moment(millis).isoformat(timespec="seconds")


def _when(millis: int) -> str:
    return _moment(millis).strftime("%Y-%m-%d %H:%M:%S UTC")
