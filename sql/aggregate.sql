--
-- Aggregate counter_crdt_merge_agg(c): the merge of any number of states.
-- contract section 3: ignores NULLs, no rows gives NULL.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- A reference: the plain fold of counter_crdt_merge (not strict, so NULL
-- inputs go through merge, where NULL is the identity).
CREATE AGGREGATE merge_fold(counter_crdt) (
  SFUNC = counter_crdt_merge,
  STYPE = counter_crdt
);

-- No rows, all NULL, NULLs among values.
SELECT counter_crdt_merge_agg(c) IS NULL AS no_rows
FROM (SELECT '{}'::counter_crdt AS c WHERE false) s;
SELECT counter_crdt_merge_agg(c) IS NULL AS all_null
FROM (VALUES (NULL::counter_crdt), (NULL), (NULL)) v(c);
SELECT counter_crdt_merge_agg(c) AS nulls_ignored
FROM (VALUES (NULL::counter_crdt),
             ('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:5}'),
             (NULL),
             ('{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:-1}'),
             (NULL)) v(c);
SELECT counter_crdt_merge_agg(c) AS only_empty
FROM (VALUES ('{}'::counter_crdt), (NULL), ('{}')) v(c);
SELECT counter_crdt_merge_agg(c) AS single
FROM (VALUES ('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:5}'::counter_crdt)) v(c);

-- Per writer the highest clock wins, then the highest value.
SELECT counter_crdt_merge_agg(c) AS merged, counter_crdt_merge_agg(c)::bigint AS value
FROM (VALUES ('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:5, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:1}'::counter_crdt),
             ('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:3:4}'),
             ('{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:2, cccccccc-cccc-cccc-cccc-cccccccccccc:7:-70}'),
             ('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:100, cccccccc-cccc-cccc-cccc-cccccccccccc:6:1000}'),
             ('{}')) v(c);

-- A tombstone among the inputs, first, in the middle or last: tombstone.
SELECT counter_crdt_merge_agg(c ORDER BY o) AS tomb_first
FROM (VALUES (1, 'tombstone'::counter_crdt), (2, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:5}'), (3, NULL), (4, '{}')) v(o, c);
SELECT counter_crdt_merge_agg(c ORDER BY o) AS tomb_middle
FROM (VALUES (1, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:5}'::counter_crdt), (2, 'tombstone'), (3, '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:2:5}')) v(o, c);
SELECT counter_crdt_merge_agg(c ORDER BY o) AS tomb_last
FROM (VALUES (1, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:5}'::counter_crdt), (2, '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:2:5}'), (3, 'tombstone')) v(o, c);
SELECT counter_crdt_merge_agg(c) AS tomb_with_nulls, counter_crdt_merge_agg(c)::bigint IS NULL AS value_is_null
FROM (VALUES (NULL::counter_crdt), ('tombstone'), (NULL)) v(c);

-- A table of pseudo-random states: 1000 keys, each with 1 to 6 rows;
-- rows hold 1 to 4 shards of 9 writers, with clock and value ties.
CREATE TABLE agg_t (k int, o int, c counter_crdt);
INSERT INTO agg_t
SELECT r / 6 + 1 AS k, r AS o,
       CASE
         WHEN r % 97 = 0 THEN NULL
         WHEN r IN (997, 4998) THEN 'tombstone'::counter_crdt
         ELSE (SELECT ('{' || coalesce(string_agg(w.id || ':' || w.clock || ':' || w.value, ', '), '') || '}')::counter_crdt
               FROM (SELECT DISTINCT ON (id) md5('writer' || ((r * 7 + s * 5) % 9))::uuid AS id,
                            (r * 31 + s * 17) % 23 + 1 AS clock,
                            (r * 13 + s * 29) % 1001 - 500 AS value
                     FROM generate_series(1, (r % 4) + 1) s
                     ORDER BY 1, s) w)
       END AS c
FROM generate_series(0, 5999) r
WHERE r % 6 < (r / 6) % 6 + 1;
SELECT count(*) AS rows, count(DISTINCT k) AS keys, count(c) AS non_null,
       count(*) FILTER (WHERE c = 'tombstone') AS tombstones,
       count(DISTINCT c::text) AS distinct_states
FROM agg_t;

-- GROUP BY: the aggregate equals the fold, per key, with hashing and with
-- sorting, and in either input order.
SELECT count(*) AS groups,
       count(*) FILTER (WHERE a IS DISTINCT FROM f) AS agg_ne_fold,
       count(*) FILTER (WHERE a IS DISTINCT FROM asc_) AS agg_ne_asc,
       count(*) FILTER (WHERE a IS DISTINCT FROM desc_) AS agg_ne_desc,
       count(*) FILTER (WHERE a = 'tombstone') AS tombstone_groups,
       count(*) FILTER (WHERE a IS NULL) AS null_groups,
       sum(a::bigint) AS total
FROM (SELECT k, counter_crdt_merge_agg(c) AS a, merge_fold(c) AS f,
             counter_crdt_merge_agg(c ORDER BY o) AS asc_,
             counter_crdt_merge_agg(c ORDER BY o DESC) AS desc_
      FROM agg_t GROUP BY k) g;
SET enable_hashagg = off;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE g.a IS DISTINCT FROM h.f) AS sorted_agg_ne_fold
FROM (SELECT k, counter_crdt_merge_agg(c) AS a FROM agg_t GROUP BY k) g
JOIN (SELECT k, merge_fold(c ORDER BY o DESC) AS f FROM agg_t GROUP BY k) h USING (k);
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT k, counter_crdt_merge_agg(c) FROM agg_t GROUP BY k;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE g.a IS DISTINCT FROM h.f) AS hashed_agg_ne_fold
FROM (SELECT k, counter_crdt_merge_agg(c) AS a FROM agg_t GROUP BY k) g
JOIN (SELECT k, merge_fold(c ORDER BY o) AS f FROM agg_t GROUP BY k) h USING (k);
RESET enable_sort;

