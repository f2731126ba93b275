"""counter_crdt for SQLAlchemy 1.4 and 2.0.

    from counter_crdt.sqlalchemy import Counter, increment, value

    class Page(Base):
        __tablename__ = "pages"
        id = Column(Integer, primary_key=True)
        views = Column(Counter, nullable=False, server_default="{}")
        __table_args__ = (Index("pages_views_value", value(views)),)

    page.views += 1; session.commit()    # UPDATE pages SET views = views + 1

What a Counter column gives:

- it reads as a CounterState (`page.views.value` is the number; None for a
  tombstone) and binds a CounterState;
- `Page.views > 5`, `<`, `>=`, `<=`, `==`, `!=`, `between` compare the
  value with the number (the number goes as a bigint: `views > CAST(5 AS
  BIGINT)`, which the value index serves); `Page.views + n` and
  `increment(Page.views, n)` are the increment `views + CAST(n AS BIGINT)`;
- `value(col)` is `CAST(col AS BIGINT)`: for ORDER BY, and the value index
  `Index(..., value(Page.views))`;
- `merge(a, b)`, `merge_agg(col)`, `digest(col)`, `new_counter(n)`;
- `create_extension(metadata)` and `guard_writes(table)`: DDL run by
  `metadata.create_all()`; every table with a Counter column is guarded on
  create (on servers with counter_crdt 1.11).

The ORM never writes back a state it read: at flush, a counter that the
application changed to an int (`page.views += 1`, `page.views = 7`) is
written as an increment of the difference from the value loaded
(`views = views + 1`); a CounterState assigned is merged in
(`views = counter_crdt_merge(views, state)`); a counter left alone is not
written; a new object's int n is inserted as `NULL::counter_crdt + n`.
"""
import weakref

import sqlalchemy as sa
from sqlalchemy import event, types
from sqlalchemy.orm import Mapper, Session, attributes
from sqlalchemy.sql import operators

from .state import CounterState, CounterWriteError, read_counter

__all__ = ["Counter", "increment", "value", "merge", "merge_agg", "digest",
           "new_counter", "create_extension", "guard_writes", "CounterState"]

_COMPARISONS = {
    operators.eq, operators.ne, operators.lt, operators.le, operators.gt,
    operators.ge, operators.between_op, operators.not_between_op,
}
_ARITHMETIC = {operators.add, operators.sub}


def _is_number(other):
    return (isinstance(other, int) and not isinstance(other, bool)) or (
        hasattr(other, "type") and isinstance(other.type, types.Integer))


class Counter(types.UserDefinedType):
    """The counter_crdt column type: reads CounterState, binds CounterState."""

    cache_ok = True

    @property
    def python_type(self):
        return CounterState

    def get_col_spec(self, **kw):
        return "counter_crdt"

    def bind_processor(self, dialect):
        def process(v):
            if v is None or isinstance(v, str):
                return v if v is None else str(CounterState(v))
            if isinstance(v, CounterState):
                return str(v)
            if isinstance(v, int) and not isinstance(v, bool):
                raise TypeError(
                    "an int is not a counter state: increment with increment(col, n) "
                    "(col + n), or insert new_counter(n) (NULL::counter_crdt + n)")
            raise TypeError("a Counter column binds a CounterState, not %s"
                            % type(v).__name__)
        return process

    def bind_expression(self, bindvalue):
        # the state's text, read as a counter by the server whatever the
        # driver says the parameter is (asyncpg types it from the query)
        return sa.cast(sa.cast(bindvalue, sa.Text), _CounterCast())

    def result_processor(self, dialect, coltype):
        return read_counter

    def literal_processor(self, dialect):
        def process(v):
            return "'%s'::counter_crdt" % CounterState(v) if isinstance(v, str) \
                else "'%s'::counter_crdt" % v
        return process

    class comparator_factory(types.UserDefinedType.Comparator):
        def operate(self, op, *other, **kwargs):
            if op in _COMPARISONS and other and all(
                    _is_number(o) or o is None for o in other):
                if op in (operators.eq, operators.ne) and other[0] is None:
                    return super().operate(op, *other, **kwargs)
                other = tuple(sa.cast(o, sa.BigInteger) for o in other)
                return super().operate(op, *other, **kwargs)
            if op in _ARITHMETIC and len(other) == 1 and _is_number(other[0]):
                return _increment_expr(self.expr, other[0], op is operators.sub)
            return super().operate(op, *other, **kwargs)

        def in_(self, other):
            return sa.cast(self.expr, sa.BigInteger).in_(other)

        @property
        def value(self):
            """CAST(col AS BIGINT): the value."""
            return sa.cast(self.expr, sa.BigInteger)


class _CounterCast(types.UserDefinedType):
    # the type named in CAST(... AS counter_crdt), without Counter's binds
    cache_ok = True

    def get_col_spec(self, **kw):
        return "counter_crdt"


def _increment_expr(expr, n, subtract=False):
    delta = sa.cast(n, sa.BigInteger)
    return sa.sql.expression.BinaryExpression(
        expr, delta, operators.sub if subtract else operators.add, type_=Counter())


def increment(col, n):
    """col + n: the increment (UPDATE ... SET views = increment(Page.views, 1))."""
    return _increment_expr(col, n)


