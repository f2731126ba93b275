--
-- digest_agg: counter_crdt_digest_agg(key, c), a digest of the set of
-- (key, state) rows of a table (contract 7.4): independent of row order and of
-- parallel plans; changed by a changed state, a missing, an extra or a
-- duplicated row; NULL c is a state of its own; NULL key is 22004; no rows
-- give 32 zero bytes.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- Markings, and the aggregate's combine, serial and deserial functions.
SELECT p.oid::regprocedure AS function, p.prokind, p.provolatile, p.proisstrict, p.proparallel
FROM pg_proc p
WHERE p.proname LIKE 'counter_crdt_digest_agg%'
ORDER BY p.proname;
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtransfn, a.aggcombinefn, a.aggserialfn,
       a.aggdeserialfn, a.aggfinalfn, a.aggtranstype::regtype
FROM pg_aggregate a WHERE a.aggfnoid = 'counter_crdt_digest_agg'::regproc;

-- An outside reference, in SQL: the row hash is SHA-256 of a tag, the key's
-- length (8 bytes, big-endian) and UTF-8 bytes, then 0 (live), 1 (tombstone)
-- or 2 (NULL state), and for a state its shard count and shards (id, clock,
-- value, big-endian, ascending id); the digest of a set is the sum of the row
-- hashes modulo 2^256, as a 32-byte big-endian number.
CREATE FUNCTION pg_temp.ref_row(k text, c counter_crdt) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
  SELECT sha256('counter_crdt row v1'::bytea
                || int8send(octet_length(convert_to(k, 'UTF8')))
                || convert_to(k, 'UTF8')
                || CASE
                     WHEN c IS NULL THEN '\x02'::bytea
                     WHEN c = 'tombstone' THEN '\x01'::bytea || int8send(0)
                     ELSE '\x00'::bytea
                          || int8send((SELECT count(*) FROM counter_crdt_shards(c)))
                          || coalesce((SELECT string_agg(uuid_send(id) || int8send(clock) || int8send(value), ''::bytea ORDER BY id)
                                       FROM counter_crdt_shards(c)), ''::bytea)
                   END)
$$;
CREATE FUNCTION pg_temp.bytes_num(b bytea) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(sum(get_byte(b, i)::numeric * (2::numeric ^ (8 * (31 - i)))), 0)
  FROM generate_series(0, 31) i
$$;
CREATE FUNCTION pg_temp.num_bytes(n numeric) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(set_byte('\x00'::bytea, 0, (trunc(n / (2::numeric ^ (8 * (31 - i)))) % 256)::int), ''::bytea ORDER BY i)
  FROM generate_series(0, 31) i
$$;

-- The rows: keys with every kind of state, several writers, the bigint edges.
CREATE TABLE dg (k text, c counter_crdt);
INSERT INTO dg
SELECT 'key' || g,
       CASE
         WHEN g % 17 = 0 THEN NULL
         WHEN g % 19 = 0 THEN 'tombstone'::counter_crdt
         WHEN g % 23 = 0 THEN '{}'::counter_crdt
         WHEN g = 5 THEN '{00000000-0000-0000-0000-000000000000:9223372036854775807:-9223372036854775808}'::counter_crdt
         ELSE counter_crdt_merge(
                counter_crdt_increment(NULL, g % 1000 - 500, md5('w' || (g % 7))::uuid),
                counter_crdt_increment(counter_crdt_increment(NULL, g, md5('w' || (g % 3 + 7))::uuid), -1,
                                       md5('w' || (g % 3 + 7))::uuid))
       END
FROM generate_series(1, 20000) g;
-- One value large enough to be stored compressed.
INSERT INTO dg
SELECT 'big', counter_crdt_merge_agg(counter_crdt_increment(NULL, w, md5('big' || w)::uuid))
FROM generate_series(1, 2000) w;
ANALYZE dg;

-- The aggregate against the reference, on a few rows and on all of them.
SELECT counter_crdt_digest_agg(k, c) = pg_temp.ref_row(k, c) AS one_row_matches
FROM dg WHERE k = 'key5' GROUP BY k, c;
SELECT k, c, counter_crdt_digest_agg(k, c) = pg_temp.ref_row(k, c) AS matches
FROM (VALUES ('', NULL::counter_crdt), ('x', '{}'), ('x', 'tombstone'), ('été', '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}')) v(k, c)
GROUP BY k, c ORDER BY k, c::text;
SELECT counter_crdt_digest_agg(k, c) = pg_temp.num_bytes(sum(pg_temp.bytes_num(pg_temp.ref_row(k, c))) % (2::numeric ^ 256))
       AS table_matches_reference
