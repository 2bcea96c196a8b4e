from django.conf import settings
from django.urls import path, re_path

from authmw_django import web_urls

from . import views

urlpatterns = [
    path("api/me", views.me),
    path("account", views.account),
    re_path(r"^api/", views.api_not_found),
    # The built React app, last: its files (hashed assets cached for good) and index.html, with
    # the browser's settings in it, for every page path; never /api or /account.
    *web_urls(settings.WEB_DIST, server_paths=["/account"], index_html=views.with_config),
]
