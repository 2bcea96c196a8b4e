"""tests/deployment.py reads e-mailed codes from an SMTP sink's folder when the suites target
another deployment (AUTHMW_TEST_MAIL_DIR)."""

from __future__ import annotations

import os
from email.message import EmailMessage
from pathlib import Path

import deployment


def write(folder: Path, name: str, to: str, link: str, mtime: int) -> None:
    message = EmailMessage()
    message["To"], message["From"], message["Subject"] = to, "noreply@example.com", "Your code"
    message.set_content(f"Hello,\n\nopen {link} to go on.\n")
    message.add_alternative(f'<p><a href="{link}">Go on</a></p>', subtype="html")
    path = folder / name
    path.write_bytes(bytes(message))
    os.utime(path, (mtime, mtime))


def test_mail_folder_items_carry_kind_and_link_newest_first(tmp_path: Path) -> None:
    to = "ada@example.com"
    write(tmp_path, "1.eml", to, "http://localhost:3000/handler/email-verification?code=old", 1_000)
    write(tmp_path, "2.eml", to, "http://localhost:3000/handler/password-reset?code=new", 2_000)
    write(tmp_path, "3.eml", "someone@example.com", "http://localhost:3000/handler/magic-link-callback?code=x", 3_000)
    (tmp_path / "notes.txt").write_text("not an e-mail")
    items = deployment.read_mail_dir(tmp_path, "ADA@example.com")
    assert [(item["kind"], item["link"].rsplit("=", 1)[1]) for item in items] == [
        ("password_reset", "new"),
        ("email_verification", "old"),
    ]
    assert deployment.Deployment("http://x", "p", None, None, None, tmp_path).outbox(to) == items
