from django.apps import AppConfig


class AuthmwConfig(AppConfig):
    """Installed only for linked Django users (``AUTHMW["DJANGO_USERS"] = True``): it ships
    the model linking each authmw user to a user of ``AUTH_USER_MODEL``."""

    name = "authmw_django"
    label = "authmw_django"
    verbose_name = "authmw"
    default_auto_field = "django.db.models.BigAutoField"
