from django.apps import AppConfig


class HitsConfig(AppConfig):
    name = "hits"
    default_auto_field = "django.db.models.BigAutoField"