FROM dg;
SELECT octet_length(counter_crdt_digest_agg(k, c)) AS bytes FROM dg;
SELECT pg_column_size(c) < 2000 * 32 AS big_is_compressed,
       counter_crdt_digest_agg(k, c) = pg_temp.ref_row(k, c) AS big_matches
FROM dg WHERE k = 'big' GROUP BY k, c;

-- No rows: 32 zero bytes.
SELECT counter_crdt_digest_agg(k, c) FROM dg WHERE false;
SELECT counter_crdt_digest_agg(k, c) = decode(repeat('00', 32), 'hex') AS zeros
FROM dg WHERE false;

-- The same set in other orders: an ordered aggregate in both directions, and
-- a copy of the table written in another order.
CREATE TEMP TABLE dg_digest AS SELECT counter_crdt_digest_agg(k, c) AS d FROM dg;
SELECT counter_crdt_digest_agg(k, c ORDER BY k) = (SELECT d FROM dg_digest) AS asc_equal,
       counter_crdt_digest_agg(k, c ORDER BY k DESC) = (SELECT d FROM dg_digest) AS desc_equal,
       counter_crdt_digest_agg(k, c ORDER BY md5(k)) = (SELECT d FROM dg_digest) AS hashed_equal
FROM dg;
CREATE TABLE dg_other AS SELECT * FROM dg ORDER BY md5(k || 'x');
SELECT (SELECT counter_crdt_digest_agg(k, c) FROM dg_other) = (SELECT d FROM dg_digest) AS other_order_equal;

