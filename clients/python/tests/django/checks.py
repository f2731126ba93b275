"""Checks of counter_crdt.django in a real project (test/t/030_django.pl).

Run from the project's directory, with the app "hits" (models.py here)
installed and migrated:  python checks.py
Prints "ok N - what" or "not ok N - what" per check, then the plan.
"""
import os
import pickle
import sys
import traceback
import uuid

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core import serializers  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import IntegrityError, connection, transaction  # noqa: E402
from django.db.models import Avg, Count, F, Max, Min, Sum  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402

from counter_crdt import CounterState  # noqa: E402
from counter_crdt.django import CounterValue  # noqa: E402
from hits.models import Counted  # noqa: E402

n = 0
failed = 0


def ok(cond, what, detail=None):
    global n, failed
    n += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, what))
    if not cond:
        failed += 1
        if detail is not None:
            for line in str(detail).splitlines():
                print("# " + line)
    sys.stdout.flush()
    return cond


def is_(got, want, what):
    return ok(got == want, what, "got:  %r\nwant: %r" % (got, want))


def sql(query, params=()):
    with connection.cursor() as cur:
        cur.execute(query, params)
        return cur.fetchall() if cur.description else None


def state_of(pk, column="views"):
    return sql("SELECT %s::text FROM hits_counted WHERE id = %%s" % column, [pk])[0][0]


def value_of(pk, column="views"):
    return sql("SELECT %s::bigint FROM hits_counted WHERE id = %%s" % column, [pk])[0][0]


def elsewhere(pk, delta):
    """An increment by another client: plain SQL."""
    sql("UPDATE hits_counted SET views = views + %s::bigint WHERE id = %s", [delta, pk])


def raises(fn, exc):
    try:
        fn()
    except exc as e:
        return e
    return None


node = str(sql("SELECT counter_crdt_node_id()")[0][0])
is_(connection.vendor, "postgresql", "the project runs on PostgreSQL (%s, driver %s %s)" % (
    django.get_version(), connection.Database.__name__,
    getattr(connection.Database, "__version__", "?")))
want_driver = os.environ.get("CHECK_DRIVER")
if want_driver:
    is_(connection.Database.__name__, want_driver, "the driver is " + want_driver)
if os.environ.get("CHECK_SERVER_SIDE_BINDING"):
    with connection.cursor() as cur:
        ok(not isinstance(cur.cursor, connection.Database.ClientCursor),
           "server-side binding: the cursor sends parameters apart", type(cur.cursor))
want_django = os.environ.get("CHECK_DJANGO")
if want_django:
    is_(".".join(django.get_version().split(".")[:2]), want_django, "Django is " + want_django)
want_prefix = os.environ.get("CHECK_PREFIX")
if want_prefix:
    import counter_crdt.django
    where = os.path.realpath(counter_crdt.django.__file__)
    ok(where.startswith(os.path.realpath(want_prefix) + os.sep),
       "counter_crdt.django is the wheel's, installed in %s" % want_prefix, where)
Counted.objects.all().delete()

# -- create -------------------------------------------------------------------
zero = Counted.objects.create(name="zero", views=0)
is_(state_of(zero.pk), "{}", "create(views=0) inserts '{}'")
five = Counted.objects.create(name="five", views=5)
is_(state_of(five.pk), "{%s:1:5}" % node, "create(views=5) inserts NULL::counter_crdt + 5: one shard of this server")
dflt = Counted.objects.create(name="default")
is_((state_of(dflt.pk), state_of(dflt.pk, "likes")), ("{}", None),
    "create() with the defaults: views '{}' (default=0), likes NULL (null=True)")
neg = Counted(name="neg", views=-3)
neg.save()
is_(value_of(neg.pk), -3, "save() of a new instance with views=-3 inserts -3")

# -- reading --------------------------------------------------------------------
got = Counted.objects.get(pk=five.pk)
ok(type(got.views) is CounterValue and got.views == 5 and isinstance(got.views, int),
   "a counter reads as a CounterValue, an int equal to its value", repr(got.views))
