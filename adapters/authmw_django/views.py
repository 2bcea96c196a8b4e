"""Views for linked Django users: Django's login pages hand over to the authmw sign-in.

::

    from authmw_django.views import sign_in

    urlpatterns = [
        path("accounts/login/", sign_in),        # settings.LOGIN_URL: login_required lands here
        path("admin/login/", sign_in),           # before the admin's own URLs
        path("admin/", admin.site.urls),
    ]
"""

from __future__ import annotations

from django.contrib.auth import REDIRECT_FIELD_NAME
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from authmw.adapter import same_origin_path, sign_in_url

from ._middleware import site_auth


def sign_in(request: HttpRequest) -> HttpResponse:
    """Sends the browser to the authmw sign-in page, and back to ``?next=`` (a path of this
    site; else the site's root) afterwards."""
    auth = site_auth(request, "authmw_django.views.sign_in")
    # Only a path of this site, as a browser reads it; else the site's root.
    target = same_origin_path(request.GET.get(REDIRECT_FIELD_NAME)) or "/"
    return HttpResponseRedirect(sign_in_url(auth.config.handler_path, target))


#: The admin's login page, for ``path("admin/login/", admin_login)``.
admin_login = sign_in
