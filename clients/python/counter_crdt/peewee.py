"""counter_crdt for Peewee 3: PostgresqlDatabase (psycopg2), and
playhouse's PostgresqlExtDatabase and Psycopg3Database.

    from counter_crdt.peewee import CounterField, create_tables, value

    class Page(Model):
        views = CounterField(default=0)     # the column: counter_crdt DEFAULT '{}'

    create_tables(db, [Page])            # the extension, the table, the guard
    page.views += 1; page.save()         # UPDATE "page" SET "views" = ("page"."views" + 1)

What a CounterField gives:

- it reads as a CounterValue, an int (the value) that carries the state it
  was read from in .state (a CounterState); a tombstone reads as None;
- `Page.views > 5` (and the other comparisons) compare the value with the
  number, as SQL does; `order_by(Page.views)` orders by the value;
  `Page.update(views=Page.views + 1)` is the server's increment;
- `value(Page.views)` (or `Page.views.value`) is `CAST(views AS bigint)`,
  for `fn.SUM(...)` and the value index;
- `merge(a, b)`, `merge_agg(col)`, `digest(col)`, `increment(col, n)`,
  `new_counter(n)`;
- `create_extension(db)`, `guard_writes(Model, ...)` and `create_tables(db,
  models)`, which guards every table with a counter that it creates.

save() never writes back a state it read.  Peewee's save() writes the dict
of the instance's fields that it has pruned (only=, only_save_dirty) and
handed to _populate_unsaved_relations(); a model with a CounterField has
that step rewrite each counter in the dict, so a save writes: an int as the
increment of its difference from the value the instance read (0 for an
instance that read nothing): `views = views + 1`; a CounterState assigned as
a merge, `counter_crdt_merge(views, state)`; a counter left alone (or equal
to what was read) not at all.  An INSERT (create(), insert(), insert_many(),
bulk_create()) writes '{}' for 0, else NULL::counter_crdt + n, or the state
assigned.  A class-level
Page.update(views=n) with a number raises CounterWriteError (it would set
the counter); with a CounterState it merges.
"""
import functools

import peewee
from peewee import SQL, Cast, Node, fn

from .state import CounterState, CounterValue, CounterWriteError, read_counter

__all__ = ["CounterField", "CounterValue", "CounterState", "CounterWriteError", "value",
           "increment", "merge", "merge_agg", "digest", "new_counter", "create_extension",
           "guard_writes", "create_tables"]

_LOADED = "_counter_crdt_loaded"    # {name: what the instance read or last saved}
_SAVE = "_counter_crdt_save"        # the save under way: {"insert": bool, "saved": {}}
_SKIP = object()
_NOTHING = object()


