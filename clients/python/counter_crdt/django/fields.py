"""CounterField: a counter_crdt column in a Django model.

Reading: a counter reads as a CounterValue, an int (its value) that carries
the state it was read from (.state, a counter_crdt.CounterState); a
tombstone (a deleted counter) reads as None, as SQL reads it.

Writing never sends back a state that was read: save() writes
`views = views + n`, n counted from the value the instance read (0 for an
instance that read nothing), `views = views` when the counter did not
change, `counter_crdt_merge(views, state)` for a CounterState assigned; an
INSERT writes '{}' for 0 and NULL::counter_crdt + n otherwise.  loaddata
(raw saves) restores: it merges the dumped state into the row.
"""
from decimal import Decimal
import re

from django import forms
from django.core import exceptions
from django.db import models
from django.db.models import expressions, lookups, signals
from django.db.models.query_utils import DeferredAttribute
from django.db.models.sql.compiler import SQLUpdateCompiler
from django.db.models.sql.subqueries import UpdateQuery

from counter_crdt import CounterState
from counter_crdt.state import CounterValue

__all__ = ["CounterField", "CounterValue", "CounterFormField"]


class _StateText(str):
    """The text of a state, as a query parameter (written ::counter_crdt)."""


class _ZeroText(_StateText):
    """'{}', the state of the number 0 (a column default, a new row)."""


_NOTHING = object()
_LOADED = "_counter_crdt_loaded_"     # + attname: what the instance read
_PENDING = "_counter_crdt_pending"   # {attname: value} of the save under way
_RAW = "_counter_crdt_raw"           # {attname: value} replaced for a raw save
_INT = re.compile(r"\s*[-+]?[0-9]+\s*\Z")