-- A hash aggregation keeps its states in slots of its own memory (see
-- src/agg_slots.c).  That memory is reset between the batches of one that
-- spills to disk (a small work_mem) and at every rescan (the subquery runs
-- once per outer row, each time over new rows): states made after a reset
-- must not land in memory of before it.
CREATE FUNCTION hashagg_batches(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
  RETURN (j->0->'Plan'->>'HashAgg Batches')::int;
END $$;
SET enable_sort = off;
SET work_mem = '64kB';
SELECT hashagg_batches('SELECT k, counter_crdt_merge_agg(c) FROM agg_t GROUP BY k') > 1 AS spills;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE g.a IS DISTINCT FROM h.f) AS spilled_agg_ne_fold
FROM (SELECT k, counter_crdt_merge_agg(c) AS a FROM agg_t GROUP BY k) g
JOIN (SELECT k, merge_fold(c ORDER BY o) AS f FROM agg_t GROUP BY k) h USING (k);
RESET work_mem;
-- States side by side in their slots, each growing past its slot's room
-- while the states made after it sit next to it: first every group's
-- first writer, then every group's second, and so on; groups of the
-- second kind start with four writers (a larger slot).  Every group ends
-- with its writers' values.
CREATE TABLE agg_grow AS
SELECT g, w, c FROM (
  SELECT g, w, counter_crdt_increment(NULL, w * 10 + g % 10, md5('grow' || w)::uuid) AS c
  FROM generate_series(1, 500) g, generate_series(1, 7) w
  WHERE g % 2 = 1 OR w > 4
  UNION ALL
  SELECT g, 0, (SELECT counter_crdt_merge_agg(counter_crdt_increment(NULL, w * 10 + g % 10, md5('grow' || w)::uuid))
                FROM generate_series(1, 4) w)
  FROM generate_series(2, 500, 2) g) s
ORDER BY w, g;
SELECT hashagg_batches('SELECT g, counter_crdt_merge_agg(c) FROM agg_grow GROUP BY g') AS batches;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE counter_crdt_writers(a) <> 7) AS not_7_writers,
       count(*) FILTER (WHERE a::bigint <> 280 + 7 * (g % 10)) AS wrong_total
FROM (SELECT g, counter_crdt_merge_agg(c) AS a FROM agg_grow GROUP BY g) s;
DROP TABLE agg_grow;
EXPLAIN (COSTS OFF)
SELECT r.m, s.* FROM generate_series(0, 6) r(m),
  LATERAL (SELECT count(*) AS groups FROM (SELECT k, counter_crdt_merge_agg(c) AS a
           FROM agg_t WHERE k % 7 = r.m GROUP BY k) g) s;
SELECT r.m, s.* FROM generate_series(0, 6) r(m),
  LATERAL (SELECT count(*) AS groups,
                  count(*) FILTER (WHERE g.a IS DISTINCT FROM h.f) AS rescanned_agg_ne_fold,
                  sum(g.a::bigint) AS total
           FROM (SELECT k, counter_crdt_merge_agg(c) AS a FROM agg_t WHERE k % 7 = r.m GROUP BY k) g
           JOIN (SELECT k, merge_fold(c ORDER BY o) AS f FROM agg_t GROUP BY k) h USING (k)) s
ORDER BY r.m;
RESET enable_sort;

