"""counter_crdt for psycopg2: counters read as CounterState, CounterState
written as a counter.

    import psycopg2
    from counter_crdt.psycopg2 import register

    conn = psycopg2.connect(...)
    register(conn)                   # or a cursor; globally=True: every connection
    cur = conn.cursor()
    cur.execute("UPDATE t SET c = c + %s WHERE k = %s", (5, 1))     # an increment
    cur.execute("SELECT c FROM t WHERE k = 1")
    cur.fetchone()[0].value

psycopg2 puts parameters into the statement text: an int is a number there,
and `c + 5` is the increment.  A CounterState goes as '...'::counter_crdt.
The type's OID is looked up on the connection, as pgvector's
register_vector does.
"""
import psycopg2
from psycopg2.extensions import (AsIs, new_array_type, new_type, register_adapter,
                                 register_type)

from .state import CounterState

__all__ = ["register", "CounterState"]


def _cast(value, cur):
    if value is None:
        return None
    return CounterState(value)


def _adapt(state):
    # the canonical text holds only hex digits, digits, '{}:,->' and letters
    return AsIs("'%s'::counter_crdt" % state)


def register(conn_or_curs, globally=False):
    """Registers counter_crdt on a connection or cursor (every connection of
    the process when globally)."""
    cur = conn_or_curs.cursor() if hasattr(conn_or_curs, "cursor") else conn_or_curs
    cur.execute("SELECT to_regtype('counter_crdt')::oid, "
                "(SELECT typarray FROM pg_type WHERE oid = to_regtype('counter_crdt'))")
    oid, array_oid = cur.fetchone()
    if oid is None:
        raise psycopg2.ProgrammingError("the type counter_crdt is not in this database "
                                        "(CREATE EXTENSION counter_crdt first)")
    counter = new_type((oid,), "COUNTER_CRDT", _cast)
    scope = None if globally else conn_or_curs
    register_type(counter, scope)
    if array_oid:
        register_type(new_array_type((array_oid,), "COUNTER_CRDT[]", counter), scope)
    register_adapter(CounterState, _adapt)
    return counter