def _is_number(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _state_param(state):
    """A CounterState as a parameter read as a counter: '...'::counter_crdt."""
    return SQL("%s::counter_crdt", [str(state)])


def new_counter(n=0):
    """A new counter of value n, for an INSERT: '{}' for 0, else
    NULL::counter_crdt + n."""
    if int(n) == 0:
        return SQL("'{}'::counter_crdt")
    return SQL("(NULL::counter_crdt + %s::bigint)", [int(n)])


def value(col):
    """CAST(col AS bigint): the counter's value (NULL for a tombstone)."""
    return Cast(col, "bigint")


def increment(col, n):
    """col + n, the server's increment: Page.update(views=increment(Page.views, 1))."""
    return col + int(n)


def merge(a, b):
    """counter_crdt_merge(a, b); reads as a CounterState."""
    args = [_state_param(x if isinstance(x, CounterState) else CounterState(x))
            if isinstance(x, (CounterState, str)) else x for x in (a, b)]
    return fn.counter_crdt_merge(*args).python_value(read_counter)


def merge_agg(col):
    """counter_crdt_merge_agg(col): the merge of the copies of one counter."""
    return fn.counter_crdt_merge_agg(col).python_value(read_counter)


def digest(col):
    """counter_crdt_digest(col): 32 bytes that two equal states share."""
    return fn.counter_crdt_digest(col).python_value(
        lambda v: v if v is None else bytes(v))


class _CounterAccessor(peewee.FieldAccessor):
    """The attribute: the value set when the instance is made from a row
    (its first value, a CounterValue or None) is kept as what it read, the
    base of the next save's increment."""

    def __set__(self, instance, v):
        if self.name not in instance.__data__ and (v is None or isinstance(v, CounterValue)):
            instance.__dict__.setdefault(_LOADED, {})[self.name] = v
        super().__set__(instance, v)


class CounterField(peewee.Field):
    """A counter_crdt column: reads as a CounterValue (an int with .state),
    None for a tombstone; save() writes increments and merges, never the
    state read."""

    field_type = "counter_crdt"
    accessor_class = _CounterAccessor

    def __init__(self, *args, constraints=None, **kwargs):
        # the column's DEFAULT '{}', the empty counter, unless constraints say
        if constraints is None:
            constraints = [SQL("DEFAULT '{}'")]
        super().__init__(*args, constraints=constraints, **kwargs)

    def bind(self, model, name, set_attribute=True):
        super().bind(model, name, set_attribute)
        _hook(model)

    @property
    def value(self):
        """CAST(col AS bigint): the value."""
        return Cast(self, "bigint")

    # -- reading -----------------------------------------------------------

    def python_value(self, v):
        if v is None:
            return None
        if isinstance(v, (str, bytes, memoryview)):
            v = read_counter(v)
        if isinstance(v, CounterState):
            return None if v.tombstone else CounterValue(v)
        # an aggregate of the values through a function of this column
        if hasattr(v, "to_integral_value") and v == v.to_integral_value():
            return int(v)
        return v

    # -- writing -----------------------------------------------------------

    def db_value(self, v):
        """A parameter compared with the column: a number, or a state's text."""
        if isinstance(v, CounterState):
            return str(v)
        if isinstance(v, CounterValue):
            return int(v)
        return v

    def to_value(self, v):
        """The SET of an UPDATE (Page.update(views=...)): a number would set
        the counter and lose the increments made meanwhile; a state is
        merged in."""
        if _is_number(v):
            raise CounterWriteError(
                "writing the number %d into the counter %s would set it: write an "
                "increment, %s.%s + n, or save() an instance"
                % (v, self.name, self.model.__name__, self.name))
        if isinstance(v, str):
            v = CounterState(v)
        if isinstance(v, CounterState):
            return fn.counter_crdt_merge(self, _state_param(v))
        return super().to_value(v)

    def _write(self, v, loaded, insert):
        """What save() writes for v: a Node, v itself, or _SKIP."""
        if isinstance(v, str):
            v = CounterState(v)
        if insert:
            if _is_number(v):
                return new_counter(v)
            if isinstance(v, CounterState):
                return _state_param(v)
            if v is None:
                return v
        elif isinstance(v, CounterState):
            held = getattr(loaded, "state", loaded)
            if isinstance(held, CounterState) and held.merge(v) == held:
                return _SKIP
            return fn.counter_crdt_merge(self, _state_param(v))
        elif v is None:
            if loaded is _NOTHING or loaded is None:
                return _SKIP
            raise CounterWriteError(
                "%s.%s = None would erase a counter (and every increment made since it "
                "was read); assign CounterState.deleted() to delete it"
                % (self.model.__name__, self.name))
        elif _is_number(v):
            if isinstance(loaded, CounterState):
                base = loaded.value or 0
            else:
                base = int(loaded) if _is_number(loaded) else 0
            delta = int(v) - base
            return _SKIP if delta == 0 else self + delta
        raise CounterWriteError(
            "%s.%s takes an int (the new value, written as an increment) or a "
            "CounterState (merged in), not %s"
            % (self.model.__name__, self.name, type(v).__name__))


# -- save(): no state read is written back -------------------------------------

class _NothingToWrite(Exception):
    pass


def _counter_fields(model):
    return [f for f in model._meta.sorted_fields if isinstance(f, CounterField)]


def _pk_names(model):
    pk = model._meta.primary_key
    if pk is False:
        return ()
    return tuple(pk.field_names) if model._meta.composite_key else (pk.name,)


def _rewrite(instance, field_dict):
    """The counters of the dict that save() is about to write, rewritten."""
    save = instance.__dict__.get(_SAVE)
    if save is None:
        return
    loaded = instance.__dict__.get(_LOADED, {})
    for f in _counter_fields(type(instance)):
        if f.name not in field_dict or isinstance(field_dict[f.name], Node):
            continue            # not saved, or an expression the application wrote
        v = field_dict[f.name]
        w = f._write(v, loaded.get(f.name, _NOTHING), save["insert"])
        save["saved"][f.name] = v
        if w is _SKIP:
            del field_dict[f.name]
        else:
            field_dict[f.name] = w
    if not save["insert"] and save["saved"]:
        pks = _pk_names(type(instance))
        if all(k in pks for k in field_dict):
            raise _NothingToWrite


def _save(inner, instance, force_insert=False, only=None, **kwargs):
    d = instance.__dict__
    if _SAVE in d:              # a save() of the model's that calls its parent's
        return inner(instance, force_insert=force_insert, only=only, **kwargs)
    meta = instance._meta
    insert = force_insert or meta.primary_key is False or instance._pk is None
    d[_SAVE] = save = {"insert": insert, "saved": {}}
    try:
        try:
            rows = inner(instance, force_insert=force_insert, only=only, **kwargs)
        except _NothingToWrite:
            rows = False
    finally:
        del d[_SAVE]
    # what was written (or found written) is the base of the next increment
    d.setdefault(_LOADED, {}).update(save["saved"])
    instance._dirty -= set(save["saved"])
    return rows


def _populate(inner, instance, field_dict):
    inner(instance, field_dict)
    _rewrite(instance, field_dict)


# -- insert(), insert_many(), bulk_create(): new counters ----------------------

def _new_value(field, v):
    """What an INSERT writes into a new counter for v: an expression the
    application wrote as it is, else as create() writes it."""
    if isinstance(v, Node):
        return v
    return field._write(v, _NOTHING, True)


def _new_row(model, row, fields):
    """A row of insert_many(): a dict (keys: names or fields), or a tuple or
    list in the order of fields; the counters in it as new counters."""
    if isinstance(row, dict):
        out = {}
        given = set()
        for k, v in row.items():
            f = model._meta.combined.get(k) if isinstance(k, str) else k
            out[k] = _new_value(f, v) if isinstance(f, CounterField) else v
            given.add(f)
        # a counter left out: its default, which Peewee would send as it is
        for f in _counter_fields(model):
            if f not in given and f.default is not None:
                out[f] = _new_value(f, f.default() if callable(f.default) else f.default)
        return out
    if fields is not None and isinstance(row, (tuple, list)):
        return type(row)(_new_value(f, v) if isinstance(f, CounterField) else v
                         for f, v in zip(fields, row))
    return row


def _insert(inner, cls, __data=None, **insert):
    data = cls._normalize_data(__data, insert)
    return inner(_new_row(cls, data, None))


def _insert_many(inner, cls, rows, fields=None):
    if fields is not None:
        fields = [cls._meta.combined.get(f, f) if isinstance(f, str) else f for f in fields]
    if isinstance(rows, (list, tuple)):
        rows = [_new_row(cls, r, fields) for r in rows]
    else:                       # a generator, as bulk_create() passes: lazily
        rows = (_new_row(cls, r, fields) for r in rows)
    return inner(rows, fields=fields)


def _hook(model):
    """save() and _populate_unsaved_relations() of a model with a counter,
    wrapped once per class that defines its own; insert() and insert_many()
    (which bulk_create() calls) too, as class methods."""
    for name, wrapper in (("save", _save), ("_populate_unsaved_relations", _populate)):
        current = getattr(model, name)
        if getattr(current, "_counter_crdt", False):
            continue            # inherited, already wrapped
        inner = current

        @functools.wraps(inner)
        def method(self, *args, _inner=inner, _wrapper=wrapper, **kwargs):
            return _wrapper(_inner, self, *args, **kwargs)
        method._counter_crdt = True
        setattr(model, name, method)
    for name, wrapper in (("insert", _insert), ("insert_many", _insert_many)):
        inner = getattr(model, name).__func__
        if getattr(inner, "_counter_crdt", False):
            continue            # inherited, already wrapped

        @functools.wraps(inner)
        def cmethod(cls, *args, _inner=inner, _wrapper=wrapper, **kwargs):
            return _wrapper(functools.partial(_inner, cls), cls, *args, **kwargs)
        cmethod._counter_crdt = True
        setattr(model, name, classmethod(cmethod))


# -- DDL -------------------------------------------------------------------------

def create_extension(database):
    """CREATE EXTENSION IF NOT EXISTS counter_crdt."""
    database.execute_sql("CREATE EXTENSION IF NOT EXISTS counter_crdt")


def _regclass(model):
    meta = model._meta
    parts = [p for p in (meta.schema, meta.table_name) if p]
    return ".".join('"%s"' % p.replace('"', '""') for p in parts)


def guard_writes(*models):
    """counter_crdt_guard_writes() on each model's table (counter_crdt 1.11
    and later; nothing on older servers): a local UPDATE that would write
    back a stale state into a counter column fails (SQLSTATE 23000)."""
    for model in models:
        db = model._meta.database
        (has,) = db.execute_sql(
            "SELECT to_regprocedure('counter_crdt_guard_writes(regclass)') IS NOT NULL"
        ).fetchone()
        if has:
            db.execute_sql("SELECT counter_crdt_guard_writes(%s::regclass)", (_regclass(model),))


def create_tables(database, models, **options):
    """The extension, then database.create_tables(models, **options), then the
    write guard on every table of them that has a CounterField."""
    create_extension(database)
    database.create_tables(models, **options)
    guard_writes(*[m for m in models if _counter_fields(m)])