is_(got.views.state, CounterState("{%s:1:5}" % node), ".state is the state read, a CounterState")
is_((got.views + 1, type(got.views + 1)), (6, int), "arithmetic on it gives plain ints")
is_((str(got.views), repr(got.views)), ("5", "5"), "it prints as a number")
sql("UPDATE hits_counted SET likes = 'tombstone' WHERE id = %s", [five.pk])
is_(Counted.objects.get(pk=five.pk).likes, None, "a tombstone reads as None")
is_(Counted.objects.get(pk=zero.pk).likes, None, "a NULL reads as None")
vals = list(Counted.objects.filter(pk__in=[zero.pk, five.pk]).order_by("name").values("views", "likes"))
ok(vals == [{"views": 5, "likes": None}, {"views": 0, "likes": None}]
   and all(type(v["views"]) is CounterValue for v in vals),
   "values(): CounterValues, None for a tombstone", vals)
vl = list(Counted.objects.filter(pk=five.pk).values_list("views", flat=True))
ok(vl == [5] and vl[0].state.shards[0].value == 5, "values_list(): CounterValues that carry their states", vl)

# -- increments -----------------------------------------------------------------
Counted.objects.filter(pk=zero.pk).update(views=F("views") + 3)
is_(value_of(zero.pk), 3, '.update(views=F("views") + 3) adds 3')
Counted.objects.filter(pk=zero.pk).update(views=F("views") - 1)
is_(value_of(zero.pk), 2, '.update(views=F("views") - 1) takes 1')
p = Counted.objects.get(pk=zero.pk)
p.views = F("views") + 10
p.save()
p.refresh_from_db()
is_(p.views, 12, 'views = F("views") + 10; save() adds 10')

# -- the read-modify-write trap ------------------------------------------------
p = Counted.objects.get(pk=zero.pk)          # reads 12
elsewhere(zero.pk, 100)                      # 112 in the table
with CaptureQueriesContext(connection) as q:
    p.views += 1
    p.save()
is_(value_of(zero.pk), 113, "views += 1; save() after +100 elsewhere: 113, the increment kept")
upd = [x["sql"] for x in q.captured_queries if x["sql"].startswith("UPDATE")]
ok(len(upd) == 1 and '"views" = ("hits_counted"."views" + 1::bigint)' in upd[0] and "{" not in upd[0],
   "the save wrote views = views + 1 and no state", upd)
p.views += 1
p.save()
is_(value_of(zero.pk), 114, "a second views += 1; save() on the same instance adds 1, not 2")
with CaptureQueriesContext(connection) as q:
    p.name = "zero!"
    p.save()
upd = [x["sql"] for x in q.captured_queries if x["sql"].startswith("UPDATE")]
ok(len(upd) == 1 and '"views" = "hits_counted"."views"' in upd[0] and "{" not in upd[0]
   and value_of(zero.pk) == 114, "a save that did not touch the counter writes views = views", upd)
p.views = 200                                # the instance holds 14 (12 + 1 + 1)
elsewhere(zero.pk, 1000)                     # 1114 in the table
p.save()
is_(value_of(zero.pk), 1300, "views = 200 on an instance that holds 14: +186 (1114 + 186 = 1300)")
p.views -= 50
p.save(update_fields=["views"])
is_(value_of(zero.pk), 1250, "views -= 50; save(update_fields=['views']) takes 50")
p.views += 7
p.name = "zero"
p.save(update_fields=["name"])
is_((value_of(zero.pk), sql("SELECT name FROM hits_counted WHERE id = %s", [zero.pk])[0][0]),
    (1250, "zero"), "save(update_fields=['name']) writes no counter")