-- Some groups in full.
SELECT k, counter_crdt_merge_agg(c) AS merged
FROM agg_t WHERE k IN (1, 2, 6, 169) GROUP BY k ORDER BY k;
SELECT k, o, c FROM agg_t WHERE k IN (1, 2, 6) ORDER BY k, o;

-- Over the whole table, in five orders: one state, all 9 writers.
SELECT (SELECT counter_crdt_merge_agg(c) FROM agg_t WHERE c <> 'tombstone') AS whole_table;
SELECT count(DISTINCT x::text) AS distinct_results, min(x::text) = max(x::text) AS all_equal
FROM (SELECT counter_crdt_merge_agg(c) AS x FROM agg_t WHERE c <> 'tombstone'
      UNION ALL
      SELECT counter_crdt_merge_agg(c ORDER BY o) FROM agg_t WHERE c <> 'tombstone'
      UNION ALL
      SELECT counter_crdt_merge_agg(c ORDER BY o DESC) FROM agg_t WHERE c <> 'tombstone'
      UNION ALL
      SELECT counter_crdt_merge_agg(c ORDER BY md5(o::text)) FROM agg_t WHERE c <> 'tombstone'
      UNION ALL
      SELECT merge_fold(c ORDER BY o) FROM agg_t WHERE c <> 'tombstone') s;
SELECT counter_crdt_merge_agg(c) AS whole_table_with_tombstones FROM agg_t;

-- Many shards: 200 writers, one row each plus older and newer copies, so
-- the state must grow well past its first allocation.
CREATE TABLE agg_wide (w int, c counter_crdt);
-- (writer w, clock 2, value w)
INSERT INTO agg_wide
SELECT w, counter_crdt_increment(counter_crdt_increment(NULL, 0, md5('wide' || w)::uuid), w, md5('wide' || w)::uuid)
FROM generate_series(1, 200) w;
-- Older copies (lower clock, bigger value) lose.
INSERT INTO agg_wide
SELECT w, ('{' || md5('wide' || w)::uuid || ':1:' || (w * 1000) || '}')::counter_crdt
FROM generate_series(1, 200, 3) w;
-- Copies with the same clock and a lower value lose.
INSERT INTO agg_wide
SELECT w, ('{' || md5('wide' || w)::uuid || ':2:' || (w - 1) || '}')::counter_crdt
FROM generate_series(7, 200, 7) w;
-- Newer copies (one more increment by 1) win: 20 of them.
INSERT INTO agg_wide
SELECT w, counter_crdt_increment(c, 1, md5('wide' || w)::uuid)
FROM agg_wide WHERE w % 10 = 0 AND counter_crdt_value(c) = w;
SELECT count(*) AS rows FROM agg_wide;
-- 200 shards, clocks 200 * 2 + 20, total 1 + ... + 200 + 20.
SELECT (SELECT count(*) FROM counter_crdt_shards(m)) AS shards,
       (SELECT sum(clock) FROM counter_crdt_shards(m)) AS clocks,
       (SELECT sum(value) FROM counter_crdt_shards(m)) AS shard_total,
       counter_crdt_value(m) AS value
FROM (SELECT counter_crdt_merge_agg(c) AS m FROM agg_wide) a;
SELECT count(*) AS shards_checked,
       count(*) FILTER (WHERE s.clock <> 2 + (w % 10 = 0)::int
                           OR s.value <> w + (w % 10 = 0)::int) AS wrong_shards
FROM (SELECT counter_crdt_merge_agg(c) AS m FROM agg_wide) a,
     counter_crdt_shards(a.m) s
JOIN generate_series(1, 200) w ON s.id = md5('wide' || w)::uuid;
SELECT counter_crdt_merge_agg(c ORDER BY w) = counter_crdt_merge_agg(c ORDER BY w DESC) AS asc_eq_desc,
       counter_crdt_merge_agg(c) = merge_fold(c) AS agg_eq_fold,
       counter_crdt_merge_agg(c ORDER BY md5(c::text)) = merge_fold(c ORDER BY w DESC) AS shuffled_eq_fold
FROM agg_wide;
-- The shards come out in ascending id order.
SELECT bool_and(prev < id) AS ascending, count(*) AS shards
FROM (SELECT id, lag(id) OVER (ORDER BY ord) AS prev
      FROM (SELECT counter_crdt_merge_agg(c) AS c FROM agg_wide) a,
           counter_crdt_shards(a.c) WITH ORDINALITY s(id, clock, value, ord)) x
WHERE prev IS NOT NULL;
-- 200 writers, each row a two-writer state: the running state grows a shard at a time.
SELECT (SELECT count(*) FROM counter_crdt_shards(m)) AS shards, counter_crdt_value(m) AS value
FROM (SELECT counter_crdt_merge_agg(counter_crdt_increment(counter_crdt_increment(NULL, 1, md5('x' || g)::uuid), 1, md5('x' || (g + 1))::uuid)) AS m
      FROM generate_series(1, 199) g) a;

