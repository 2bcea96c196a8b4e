"""Fixtures of the Flask suite."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask
from flask_testapp import make_app, service_support


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
    return service_support.teams_or_fail(local_service)


@pytest.fixture(scope="session")
def brief(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A local service whose access tokens expire a second after issue."""
    yield from service_support.brief_service(tmp_path_factory.mktemp("brief-service"))
