from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("authmw_django", "0001_initial")]

    operations = [
        migrations.CreateModel(
            name="SeenWebhookMessage",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("message_id", models.CharField(max_length=255, unique=True)),
                ("expires_at", models.FloatField(db_index=True)),
            ],
            options={"verbose_name": "seen webhook message"},
        ),
    ]
