"""The typed admin config of API 2.8 over HTTP against a local service answering as 2.8:
``oauth_account_merge_strategy`` (default, each value, a bad one refused), sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from authmw import AdminApp, AsyncAdminApp
from authmw.models import AdminProjectConfigUpdate


def test_merge_strategy_defaults_and_changes(service_28: Any) -> None:
    with AdminApp(service_28.config) as admin:
        assert admin.get_project().config.oauth_account_merge_strategy == "link_method"
        try:
            for value in ("raise_error", "allow_duplicates"):
                project = admin.update_project(config=AdminProjectConfigUpdate(oauth_account_merge_strategy=value))
                assert project.config.oauth_account_merge_strategy == value
                assert admin.get_project().config.oauth_account_merge_strategy == value
        finally:
            admin.update_project(config={"oauth_account_merge_strategy": "link_method"})


def test_merge_strategy_async(service_28: Any) -> None:
    async def run() -> None:
        async with AsyncAdminApp(service_28.config) as admin:
            try:
                project = await admin.update_project(config={"oauth_account_merge_strategy": "raise_error"})
                assert project.config.oauth_account_merge_strategy == "raise_error"
            finally:
                await admin.update_project(config={"oauth_account_merge_strategy": "link_method"})

    asyncio.run(run())


def test_an_unknown_strategy_is_refused_before_any_call() -> None:
    with pytest.raises(ValidationError, match="link_method"):
        AdminProjectConfigUpdate(oauth_account_merge_strategy="merge_everything")  # type: ignore[arg-type]