-- Each of these changes the digest.
CREATE FUNCTION pg_temp.changed(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  d bytea;
BEGIN
  EXECUTE 'SELECT counter_crdt_digest_agg(k, c) FROM (' || q || ') s' INTO d;
  RETURN d <> (SELECT dg_digest.d FROM dg_digest);
END
$$;
SELECT what, pg_temp.changed(q) AS changed
FROM (VALUES
  ('a state one increment further', $$SELECT k, CASE WHEN k = 'key2' THEN counter_crdt_increment(c, 0, md5('w2')::uuid) ELSE c END AS c FROM dg$$),
  ('a state with a value changed', $$SELECT k, CASE WHEN k = 'key5' THEN '{00000000-0000-0000-0000-000000000000:9223372036854775807:9223372036854775807}' ELSE c END AS c FROM dg$$),
  ('a state as a tombstone', $$SELECT k, CASE WHEN k = 'key2' THEN 'tombstone' ELSE c END AS c FROM dg$$),
  ('two keys swapping their states', $$SELECT CASE k WHEN 'key1' THEN 'key2' WHEN 'key2' THEN 'key1' ELSE k END AS k, c FROM dg$$),
  ('a missing row', $$SELECT k, c FROM dg WHERE k <> 'key2'$$),
  ('a missing NULL row', $$SELECT k, c FROM dg WHERE k <> 'key17'$$),
  ('an extra row', $$SELECT k, c FROM dg UNION ALL SELECT 'new', '{}'$$),
  ('an extra NULL row', $$SELECT k, c FROM dg UNION ALL SELECT 'new', NULL$$),
  ('a duplicated row', $$SELECT k, c FROM dg UNION ALL SELECT k, c FROM dg WHERE k = 'key2'$$),
  ('two equal extra rows', $$SELECT k, c FROM dg UNION ALL SELECT 'new', '{}' FROM generate_series(1, 2)$$),
  ('every row twice', $$SELECT k, c FROM dg UNION ALL SELECT k, c FROM dg$$),
  ('NULL instead of {}', $$SELECT k, CASE WHEN k = 'key23' THEN NULL ELSE c END AS c FROM dg$$),
  ('{} instead of NULL', $$SELECT k, CASE WHEN k = 'key17' THEN '{}' ELSE c END AS c FROM dg$$),
  ('{} instead of tombstone', $$SELECT k, CASE WHEN k = 'key19' THEN '{}' ELSE c END AS c FROM dg$$),
  ('a key one character longer', $$SELECT CASE WHEN k = 'key2' THEN 'key2 ' ELSE k END AS k, c FROM dg$$)
) v(what, q);
-- ... and the unchanged set, rebuilt, does not.
SELECT pg_temp.changed($$SELECT k, c FROM dg_other$$) AS unchanged_changed;

-- NULL, {} and a missing row: three different digests of one key.
SELECT count(DISTINCT d) AS distinct_digests
FROM (SELECT counter_crdt_digest_agg(k, c) AS d FROM (VALUES ('a', '{}'::counter_crdt), ('x', NULL)) v(k, c)
      UNION ALL
      SELECT counter_crdt_digest_agg(k, c) FROM (VALUES ('a', '{}'::counter_crdt), ('x', '{}')) v(k, c)
      UNION ALL
      SELECT counter_crdt_digest_agg(k, c) FROM (VALUES ('a', '{}'::counter_crdt)) v(k, c)) s;

-- A NULL key is an error (22004), also among other rows.
\set VERBOSITY sqlstate
SELECT counter_crdt_digest_agg(NULL, '{}'::counter_crdt);
SELECT counter_crdt_digest_agg(CASE WHEN k = 'key300' THEN NULL ELSE k END, c) FROM dg;
\set VERBOSITY default
SELECT counter_crdt_digest_agg(NULL, NULL::counter_crdt);

-- Grouped: per bucket of the key, and the buckets add up to the whole.
CREATE TEMP TABLE dg_buckets AS
  SELECT left(md5(k), 1) AS bucket, counter_crdt_digest_agg(k, c) AS d FROM dg GROUP BY 1;
SELECT count(*) AS buckets,
       pg_temp.num_bytes(sum(pg_temp.bytes_num(d)) % (2::numeric ^ 256)) = (SELECT d FROM dg_digest) AS buckets_add_up
FROM dg_buckets;

-- Parallel plans give the same digests.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT counter_crdt_digest_agg(k, c) FROM dg;
SELECT counter_crdt_digest_agg(k, c) = (SELECT d FROM dg_digest) AS parallel_equal FROM dg;
-- Grouped, on a stored bucket column (whose statistics let the planner
-- aggregate partially in the workers).
CREATE TABLE dg_b AS SELECT left(md5(k), 1) AS bucket, k, c FROM dg;
ANALYZE dg_b;
EXPLAIN (COSTS OFF) SELECT bucket, counter_crdt_digest_agg(k, c) FROM dg_b GROUP BY 1;
SELECT count(*) AS buckets, count(*) FILTER (WHERE p.d IS DISTINCT FROM b.d) AS buckets_differing
FROM (SELECT bucket, counter_crdt_digest_agg(k, c) AS d FROM dg_b GROUP BY 1) p
FULL JOIN dg_buckets b USING (bucket);

-- The workers really ran: with the leader out, every row goes through a
-- worker, whose state is serialized, deserialized and combined.
SET parallel_leader_participation = off;
CREATE FUNCTION pg_temp.workers_launched(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO plan;
  RETURN (SELECT max((n ->> 'Workers Launched')::int)
          FROM json_array_elements(plan -> 0 -> 'Plan' -> 'Plans') n);
END
$$;
SELECT pg_temp.workers_launched('SELECT counter_crdt_digest_agg(k, c) FROM dg') >= 1 AS workers_ran;
SELECT counter_crdt_digest_agg(k, c) = (SELECT d FROM dg_digest) AS workers_only_equal FROM dg;
SELECT counter_crdt_digest_agg(k, c) = (SELECT d FROM dg_digest) AS other_table_workers_equal FROM dg_other;
SELECT counter_crdt_digest_agg(k, c) <> (SELECT d FROM dg_digest) AS workers_see_missing_row
FROM dg WHERE k <> 'key100';
SELECT count(*) AS buckets, count(*) FILTER (WHERE p.d IS DISTINCT FROM b.d) AS buckets_differing_workers_only
FROM (SELECT bucket, counter_crdt_digest_agg(k, c) AS d FROM dg_b GROUP BY 1) p
FULL JOIN dg_buckets b USING (bucket);
-- No rows in parallel: zeros still.
SELECT counter_crdt_digest_agg(k, c) = decode(repeat('00', 32), 'hex') AS parallel_zeros FROM dg WHERE k = 'none';
-- A NULL key in a worker is the same error.
\set VERBOSITY sqlstate
SELECT counter_crdt_digest_agg(CASE WHEN k = 'key300' THEN NULL ELSE k END, c) FROM dg;
\set VERBOSITY default
RESET parallel_leader_participation;

RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

DROP TABLE dg, dg_other, dg_b;
