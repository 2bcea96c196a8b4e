"""Fixtures of the Flask suite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask_testapp import make_app, service_teams


@pytest.fixture
def app(local_service: Any) -> Flask:
    return make_app(local_service.config)


@pytest.fixture
def short_app(short_service: Any) -> Flask:
    return make_app(short_service.config)


@pytest.fixture
def app_factory() -> Callable[..., Flask]:
    return make_app


@pytest.fixture
def teams(local_service: Any) -> Any:
    return service_teams.teams_or_xfail(local_service)
