"""One application process of test/t/030_django.pl: python increment.py SLUG N

Reads the Hit SLUG, prints "ready", waits for a line on stdin (so that the
processes start together), then N times `hit.views += 1; hit.save()`: on
odd turns with the instance it holds, on even ones with the row read again,
as a request would.  Prints "done START END" (times of the first and the
last save) and exits.  Run from the project's directory.
"""
import os
import sys
import time

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402

from hits.models import Hit  # noqa: E402

slug, n = sys.argv[1], int(sys.argv[2])
hit = Hit.objects.get(slug=slug)
print("ready %s" % connection.Database.__name__, flush=True)
sys.stdin.readline()
start = time.time()
for i in range(n):
    if i % 2 == 0:
        hit = Hit.objects.get(slug=slug)
    hit.views += 1
    hit.save()
print("done %.6f %.6f" % (start, time.time()), flush=True)
