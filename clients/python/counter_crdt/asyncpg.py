"""counter_crdt for asyncpg: counters read as CounterState, CounterState
written as a counter, in the binary form (asyncpg's preferred format).

    import asyncpg
    from counter_crdt.asyncpg import register

    conn = await asyncpg.connect(...)
    await register(conn)             # a pool: asyncpg.create_pool(..., init=register)
    await conn.execute("UPDATE t SET c = c + $1 WHERE k = $2", 5, 1)   # an increment
    state = await conn.fetchval("SELECT c FROM t WHERE k = 1")
    state.value

asyncpg prepares every statement: the server types `$1` of `c + $1` as the
increment's bigint, so an int goes as it is.
"""
from .state import CounterState

__all__ = ["register", "CounterState"]


def _encode(state):
    if not isinstance(state, CounterState):
        raise TypeError("a counter_crdt parameter takes a CounterState, not %s; "
                        "to increment, write c = c + $1 with an int"
                        % type(state).__name__)
    return state.to_binary()


def _encode_text(state):
    _encode(state)
    return str(state)


async def register(conn, format="binary"):
    """Registers counter_crdt on an asyncpg connection (format "binary" or
    "text")."""
    schema = await conn.fetchval(
        "SELECT n.nspname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
        "WHERE t.oid = to_regtype('counter_crdt')")
    if schema is None:
        raise LookupError("the type counter_crdt is not in this database "
                          "(CREATE EXTENSION counter_crdt first)")
    if format == "binary":
        await conn.set_type_codec("counter_crdt", schema=schema, format="binary",
                                  encoder=_encode, decoder=CounterState.from_binary)
    elif format == "text":
        await conn.set_type_codec("counter_crdt", schema=schema, format="text",
                                  encoder=_encode_text,
                                  decoder=CounterState)
    else:
        raise ValueError("format is 'binary' or 'text', not %r" % (format,))
