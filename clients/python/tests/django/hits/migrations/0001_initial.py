# Written from what makemigrations made of models.py (Django 3.2), with the
# extension first and the guard and replica merge after the tables.
import counter_crdt.django
from counter_crdt.django import (
    CounterCrdtExtension, EnableReplicaMerge, GuardCounterWrites)
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = []

    operations = [
        CounterCrdtExtension(),
        migrations.CreateModel(
            name="Counted",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=50, unique=True)),
                ("views", counter_crdt.django.CounterField(default=0)),
                ("likes", counter_crdt.django.CounterField(blank=True, null=True)),
            ],
        ),
        migrations.CreateModel(
            name="Hit",
            fields=[
                ("slug", models.SlugField(primary_key=True, serialize=False)),
                ("views", counter_crdt.django.CounterField(default=0)),
            ],
        ),
        GuardCounterWrites("counted"),
        GuardCounterWrites("hit"),
        EnableReplicaMerge("hit"),
    ]