p.save()
is_(value_of(zero.pk), 1257, "the next save() writes the 7 left")
p.refresh_from_db()
elsewhere(zero.pk, 3)
p.views += 1
p.save()
is_(value_of(zero.pk), 1261, "after refresh_from_db(), += 1 counts from the value refreshed")
q2 = Counted.objects.only("name").get(pk=zero.pk)
elsewhere(zero.pk, 1)
q2.views += 1                                # loads the deferred counter: 1262
q2.save()
is_(value_of(zero.pk), 1263, "a deferred counter: += 1 counts from the value it loaded")
cached = pickle.loads(pickle.dumps(Counted.objects.get(pk=zero.pk)))
elsewhere(zero.pk, 10)
cached.views += 1
cached.save()
is_(value_of(zero.pk), 1274, "a pickled instance (a cache) still writes an increment")
e = raises(lambda: (setattr(p, "views", None), p.save()), ValueError)
ok(e is not None and "tombstone" in str(e), "None over a live counter is refused (ValueError)", e)
p.refresh_from_db()
Counted.objects.filter(pk=zero.pk).update(likes=F("likes") + 1)
p.refresh_from_db()
p.views += 2
p.likes = None
e = raises(p.save, ValueError)                # refused at likes, after views
p.refresh_from_db(fields=["likes"])
p.save(update_fields=["name"])                # writes no counter
p.save()                                      # writes the 2
is_((e is not None, value_of(zero.pk)), (True, 1276),
    "a save refused half-way leaves nothing behind: the next save writes the +2")
p.refresh_from_db()

# a state assigned is merged
foreign = "00000000-0000-0000-0000-00000000000a"
before = CounterState(state_of(zero.pk))
p.views = CounterState("{%s:4:40}" % foreign)
p.save()
after = CounterState(state_of(zero.pk))
ok(after == before.merge(CounterState("{%s:4:40}" % foreign)) and after.value == 1316,
   "a CounterState assigned is merged: counter_crdt_merge(views, state)", after)
stale = CounterState("{%s:2:20}" % foreign)
p.views = stale
p.save()
is_(CounterState(state_of(zero.pk)), after, "merging a staler state changes nothing")
p.refresh_from_db()

# numbers written outright are refused
e = raises(lambda: Counted.objects.filter(pk=zero.pk).update(views=5), ValueError)
ok(e is not None and 'F(' in str(e), ".update(views=5) is refused: it would set the counter (ValueError)", e)
e = raises(lambda: Counted.objects.bulk_update([p], ["views"]), ValueError)
ok(e is not None and 'F(' in str(e) and value_of(zero.pk) == 1316,
   "bulk_update() of a counter is refused (ValueError)", e)
Counted.objects.filter(pk=zero.pk).update(views=CounterState("{%s:5:41}" % foreign))
is_(value_of(zero.pk), 1317, ".update(views=CounterState(...)) merges the state")
made = Counted.objects.bulk_create([Counted(name="b0", views=0), Counted(name="b7", views=7)])
is_([state_of(c.pk) for c in made], ["{}", "{%s:1:7}" % node], "bulk_create() inserts '{}' and NULL + 7")
made[1].views += 1
made[1].save()
is_(value_of(made[1].pk), 8, "a bulk-created instance: += 1; save() adds 1")

# -- the server's guard ----------------------------------------------------------
read = state_of(five.pk)
Counted.objects.filter(pk=five.pk).update(views=F("views") + 1)
e = None
try:
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute("UPDATE hits_counted SET views = %s WHERE id = %s", [read, five.pk])
except IntegrityError as err:
    e = err
ok(e is not None and "views" in str(e), "the guard: a raw UPDATE writing a state read before an "
   "increment is refused (IntegrityError)", e)
is_(value_of(five.pk), 6, "and the increment stays")

# -- lookups, ordering, aggregates: the value --------------------------------------
Counted.objects.all().delete()
values = {"a": 4, "b": -2, "c": 10, "d": 0, "e": 7, "f": 3}
for name, v in values.items():
    Counted.objects.create(name=name, views=0).__class__.objects.filter(name=name).update(
        views=F("views") + v)
