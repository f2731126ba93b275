"""counter_crdt for Django: CounterField, and migration operations.

    from counter_crdt.django import CounterField
    from counter_crdt.django import CounterCrdtExtension, GuardCounterWrites

See doc/django.md.
"""
from counter_crdt import CounterState
from .fields import CounterField, CounterFormField, CounterValue

__all__ = ["CounterField", "CounterValue", "CounterFormField", "CounterState",
           "CounterCrdtExtension", "GuardCounterWrites", "EnableReplicaMerge"]

_OPERATIONS = ("CounterCrdtExtension", "GuardCounterWrites", "EnableReplicaMerge")


def __getattr__(name):
    # the operations import django.contrib.postgres: only when a migration asks
    if name in _OPERATIONS:
        from . import operations
        return getattr(operations, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
