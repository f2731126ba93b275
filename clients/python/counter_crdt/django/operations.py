"""Migration operations for counter_crdt.

    from counter_crdt.django.operations import (
        CounterCrdtExtension, GuardCounterWrites, EnableReplicaMerge)

CounterCrdtExtension(): CREATE EXTENSION IF NOT EXISTS counter_crdt (as
django.contrib.postgres's CreateExtension; backwards drops it).
GuardCounterWrites("page"): the server's write guard on the model's table
(counter_crdt_guard_writes(), release 1.11): a local UPDATE that writes into
a counter a state that lacks what the row holds fails with 23000
(IntegrityError); backwards drops the guard.
EnableReplicaMerge("page"): counter_crdt_enable_replica_merge() on the
model's table, for a table that replication applies into (doc/replication.md);
backwards leaves the triggers (they go with the table).
"""
from django.contrib.postgres.operations import CreateExtension
from django.db.migrations.operations.base import Operation

__all__ = ["CounterCrdtExtension", "GuardCounterWrites", "EnableReplicaMerge"]


class CounterCrdtExtension(CreateExtension):
    """CREATE EXTENSION IF NOT EXISTS counter_crdt."""

    def __init__(self):
        self.name = "counter_crdt"

    def deconstruct(self):
        return (self.__class__.__qualname__, [], {})


class _TableOperation(Operation):
    reversible = True
    reduces_to_sql = True

    def __init__(self, model_name):
        self.model_name = model_name

    def deconstruct(self):
        return (self.__class__.__qualname__, [self.model_name], {})

    def state_forwards(self, app_label, state):
        pass

    def _table(self, app_label, schema_editor, state):
        model = state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return None
        return schema_editor.quote_name(model._meta.db_table)

    def _call(self, function, app_label, schema_editor, state):
        table = self._table(app_label, schema_editor, state)
        if table is not None:
            schema_editor.execute("SELECT %s(%s::regclass)" % (
                function, schema_editor.quote_value(table)))


class GuardCounterWrites(_TableOperation):
    """counter_crdt_guard_writes() on the model's table."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        self._call("counter_crdt_guard_writes", app_label, schema_editor, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        table = self._table(app_label, schema_editor, from_state)
        if table is not None:
            schema_editor.execute("DROP TRIGGER IF EXISTS counter_crdt_write_guard ON %s" % table)

    def describe(self):
        return "Guard the counters of %s against writes of stale states" % self.model_name

    @property
    def migration_name_fragment(self):
        return "guard_%s" % self.model_name.lower()


class EnableReplicaMerge(_TableOperation):
    """counter_crdt_enable_replica_merge() on the model's table."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        self._call("counter_crdt_enable_replica_merge", app_label, schema_editor, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        pass

    def describe(self):
        return "Merge the rows that replication applies into %s" % self.model_name

    @property
    def migration_name_fragment(self):
        return "replica_merge_%s" % self.model_name.lower()
