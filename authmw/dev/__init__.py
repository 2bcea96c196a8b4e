"""The local development service under its first name: ``from authmw.dev import LocalService``.

The service itself is the package :mod:`authmw_local` (``local/authmw_local`` in the
repository), shipped in the same distribution and installed with the ``local`` extra
(``pip install "authmw[local]"``). This module re-exports its public names so that imports
written for ``authmw.dev`` keep working; new code may import either.
"""

from __future__ import annotations

try:
    from authmw_local import Clock, LocalService, MockProviderError, create_app, sign_in_at_mock_provider
except ModuleNotFoundError as missing:  # pragma: no cover - depends on what is installed
    if missing.name and missing.name.split(".")[0] == "authmw_local":
        raise
    raise ModuleNotFoundError(
        f"The local service needs {missing.name!r}, which the 'local' extra installs: "
        'pip install "authmw[local]"',
        name=missing.name,
    ) from missing

__all__ = ["Clock", "LocalService", "MockProviderError", "create_app", "sign_in_at_mock_provider"]
