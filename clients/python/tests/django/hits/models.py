"""The models of test/t/030_django.pl's checks (checks.py, increment.py)."""
from django.db import models

from counter_crdt.django import CounterField


class Counted(models.Model):
    name = models.CharField(max_length=50, unique=True)
    views = CounterField(default=0)
    likes = CounterField(null=True, blank=True)

    def __str__(self):
        return self.name


class Hit(models.Model):
    """Replicated between two servers: its key and counters only."""
    slug = models.SlugField(primary_key=True)
    views = CounterField(default=0)