-- A first input with no shards, then one wider than the state's first
-- buffer (4 shards), then a tombstone-free overlap: the state grows from its
-- first buffer; grouped (one state per key) and in either order.
SELECT k, counter_crdt_merge_agg(c ORDER BY o) = merge_fold(c ORDER BY o) AS agg_eq_fold,
       counter_crdt_merge_agg(c ORDER BY o DESC) = merge_fold(c ORDER BY o) AS reversed_eq_fold,
       (SELECT count(*) FROM counter_crdt_shards(counter_crdt_merge_agg(c))) AS shards,
       counter_crdt_value(counter_crdt_merge_agg(c)) AS value
FROM (VALUES (1, 1, '{}'::counter_crdt),
             (1, 2, (SELECT counter_crdt_merge_agg(counter_crdt_increment(NULL, g, md5('grow' || g)::uuid))
                     FROM generate_series(1, 10) g)),
             (1, 3, (SELECT counter_crdt_merge_agg(counter_crdt_increment(NULL, 100, md5('grow' || g)::uuid))
                     FROM generate_series(8, 12) g)),
             (2, 1, '{}'), (2, 2, '{}')) v(k, o, c)
GROUP BY k ORDER BY k;

-- A wide state stored in a table (compressed or moved out of line by TOAST)
-- is read, incremented and merged like any other.
CREATE TABLE agg_toast AS
SELECT 1 AS k, counter_crdt_merge_agg(counter_crdt_increment(NULL, g, md5('toast' || g)::uuid)) AS c
FROM generate_series(1, 2000) g;
SELECT c::bigint AS value, (SELECT count(*) FROM counter_crdt_shards(c)) AS shards FROM agg_toast;
UPDATE agg_toast SET c = counter_crdt_increment(c, 5, md5('toast' || 1000)::uuid);
UPDATE agg_toast SET c = counter_crdt_increment(c, -3, '00000000-0000-0000-0000-000000000000');
SELECT c::bigint AS value, (SELECT count(*) FROM counter_crdt_shards(c)) AS shards,
       (SELECT s FROM counter_crdt_shards(c) s WHERE s.id = md5('toast' || 1000)::uuid) AS shard_1000,
       (SELECT s FROM counter_crdt_shards(c) s LIMIT 1) AS first_shard,
       counter_crdt_merge(c, c) = c AS merge_self, counter_crdt_merge(c, '{}') = c AS merge_empty,
       c::text::counter_crdt = c AS text_round_trip
FROM agg_toast;
SELECT counter_crdt_merge_agg(c) = (SELECT c FROM agg_toast) AS agg_of_copies
FROM (SELECT c FROM agg_toast UNION ALL SELECT c FROM agg_toast UNION ALL SELECT '{}') s;
DROP TABLE agg_toast;

-- As a window aggregate: the running merge.
SELECT o, c, counter_crdt_merge_agg(c) OVER (ORDER BY o) AS running,
       counter_crdt_merge_agg(c) OVER (ORDER BY o)::bigint AS running_value
FROM (VALUES (1, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:5}'::counter_crdt),
             (2, NULL),
             (3, '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:2:3}'),
             (4, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:3:-1}'),
             (5, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:100, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:2:4}'),
             (6, 'tombstone'),
             (7, '{cccccccc-cccc-cccc-cccc-cccccccccccc:1:1}')) v(o, c)
ORDER BY o;
-- Moving frames (the aggregate restarts) and partitions.
SELECT o, counter_crdt_merge_agg(c) OVER (ORDER BY o ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS last_two,
       counter_crdt_merge_agg(c) OVER (ORDER BY o ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS rest
FROM (VALUES (1, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:5}'::counter_crdt),
             (2, NULL),
             (3, '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:2:3}'),
             (4, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:3:-1}'),
             (5, 'tombstone'),
             (6, '{cccccccc-cccc-cccc-cccc-cccccccccccc:1:1}')) v(o, c)
ORDER BY o;
SELECT count(*) AS rows_checked,
       count(*) FILTER (WHERE running IS DISTINCT FROM running_fold) AS running_ne_fold,
       count(*) FILTER (WHERE running = 'tombstone') AS tombstoned_rows
FROM (SELECT counter_crdt_merge_agg(c) OVER (PARTITION BY k ORDER BY o) AS running,
             merge_fold(c) OVER (PARTITION BY k ORDER BY o) AS running_fold
      FROM agg_t) w;

DROP TABLE agg_t, agg_wide;
DROP AGGREGATE merge_fold(counter_crdt);
