"""The public apps: ``ClientApp``, ``ServerApp`` and their ``Async`` twins.

Every API call is written once, as a generator method decorated with ``@operation``. On a
sync app the decorated method runs the generator under the sync driver and returns the
result; on an async app it returns a coroutine that runs it under the async driver::

    class _ClientOps(_CommonOps):
        @operation
        def get_project(self) -> Op[Project]:
            body = yield from self._transport.call_json("GET", "/projects/current")
            return Project.model_validate(body)

    class ClientApp(_ClientOps, SyncRunner): ...          # app.get_project()
    class AsyncClientApp(_ClientOps, AsyncRunner): ...    # await app.get_project()

Namespaces (``server.users``) are built the same way, so later calls slot in as
operations of a namespace class.

Layout: ``_binding`` (``@operation``, the runners), ``_base`` (construction, closing,
calls of every tier), ``_client`` and ``_server`` (one module per tier).
"""

from ._binding import AsyncRunner, SyncRunner, operation
from ._client import AsyncClientApp, ClientApp
from ._server import AsyncServerApp, AsyncServerUsers, ServerApp, ServerUsers

__all__ = [
    "AsyncClientApp",
    "AsyncRunner",
    "AsyncServerApp",
    "AsyncServerUsers",
    "ClientApp",
    "ServerApp",
    "ServerUsers",
    "SyncRunner",
    "operation",
]
