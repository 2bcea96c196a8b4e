"""URLs and views of the Django test site (ROOT_URLCONF of tests/django)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import path
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from linked_testapp import views as linked_views
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from authmw.errors import UserNotFound
from authmw.middleware import AnonymousUser, AuthUser, Refusal
from authmw_django import require_permission, team_member_required, team_permission_required, user_required
from authmw_django.rest_framework import HasTeamPermission, IsSignedIn, IsTeamMember
from authmw_django.views import admin_login


def replaces_user(get_response: Any) -> Any:
    """A middleware standing for django.contrib.auth's, placed after authmw's."""

    def middleware(request: HttpRequest) -> Any:
        request.user = object()  # type: ignore[assignment]
        return get_response(request)

    return middleware


def _view(user: Any) -> dict[str, Any]:
    assert isinstance(user, (AuthUser, AnonymousUser))
    return {"id": user.id, "authenticated": user.is_authenticated}


def ping(request: HttpRequest) -> HttpResponse:
    return HttpResponse("pong")


def whoami(request: HttpRequest) -> JsonResponse:
    return JsonResponse(_view(request.user))


def whoami_kind(request: HttpRequest) -> JsonResponse:
    user = request.user
    return JsonResponse({"id": user.id, "anonymous": user.is_anonymous, "restricted": user.is_restricted})


def whoami_claims(request: HttpRequest) -> JsonResponse:
    user = request.user  # what the token says: no call to the service
    return JsonResponse({"email": user.email, "email_verified": user.email_verified, "display_name": user.display_name})


async def awhoami(request: HttpRequest) -> JsonResponse:
    return JsonResponse(_view(await request.auser()))  # type: ignore[attr-defined]


def sets_cookie(request: HttpRequest) -> HttpResponse:
    response = JsonResponse(_view(request.user))
    response.set_cookie("app", "1")
    response.delete_cookie("stack-access")  # the view's own decision wins
    return response


def cacheable(request: HttpRequest) -> JsonResponse:
    response = JsonResponse(_view(request.user))
    response["Cache-Control"] = "public, max-age=600"
    return response


def server_email(request: HttpRequest) -> JsonResponse:
    full = request.user.get_server_user()  # type: ignore[union-attr]
    return JsonResponse({"email": full.primary_email})


async def aserver_email(request: HttpRequest) -> JsonResponse:
    user = await request.auser()  # type: ignore[attr-defined]
    full = await user.get_server_user()
    return JsonResponse({"email": full.primary_email})


def refuses(request: HttpRequest) -> HttpResponse:
    raise Refusal.of(UserNotFound())


@user_required
def page(request: HttpRequest) -> HttpResponse:
    return HttpResponse(f"hello {request.user.id}")


@user_required()
def api_me(request: HttpRequest) -> JsonResponse:
    return JsonResponse(_view(request.user))


@user_required(api=True)
async def async_me(request: HttpRequest) -> JsonResponse:
    return JsonResponse(_view(await request.auser()))  # type: ignore[attr-defined]


@team_member_required
def team_home(request: HttpRequest, team_id: str) -> JsonResponse:
    return JsonResponse({"team": team_id})


@team_member_required(team=lambda request, org: org, api=True)
async def org_home(request: HttpRequest, org: str) -> JsonResponse:
    return JsonResponse({"team": org})


@team_permission_required("$update_team")
def team_settings(request: HttpRequest, team_id: str) -> JsonResponse:
    return JsonResponse({"team": team_id, "may": "update"})


@team_permission_required("$read_members", team="team")
async def team_people(request: HttpRequest, team: str) -> JsonResponse:
    return JsonResponse({"team": team, "may": "read members"})


@team_member_required
def wrong_kwarg(request: HttpRequest, org: str) -> HttpResponse:
    raise AssertionError("the guard reads team_id, which this view does not get")


@method_decorator(user_required(api=True), name="dispatch")
class AccountView(View):
    def get(self, request: HttpRequest) -> JsonResponse:
        return JsonResponse(_view(request.user))


class DrfMe(APIView):
    permission_classes = (IsSignedIn,)

    def get(self, request: Any) -> Response:
        return Response({"id": request.user.id, "sub": request.auth.sub})


class DrfIsAuthenticated(APIView):
    permission_classes = (IsAuthenticated,)

    def get(self, request: Any) -> Response:
        return Response({"id": request.user.id})


class DrfTeam(APIView):
    permission_classes = (IsTeamMember,)

    def get(self, request: Any, team_id: str) -> Response:
        return Response({"team": team_id})


class DrfWrongKwarg(APIView):
    permission_classes = (IsTeamMember,)

    def get(self, request: Any, org: str) -> Response:
        raise AssertionError("the permission reads team_id, which this view does not get")


class DrfTeamSettings(APIView):
    permission_classes = (HasTeamPermission.of("$update_team", team=lambda request, view: view.kwargs["org"]),)

    def get(self, request: Any, org: str) -> Response:
        return Response({"team": org, "may": "update"})


#: What the /action views did, as (method, user id): the cross-site tests look here.
ACTIONS: list[tuple[str, Any]] = []


def action(request: HttpRequest) -> JsonResponse:
    ACTIONS.append((request.method, request.user.id))
    return JsonResponse({"done": True})


@csrf_exempt
def exempt_action(request: HttpRequest) -> JsonResponse:
    return action(request)


class DrfAction(APIView):
    def _act(self, request: Any) -> Response:
        ACTIONS.append((request.method, request.user.id))
        return Response({"done": True})

    http_method_names = (*APIView.http_method_names, "purge")
    get = head = post = put = patch = delete = purge = _act


class DrfPermissionOnly(APIView):
    """A view whose own authentication classes leave authmw's out (a token scheme of the app's,
    say): its authmw permission class alone lets the caller in."""

    authentication_classes = ()
    permission_classes = (IsSignedIn,)

    def post(self, request: Any) -> Response:
        # (DRF's request.user is its anonymous user here: the middleware's user is the caller)
        ACTIONS.append((request.method, request._request._authmw_resolved.user.id))
        return Response({"done": True})


# API keys of machine clients (tests/django/test_django_api_keys.py; the permissions are
# made by tests/middleware/keys_support.py)


@user_required(api_keys=True)
def key_export(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"id": request.user.id, "via": request.user.via})


@team_member_required(api_keys=True)
async def key_team_sync(request: HttpRequest, team_id: str) -> JsonResponse:
    user = await request.auser()  # type: ignore[attr-defined]
    return JsonResponse({"team": team_id, "via": user.via})


@require_permission("keys_docs_write", api_keys=True)
def key_docs(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"editor": request.user.id})


@require_permission("keys_docs_admin", api_keys=True)
def key_admin_docs(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"editor": request.user.id})


urlpatterns = [
    path("keys/export", key_export),
    path("keys/teams/<str:team_id>/sync", key_team_sync),
    path("keys/docs", key_docs),
    path("keys/admin-docs", key_admin_docs),
    path("ping", ping),
    path("action", action),
    path("exempt-action", exempt_action),
    path("drf/action", DrfAction.as_view()),
    path("drf/permission-only", DrfPermissionOnly.as_view()),
    path("whoami", whoami),
    path("whoami/kind", whoami_kind),
    path("whoami/claims", whoami_claims),
    path("cacheable", cacheable),
    path("async/whoami", awhoami),
    path("sets-cookie", sets_cookie),
    path("server-email", server_email),
    path("async/server-email", aserver_email),
    path("refuses", refuses),
    path("page", page),
    path("api/me", api_me),
    path("async/me", async_me),
    path("teams/<str:team_id>/", team_home),
    path("api/orgs/<str:org>/", org_home),
    path("teams/<str:team_id>/settings", team_settings),
    path("api/teams/<str:team>/people", team_people),
    path("wrong-kwarg/<str:org>/", wrong_kwarg),
    path("class-view", AccountView.as_view()),
    path("drf/me", DrfMe.as_view()),
    path("drf/is-authenticated", DrfIsAuthenticated.as_view()),
    path("drf/teams/<str:team_id>/", DrfTeam.as_view()),
    path("drf/orgs/<str:org>/settings", DrfTeamSettings.as_view()),
    path("drf/wrong-kwarg/<str:org>/", DrfWrongKwarg.as_view()),
    # linked Django users (tests/django/test_django_linked_users.py)
    path("linked/whoami", linked_views.whoami),
    path("linked/notes", linked_views.add_note),
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
]