def value(col):
    """CAST(col AS BIGINT): the counter's value (NULL for a tombstone)."""
    return sa.cast(col, sa.BigInteger)


def new_counter(n=0):
    """NULL::counter_crdt + n: a new counter of value n, for INSERT."""
    return _increment_expr(sa.cast(sa.null(), _CounterCast()), n)


def merge(a, b):
    """counter_crdt_merge(a, b)."""
    return sa.func.counter_crdt_merge(_counter_arg(a), _counter_arg(b), type_=Counter())


def merge_agg(col):
    """counter_crdt_merge_agg(col): the merge of the copies of one counter."""
    return sa.func.counter_crdt_merge_agg(col, type_=Counter())


def digest(col):
    """counter_crdt_digest(col): 32 bytes that two equal states share."""
    return sa.func.counter_crdt_digest(col, type_=sa.LargeBinary())


def _counter_arg(x):
    if isinstance(x, (CounterState, str)):
        return sa.literal(x if isinstance(x, CounterState) else CounterState(x), Counter())
    return x


# -- DDL ---------------------------------------------------------------------

def create_extension(metadata):
    """CREATE EXTENSION IF NOT EXISTS counter_crdt before metadata.create_all()
    creates the tables."""
    event.listen(metadata, "before_create",
                 sa.DDL("CREATE EXTENSION IF NOT EXISTS counter_crdt"))
    return metadata


_GUARD_DDL = (
    "DO $$BEGIN "
    "IF to_regprocedure('counter_crdt_guard_writes(regclass)') IS NOT NULL THEN "
    "PERFORM counter_crdt_guard_writes('%(fullname)s'); "
    "END IF; END$$")


def guard_writes(table):
    """counter_crdt_guard_writes(table) after the table is created (counter_crdt
    1.11 and later; nothing on older servers): a local UPDATE that would write
    back a stale state into a counter column fails (SQLSTATE 23000)."""
    if not table.info.get("counter_crdt_guarded"):
        table.info["counter_crdt_guarded"] = True
        event.listen(table, "after_create", sa.DDL(_GUARD_DDL))
    return table


@event.listens_for(sa.Column, "after_parent_attach")
def _guard_counter_tables(column, table):
    if isinstance(column.type, Counter) and isinstance(table, sa.Table):
        guard_writes(table)


# -- the ORM: no state read is written back ----------------------------------

_KEYS = weakref.WeakKeyDictionary()


def _counter_keys(mapper):
    """The attributes of a mapper that are Counter columns."""
    keys = _KEYS.get(mapper)
    if keys is None:
        keys = [prop.key for prop in mapper.column_attrs
                if len(prop.columns) == 1 and isinstance(prop.columns[0].type, Counter)]
        _KEYS[mapper] = keys
    return keys


@event.listens_for(Mapper, "mapper_configured")
def _configured(mapper, class_):
    # the loaded value is kept when a counter is assigned without being read
    for key in _counter_keys(mapper):
        event.listen(getattr(class_, key), "set", _keep_loaded, active_history=True)


def _keep_loaded(target, value, oldvalue, initiator):
    return value


def _rewrite_new(obj, mapper, key):
    v = getattr(obj, key)
    if isinstance(v, int) and not isinstance(v, bool):
        setattr(obj, key, new_counter(v))


def _rewrite_dirty(obj, mapper, key):
    state = sa.inspect(obj)
    hist = state.attrs[key].history
    if not hist.added:
        return
    new = hist.added[0]
    if isinstance(new, sa.sql.ClauseElement):
        return                  # an expression the application wrote
    old = hist.deleted[0] if hist.deleted else None
    col = getattr(mapper.class_, key)
    if isinstance(new, CounterState):
        if isinstance(old, CounterState) and old.merge(new) == old:
            attributes.set_committed_value(obj, key, old)   # nothing to write
        else:
            setattr(obj, key, merge(col, new))
        return
    if isinstance(new, int) and not isinstance(new, bool):
        if isinstance(old, CounterState) and old.tombstone:
            raise CounterWriteError(
                "%s.%s is a tombstone (a deleted counter): it cannot be set to %d"
                % (mapper.class_.__name__, key, new))
        base = old.value if isinstance(old, CounterState) else 0
        delta = new - base
        if delta == 0:
            attributes.set_committed_value(obj, key, old)
        else:
            setattr(obj, key, _increment_expr(col, delta))
        return
    if new is None:
        if old is None:
            attributes.set_committed_value(obj, key, None)
            return
        raise CounterWriteError(
            "%s.%s = None would erase a counter (and every increment made since it "
            "was read); assign CounterState.deleted() to delete it"
            % (mapper.class_.__name__, key))
    raise CounterWriteError("%s.%s takes an int (the new value, written as an increment) "
                            "or a CounterState (merged in), not %s"
                            % (mapper.class_.__name__, key, type(new).__name__))


@event.listens_for(Session, "before_flush")
def _before_flush(session, flush_context, instances):
    for obj in list(session.new):
        mapper = sa.inspect(obj).mapper
        for key in _counter_keys(mapper):
            _rewrite_new(obj, mapper, key)
    for obj in list(session.dirty):
        mapper = sa.inspect(obj).mapper
        keys = _counter_keys(mapper)
        if not keys:
            continue
        for key in keys:
            _rewrite_dirty(obj, mapper, key)