Counted.objects.create(name="t")
sql("UPDATE hits_counted SET views = 'tombstone', likes = 'tombstone' WHERE name = 't'")
Counted.objects.filter(name__in=["a", "b"]).update(likes=F("likes") + 1)   # NULL + 1
live = values


def names(qs):
    return sorted(qs.values_list("name", flat=True))


for lookup, test in [("gt", lambda v: v > 3), ("gte", lambda v: v >= 3), ("lt", lambda v: v < 3),
                     ("lte", lambda v: v <= 3), ("exact", lambda v: v == 3)]:
    is_(names(Counted.objects.filter(**{"views__" + lookup: 3})),
        sorted(k for k, v in live.items() if test(v)), "views__%s=3 compares the value" % lookup)
is_(names(Counted.objects.filter(views=0)), ["d"], "views=0 finds the counter of value 0")
is_(names(Counted.objects.filter(views__in=[0, 7, 99])), ["d", "e"], "views__in compares the value")
is_(names(Counted.objects.filter(views__range=(0, 4))), ["a", "d", "f"], "views__range is inclusive")
is_(names(Counted.objects.filter(views__gt="3")), ["a", "c", "e"], "a number given as text compares as a number")
is_(names(Counted.objects.exclude(views__lt=3)), ["a", "c", "e", "f"], "exclude(views__lt=3)")
is_(names(Counted.objects.filter(views__isnull=True)), ["t"], "views__isnull=True: the tombstone")
is_(names(Counted.objects.filter(likes__isnull=True)), ["c", "d", "e", "f", "t"],
    "likes__isnull=True: NULLs and the tombstone")
is_(names(Counted.objects.filter(likes__isnull=False)), ["a", "b"], "likes__isnull=False: the live ones")
state_a = Counted.objects.get(name="a").views.state
is_(names(Counted.objects.filter(views=state_a)), ["a"], "views=<CounterState> compares states")
is_(list(Counted.objects.filter(name__in=live).order_by("views").values_list("name", flat=True)),
    sorted(live, key=live.get), 'order_by("views") orders by value')
is_(list(Counted.objects.filter(name__in=live).order_by("-views").values_list("name", flat=True)),
    sorted(live, key=live.get, reverse=True), 'order_by("-views") orders by value, descending')
agg = Counted.objects.aggregate(s=Sum("views"), mx=Max("views"), mn=Min("views"), a=Avg("views"),
                                c=Count("views"))
want = {"s": sum(live.values()), "mx": max(live.values()), "mn": min(live.values()),
        "a": sum(live.values()) / len(live), "c": len(live) + 1}
ok(agg == want and type(agg["s"]) is int and type(agg["mx"]) is int and type(agg["a"]) is float,
   "Sum, Max, Min, Avg of the values (ints, Avg a float); Count counts the tombstone",
   "got:  %r\nwant: %r" % (agg, want))
grp = dict(Counted.objects.filter(name__in=live).values_list("name").annotate(s=Sum("views")))
is_(grp, live, "Sum per group in values().annotate()")

# -- serialization: dumpdata writes states, loaddata merges them ---------------------
tmp = os.path.abspath(os.environ.get("CHECK_TMP", "."))
dump = os.path.join(tmp, "counted-%d.json" % os.getpid())
call_command("dumpdata", "hits.counted", output=dump, verbosity=0)
with open(dump) as fh:
    dumped = fh.read()
states = dict(sql("SELECT name, views::text FROM hits_counted"))
likes_a = sql("SELECT likes::text FROM hits_counted WHERE name = 'a'")[0][0]
ok('"views": "%s"' % states["a"] in dumped and '"views": "tombstone"' in dumped
   and '"likes": null' in dumped and '"likes": "%s"' % likes_a in dumped,
   "dumpdata: the state of each counter; a tombstone as such where the column is NOT NULL, "
   "null where NULL reads the same", dumped)
