#!/usr/bin/env python3
#
# make_scylla_export.py
#	  Writes test/data/scylla_page_stats.csv: what
#
#	    cqlsh> COPY shop.page_stats TO 'page_stats.csv' WITH HEADER = true;
#
#	  prints for the table
#
#	    CREATE TABLE shop.page_stats (
#	        site text, day date, page text,
#	        net_votes counter, views counter,
#	        PRIMARY KEY ((site, day), page));
#
#	  cqlsh writes with Python's csv module and these dialect options (its
#	  defaults: QUOTE '"', ESCAPE '\', DELIMITER ','; quote and escape differ,
#	  so doublequote is off), the header line first, columns in table order
#	  (partition key, clustering key, the other columns by name), an empty
#	  field for a null, rows in token order, lines ended by "\r\n".  Run from
#	  anywhere: python3 test/data/make_scylla_export.py

import csv
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

ROWS = [
    # site, day, page, net_votes, views
    ("shop.example", "2024-06-01", "/", 12, 48211),
    ("shop.example", "2024-06-01", "/checkout", -3, 1870),
    ("shop.example", "2024-06-01", "/p/red-shoes", 41, 9120),
    ("shop.example", "2024-06-01", "/search?q=boots,size=42", -17, 733),
    ("shop.example", "2024-06-01", '/search?q="winter boots",sort=price', 2, 95),
    ("shop.example", "2024-06-02", "/", 9, 45102),
    ("shop.example", "2024-06-02", "/checkout", 0, 1644),
    ("shop.example", "2024-06-02", "/p/red-shoes", -128, 8810),
    ("shop.example", "2024-06-02", "/p/caf\u00e9-cr\u00e8me", 5, 310),
    ("shop.example", "2024-06-02", "/legacy", None, 17),
    ("blog.example", "2024-06-01", "/posts/counters-in-postgres", 313, 120544),
    ("blog.example", "2024-06-01", "/posts/why, not how", -41, 2210),
    ("blog.example", "2024-06-01", "/about", None, 402),
    ("blog.example", "2024-06-02", "/posts/counters-in-postgres", 57, 9000000000),
    ("blog.example", "2024-06-02", "/drafts/hidden", -9223372036854775000, 1),
    ("blog.example", "2024-06-02", "/", 0, 0),
]


def main():
    rows = list(ROWS)
    random.Random(2024).shuffle(rows)   # token order looks random
    path = os.path.join(HERE, "scylla_page_stats.csv")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quotechar='"', escapechar="\\", delimiter=",",
                       doublequote=False)
        w.writerow(["site", "day", "page", "net_votes", "views"])
        for r in rows:
            w.writerow(["" if v is None else str(v) for v in r])


if __name__ == "__main__":
    main()
