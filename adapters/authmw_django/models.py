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


class SeenWebhookMessage(models.Model):
    """A webhook message id a receiver accepted, kept until ``expires_at`` (Unix seconds) by
    :class:`authmw_django.webhooks.DatabaseSeenIds`: the replay and retry check shared by every
    process of the site."""

    message_id = models.CharField(max_length=255, unique=True)
    expires_at = models.FloatField(db_index=True)

    class Meta:
        verbose_name = "seen webhook message"

    def __str__(self) -> str:
        return str(self.message_id)
