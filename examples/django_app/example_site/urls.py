from django.urls import path, re_path

from . import views

urlpatterns = [
    path("api/me", views.me),
    path("account", views.account),
    re_path(r"^api/", views.api_not_found),
    re_path(r"^(?P<path>.*)$", views.web),
]
