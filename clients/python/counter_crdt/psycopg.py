"""counter_crdt for psycopg 3: counters read as CounterState, CounterState
written as a counter (text or binary).

    import psycopg
    from counter_crdt.psycopg import register

    conn = psycopg.connect(...)
    register(conn)        # or a cursor; a pool: ConnectionPool(configure=register)
    conn.execute("UPDATE t SET c = c + %s WHERE k = %s", [5, 1])   # an increment
    state = conn.execute("SELECT c FROM t WHERE k = 1").fetchone()[0]
    state.value

The type's OID is looked up on the connection (it differs per database), as
pgvector's register_vector does; the loaders and dumpers are registered on
that connection (or cursor) only.  An int parameter of `c + %s` goes as an
integer type: the server reads it as the increment's bigint.
"""
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo

from .state import CounterState

__all__ = ["register", "register_async", "CounterState"]


class CounterTextLoader(Loader):
    format = Format.TEXT

    def load(self, data):
        return CounterState(bytes(data))


class CounterBinaryLoader(Loader):
    format = Format.BINARY

    def load(self, data):
        return CounterState.from_binary(data)


class CounterTextDumper(Dumper):
    format = Format.TEXT

    def dump(self, obj):
        return str(obj).encode()


class CounterBinaryDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj):
        return obj.to_binary()


def _missing():
    return LookupError("the type counter_crdt is not in this database "
                       "(CREATE EXTENSION counter_crdt first)")


def _register_info(context, info):
    if info is None:
        raise _missing()
    info.register(context)
    adapters = context.adapters
    adapters.register_loader(info.oid, CounterTextLoader)
    adapters.register_loader(info.oid, CounterBinaryLoader)
    oid = info.oid
    adapters.register_dumper(CounterState,
                             type("CounterTextDumper", (CounterTextDumper,), {"oid": oid}))
    adapters.register_dumper(CounterState,
                             type("CounterBinaryDumper", (CounterBinaryDumper,), {"oid": oid}))


def register(context):
    """Registers counter_crdt on a psycopg connection or cursor."""
    _register_info(context, TypeInfo.fetch(context, "counter_crdt"))


async def register_async(context):
    """The same for an AsyncConnection or AsyncCursor."""
    _register_info(context, await TypeInfo.fetch(context, "counter_crdt"))