def _is_number(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _as_state(text):
    try:
        return CounterState(text)
    except (ValueError, TypeError) as e:
        raise exceptions.ValidationError(
            "%(value)s is neither a number nor a counter's state: %(error)s",
            code="invalid", params={"value": text, "error": e})


class _Write(expressions.Expression):
    """What a save writes into a counter column; its SQL depends on the
    statement: an UPDATE may read the column, an INSERT has none to read.

    kind "add": the number arg added (an INSERT: '{}' for 0, else
    NULL::counter_crdt + arg); "merge": the CounterState arg merged in (an
    INSERT: the state); "restore": what loaddata writes, the dumped value arg
    (a state merged in; a number or None leave a row's counter as it is)."""

    def __init__(self, field, kind, arg):
        super().__init__(output_field=field)
        self.counter_field = field
        self.kind = kind
        self.arg = arg
        self.update = False
        self.column = None

    def __repr__(self):
        return "<counter_crdt write %s %r>" % (self.kind, self.arg)

    def get_source_expressions(self):
        return [] if self.column is None else [self.column]

    def set_source_expressions(self, exprs):
        if exprs:
            (self.column,) = exprs

    def resolve_expression(self, query=None, allow_joins=True, reuse=None, summarize=False,
                           for_save=False):
        c = self.copy()
        c.is_summary = summarize
        c.update = isinstance(query, UpdateQuery)
        if c.update:
            c.column = expressions.F(self.counter_field.name).resolve_expression(
                query, allow_joins, reuse, summarize)
        return c

    def as_sql(self, compiler, connection):
        kind, arg = self.kind, self.arg
        if not self.update:
            if arg is None:
                return "NULL", []
            if isinstance(arg, CounterState):
                return "%s::counter_crdt", [str(arg)]
            if int(arg) == 0:
                return "'{}'::counter_crdt", []
            return "(NULL::counter_crdt + %s::bigint)", [int(arg)]
        col, params = compiler.compile(self.column)
        params = list(params)
        if isinstance(arg, CounterState):
            return "counter_crdt_merge(" + col + ", %s::counter_crdt)", params + [str(arg)]
        if kind == "add" and arg != 0:
            return "(" + col + " + %s::bigint)", params + [int(arg)]
        if kind == "restore" and arg is not None:
            # a number in a fixture: the value of a row that does not exist
            # yet; an existing row keeps its counter
            return ("coalesce(" + col + ", NULL::counter_crdt + %s::bigint)",
                    params + [int(arg)])
        return col, params


class _CounterAttribute(DeferredAttribute):
    """The attribute of a CounterField: a value read from the database (a
    CounterValue) is also kept as what the instance read, the base of the
    next save's increment."""

    def __set__(self, instance, value):
        attname = self.field.attname
        instance.__dict__[attname] = value
        if isinstance(value, CounterValue):
            instance.__dict__[_LOADED + attname] = value


class CounterFormField(forms.IntegerField):
    """A counter in a form: its value, as a number.  CounterField's form
    field is disabled by default: a form shows the count and writes nothing
    back (see CounterField.save_form_data)."""

    def prepare_value(self, value):
        if isinstance(value, CounterState):
            return value.value
        return super().prepare_value(value)

    def to_python(self, value):
        if isinstance(value, CounterState):
            return value.value
        return super().to_python(value)

    def has_changed(self, initial, data):
        if isinstance(initial, CounterState):
            initial = initial.value
        return super().has_changed(initial, data)


class CounterField(models.Field):
    """A counter_crdt column.  Reads as a CounterValue (an int with .state),
    None for a tombstone.  Saving writes increments, never the state read."""

    description = "A counter (counter_crdt)"
    descriptor_class = _CounterAttribute
    empty_strings_allowed = False

    def db_type(self, connection):
        return "counter_crdt"

    def rel_db_type(self, connection):
        return "counter_crdt"

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        if path == "counter_crdt.django.fields.CounterField":
            path = "counter_crdt.django.CounterField"
        return name, path, args, kwargs

    def contribute_to_class(self, cls, name, *args, **kwargs):
        super().contribute_to_class(cls, name, *args, **kwargs)
        _connect_signals()

    # -- reading -----------------------------------------------------------

    def from_db_value(self, value, expression, connection):
        if value is None:
            return None
        if isinstance(value, (str, bytes, bytearray, memoryview)):
            value = CounterState(value)
        if isinstance(value, CounterState):
            return None if value.tombstone else CounterValue(value)
        # an aggregate of the values: sum() and avg() are numeric, min() and
        # max() bigint
        if getattr(expression, "function", None) == "AVG":
            return float(value)
        if isinstance(value, Decimal) and value == value.to_integral_value():
            return int(value)
        return value

    def to_python(self, value):
        if value is None or isinstance(value, CounterState) or _is_number(value):
            return value
        if isinstance(value, str):
            if _INT.match(value):
                return int(value)
            return _as_state(value)
        if isinstance(value, (Decimal, float)) and value == int(value):
            return int(value)
        raise exceptions.ValidationError(
            "%(value)r is neither a number nor a counter's state",
            code="invalid", params={"value": value})

    def value_from_object(self, obj):
        """What dumpdata writes: the state of a counter read from the
        database; for None in a column that cannot hold NULL, the tombstone
        that it read; else the attribute as it is."""
        value = getattr(obj, self.attname)
        if isinstance(value, CounterValue):
            return value.state
        if value is None and not self.null:
            return CounterState.deleted()
        return value

    def value_to_string(self, obj):
        value = self.value_from_object(obj)
        return None if value is None else str(value)

    # -- writing -----------------------------------------------------------

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None or hasattr(value, "resolve_expression"):
            return value
        if isinstance(value, CounterValue):
            return int(value)
        if isinstance(value, str):
            return self.to_python(value)
        return value

    def get_db_prep_value(self, value, connection, prepared=False):
        if not prepared:
            value = self.get_prep_value(value)
        if isinstance(value, CounterState):
            return _StateText(value)
        if not prepared and _is_number(value) and value == 0:
            return _ZeroText("{}")
        return value

    def get_placeholder(self, value, compiler, connection):
        if value is None or hasattr(value, "as_sql"):
            return "%s"
        if isinstance(compiler, SQLUpdateCompiler):
            if isinstance(value, _StateText) and not isinstance(value, _ZeroText):
                return ("counter_crdt_merge(%s, %%s::counter_crdt)"
                        % compiler.quote_name_unless_alias(self.column))
            raise ValueError(
                "Writing the number %r into the counter %s would set it, and lose the "
                "increments made meanwhile: write an increment, F(%r) + n, or "
                "save() an instance read from the database" % (value, self.name, self.name))
        if isinstance(value, _StateText):
            return "%s::counter_crdt"
        return "(NULL::counter_crdt + %s::bigint)"

    def pre_save(self, model_instance, add):
        attname = self.attname
        value = getattr(model_instance, attname)
        if hasattr(value, "resolve_expression"):
            return value
        if value is not None and not _is_number(value) and not isinstance(value, CounterState):
            value = self.to_python(value)
        loaded = model_instance.__dict__.get(_LOADED + attname, _NOTHING)
        if add:
            # what an INSERT writes is what the instance holds from then on
            model_instance.__dict__[_LOADED + attname] = value
            return _Write(self, "add", value)
        if value is loaded:
            write = _Write(self, "add", 0)
        elif isinstance(value, CounterState):
            write = _Write(self, "merge", value)
        elif value is None:
            if loaded is not _NOTHING and loaded is not None:
                raise ValueError(
                    "The counter %s.%s is None: a counter is not set to NULL; delete it "
                    "with a tombstone, CounterState.deleted()"
                    % (model_instance.__class__.__name__, self.name))
            write = _Write(self, "add", 0)
        else:
            if isinstance(loaded, CounterState):
                base = loaded.value or 0
            elif _is_number(loaded):
                base = int(loaded)
            else:
                base = 0
            write = _Write(self, "add", int(value) - base)
        model_instance.__dict__.setdefault(_PENDING, {})[attname] = value
        return write

    def save_form_data(self, instance, data):
        """A form's number is written only when it differs from the value
        the instance holds (as an increment of the difference); a form that
        showed the counter writes nothing back."""
        if data is None or isinstance(data, CounterState):
            return
        current = getattr(instance, self.attname)
        if _is_number(current) and int(current) == int(data):
            return
        setattr(instance, self.attname, data)

    def formfield(self, **kwargs):
        defaults = {"form_class": CounterFormField, "disabled": True, "required": False}
        defaults.update(kwargs)
        return super().formfield(**defaults)


# -- lookups: the value -------------------------------------------------------
#
# c > n, c >= n, c < n, c <= n, c = n, c IN (...), c BETWEEN compare the
# value in SQL (the type's operators with numbers, which an index on
# (c::bigint) serves); an exact CounterState compares states.

@CounterField.register_lookup
class CounterExact(lookups.Exact):
    def process_rhs(self, compiler, connection):
        sql, params = super().process_rhs(compiler, connection)
        if isinstance(self.rhs, CounterState):
            sql = "%s::counter_crdt" % sql
        return sql, params


@CounterField.register_lookup
class CounterIsNull(lookups.IsNull):
    """isnull: the value is None (a NULL or a tombstone), as it reads."""

    def as_sql(self, compiler, connection):
        if not isinstance(self.rhs, bool):
            raise ValueError("The QuerySet value for an isnull lookup must be True or False.")
        sql, params = compiler.compile(self.lhs)
        return ("counter_crdt_value(%s) IS %sNULL" % (sql, "" if self.rhs else "NOT "),
                params)


def _register_combinations():
    """F("views") + 1 and F("views") - 1 are counters."""
    add = getattr(expressions, "register_combinable_fields", None)
    for connector in (expressions.Combinable.ADD, expressions.Combinable.SUB):
        for rhs in (models.IntegerField, CounterField):
            if add is not None:
                add(CounterField, connector, rhs, CounterField)
            elif hasattr(expressions, "_connector_combinators"):
                expressions._connector_combinators.setdefault(connector, []).append(
                    (CounterField, rhs, CounterField))


_register_combinations()


# -- saves: what the instance read, and loaddata --------------------------------

_counter_fields_of = {}


def _counter_fields(model):
    fields = _counter_fields_of.get(model)
    if fields is None:
        fields = [f for f in model._meta.concrete_fields if isinstance(f, CounterField)]
        _counter_fields_of[model] = fields
    return fields


def _before_save(sender, instance, raw, **kwargs):
    """Each save starts with nothing pending (a save that failed left its
    values); a raw save (loaddata) writes each counter as a restore."""
    instance.__dict__.pop(_PENDING, None)
    if not raw:
        return
    replaced = {}
    for f in _counter_fields(type(instance)):
        value = instance.__dict__.get(f.attname, _NOTHING)
        if value is _NOTHING or hasattr(value, "resolve_expression"):
            continue
        replaced[f.attname] = value
        arg = value if value is None or isinstance(value, CounterState) else f.to_python(value)
        instance.__dict__[f.attname] = _Write(f, "restore", arg)
    if replaced:
        instance.__dict__[_RAW] = replaced


def _after_save(sender, instance, raw, **kwargs):
    d = instance.__dict__
    replaced = d.pop(_RAW, None)
    if replaced:
        d.update(replaced)
    pending = d.pop(_PENDING, None)
    if pending:
        for attname, value in pending.items():
            d[_LOADED + attname] = value


_connected = []


def _connect_signals():
    if not _connected:
        signals.pre_save.connect(_before_save, dispatch_uid="counter_crdt.django.pre_save")
        signals.post_save.connect(_after_save, dispatch_uid="counter_crdt.django.post_save")
        _connected.append(True)
