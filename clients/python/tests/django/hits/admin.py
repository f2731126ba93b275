from django.contrib import admin

from .models import Counted

admin.site.register(Counted, list_display=["name", "views"])