Counted.objects.filter(name="a").update(views=F("views") + 5)              # after the dump
Counted.objects.filter(name="c").update(views=CounterState("{%s:1:100}" % foreign))  # merged in
call_command("loaddata", dump, verbosity=0)
now = dict(sql("SELECT name, views::text FROM hits_counted"))
is_(CounterState(now["a"]).value, 9, "loaddata over a newer counter: merged, the +5 made after the dump stays")
is_(CounterState(now["c"]), CounterState(states["c"]).merge(CounterState("{%s:1:100}" % foreign)),
    "loaddata over a counter with another writer's shard: merged, both kept")
is_(sql("SELECT views::text, likes::text FROM hits_counted WHERE name = 't'"), [("tombstone", "tombstone")],
    "loaddata over tombstones: tombstones")
sql("DELETE FROM hits_counted")
call_command("loaddata", dump, verbosity=0)
is_(dict(sql("SELECT name, views::text FROM hits_counted")),
    states, "loaddata into an empty table: the states as dumped")
fixture = os.path.join(tmp, "numbers-%d.json" % os.getpid())
a_pk = Counted.objects.get(name="a").pk
with open(fixture, "w") as fh:
    fh.write('[{"model": "hits.counted", "pk": %d, "fields": {"name": "a", "views": 5}},'
             ' {"model": "hits.counted", "pk": 999, "fields": {"name": "new", "views": 5}},'
             ' {"model": "hits.counted", "pk": 998, "fields": {"name": "new0", "views": 0}}]' % a_pk)
call_command("loaddata", fixture, verbosity=0)
is_(dict(sql("SELECT name, views::text FROM hits_counted WHERE name IN ('a', 'new', 'new0')")),
    {"a": states["a"], "new": "{%s:1:5}" % node, "new0": "{}"},
    "a number in a fixture: the value of a new row; an existing row keeps its counter")

# -- admin: shown as a number, the form writes nothing back ---------------------------
setup_test_environment()
User = get_user_model()
admin_user = User.objects.filter(username="admin").first() or User.objects.create_user(
    "admin", is_staff=True, is_superuser=True)
client = Client()
client.force_login(admin_user)
c = Counted.objects.get(name="c")
url = "/admin/hits/counted/%d/change/" % c.pk
page = client.get(url).content.decode()
shown = str(value_of(c.pk))
ok('value="%s"' % shown in page and "disabled" in page[page.index('name="views"') - 200:
                                                      page.index('name="views"') + 200]
   and "{" + node not in page,
   "the change form shows the value as a disabled number, not the state",
   page[page.index('name="views"') - 300:page.index('name="views"') + 300] if 'name="views"' in page else page)
elsewhere(c.pk, 1000)
r = client.post(url, {"name": "c2", "views": "1", "likes": "", "_save": "Save"})
is_((r.status_code, value_of(c.pk), sql("SELECT name FROM hits_counted WHERE id = %s", [c.pk])[0][0]),
    (302, int(shown) + 1000, "c2"),
    "saving the admin form (even with views=1 posted) keeps the +1000 made meanwhile")
lst = client.get("/admin/hits/counted/").content.decode()
ok(">%s<" % (int(shown) + 1000) in lst.replace(",", ""), "the change list shows the value")
r = client.post("/admin/hits/counted/add/", {"name": "added", "views": "5", "likes": "", "_save": "Save"})
is_((r.status_code, sql("SELECT views::text FROM hits_counted WHERE name = 'added'")),
    (302, [("{}",)]), "the add form creates a counter at 0 (the field is read-only)")

# -- migrations -----------------------------------------------------------------------
try:
    call_command("makemigrations", "hits", check=True, dry_run=True, verbosity=0)
    ok(True, "makemigrations --check: the models match their migrations")
except SystemExit as e:
    ok(False, "makemigrations --check: the models match their migrations", e)

print("1..%d" % n)
sys.exit(1 if failed else 0)
