from django.conf import settings
from django.db import models


class AuthmwUserLink(models.Model):
    """One authmw user, one Django user: made on the first sign-in, or by ``authmw_link_users``."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="authmw_link")
    authmw_user_id = models.CharField(max_length=64, unique=True)
    linked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "authmw user link"

    def __str__(self) -> str:
        return f"{self.user} <-> authmw user {self.authmw_user_id}"
