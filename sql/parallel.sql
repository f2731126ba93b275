--
-- Parallel aggregation with counter_crdt_merge_agg, and the volatility,
-- strictness and parallel markings of every function of the extension.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- The markings, pinned: contract section 3 "Every function is marked with its
-- true volatility and PARALLEL SAFE where it is".  c + d reads the node id
-- setting, so it is stable; everything else here depends on its arguments
-- only.  Each function must belong to the extension (pg_depend); a missing
-- one shows as a row of NULLs.  (Functions of later versions, such as the
-- replication trigger, are pinned by their own tests.)
SELECT f.name AS function, p.prokind, p.provolatile, p.proisstrict, p.proparallel,
       EXISTS (SELECT 1 FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
               WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
                 AND e.extname = 'counter_crdt') AS in_extension
FROM unnest(ARRAY[
       'counter_crdt_in(cstring)', 'counter_crdt_out(counter_crdt)',
       'counter_crdt_recv(internal)', 'counter_crdt_send(counter_crdt)',
       'counter_crdt_add(counter_crdt,bigint)', 'counter_crdt_sub(counter_crdt,bigint)',
       'counter_crdt_increment(counter_crdt,bigint,uuid)', 'counter_crdt_value(counter_crdt)',
       'counter_crdt_merge(counter_crdt,counter_crdt)', 'counter_crdt_merge_agg(counter_crdt)',
       'counter_crdt_merge_agg_trans(internal,counter_crdt)', 'counter_crdt_merge_agg_combine(internal,internal)',
       'counter_crdt_merge_agg_final(internal)', 'counter_crdt_merge_agg_serial(internal)',
       'counter_crdt_merge_agg_deserial(bytea,internal)',
       'counter_crdt_shards(counter_crdt)', 'counter_crdt_digest(counter_crdt)',
       'counter_crdt_node_id()', 'counter_crdt_rack_id(text,text)', 'counter_crdt_pending_id(uuid)',
       'counter_crdt_eq(counter_crdt,counter_crdt)', 'counter_crdt_ne(counter_crdt,counter_crdt)',
       'counter_crdt_hash(counter_crdt)', 'counter_crdt_hash_extended(counter_crdt,bigint)'
     ]) WITH ORDINALITY AS f(name, ord)
LEFT JOIN pg_proc p ON p.oid = to_regprocedure(f.name)
ORDER BY f.ord;
-- The functions behind the operators and the cast.
SELECT o.oprname, o.oprcode::regprocedure FROM pg_operator o
WHERE o.oprleft = 'counter_crdt'::regtype ORDER BY o.oprname, o.oprcode::regprocedure::text;
SELECT c.castfunc::regprocedure FROM pg_cast c WHERE c.castsource = 'counter_crdt'::regtype;
-- The aggregate has its combine, serial and deserial functions.
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggkind, a.aggtransfn, a.aggcombinefn, a.aggserialfn,
       a.aggdeserialfn, a.aggfinalfn, a.aggtranstype::regtype, a.aggfinalmodify
FROM pg_aggregate a WHERE a.aggfnoid = 'counter_crdt_merge_agg'::regproc;

-- 100000 rows: 20 keys; 7 writers in general, 500 writers under key 0;
-- each copy of a writer's shard has its own clock; some rows hold two
-- shards, some are NULL, and key 5 holds one tombstone.
CREATE TABLE par_t (g bigint, k int, c counter_crdt);
INSERT INTO par_t
SELECT g, g % 20,
       CASE
         WHEN g % 13 = 0 THEN NULL
         WHEN g = 50005 THEN 'tombstone'::counter_crdt
         WHEN g % 3 = 0 THEN
           counter_crdt_merge(
             ('{' || md5(CASE WHEN g % 20 = 0 THEN 'wide' || (g / 20 % 500) ELSE 'par' || (g % 7) END)::uuid
                  || ':' || ((g * 7919) % 1000 + 1) || ':' || ((g * 104729) % 2001 - 1000) || '}')::counter_crdt,
             ('{' || md5('par' || ((g + 3) % 7))::uuid || ':' || ((g * 31) % 1000 + 1) || ':' || (g % 100) || '}')::counter_crdt)
         ELSE
           ('{' || md5(CASE WHEN g % 20 = 0 THEN 'wide' || (g / 20 % 500) ELSE 'par' || (g % 7) END)::uuid
                || ':' || ((g * 7919) % 1000 + 1) || ':' || ((g * 104729) % 2001 - 1000) || '}')::counter_crdt
       END
FROM generate_series(1::bigint, 100000) g;
ANALYZE par_t;

-- Serial results first.
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT counter_crdt_merge_agg(c) FROM par_t;
CREATE TABLE par_serial_total AS SELECT counter_crdt_merge_agg(c) AS m FROM par_t;
CREATE TABLE par_serial_groups AS SELECT k, counter_crdt_merge_agg(c) AS m FROM par_t GROUP BY k;
CREATE TABLE par_serial_live AS SELECT counter_crdt_merge_agg(c) AS m FROM par_t WHERE k <> 5;
SELECT k, (SELECT count(*) FROM counter_crdt_shards(m)) AS shards, m::bigint AS value, m = 'tombstone' AS tombstone
FROM par_serial_groups ORDER BY k;
SELECT (SELECT count(*) FROM counter_crdt_shards(m)) AS shards, m::bigint AS value FROM par_serial_live;
SELECT m FROM par_serial_total;

-- Now in parallel.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

EXPLAIN (COSTS OFF) SELECT counter_crdt_merge_agg(c) FROM par_t;
SELECT counter_crdt_merge_agg(c) AS m FROM par_t;
EXPLAIN (COSTS OFF) SELECT counter_crdt_merge_agg(c) FROM par_t WHERE k <> 5;
SELECT counter_crdt_merge_agg(c) = (SELECT m FROM par_serial_live) AS live_equal,
       counter_crdt_digest(counter_crdt_merge_agg(c)) = (SELECT counter_crdt_digest(m) FROM par_serial_live) AS live_digest_equal,
       (SELECT count(*) FROM counter_crdt_shards(counter_crdt_merge_agg(c))) AS shards,
       counter_crdt_merge_agg(c)::bigint AS value
FROM par_t WHERE k <> 5;

EXPLAIN (COSTS OFF) SELECT k, counter_crdt_merge_agg(c) FROM par_t GROUP BY k;
SELECT k, (SELECT count(*) FROM counter_crdt_shards(m)) AS shards, m::bigint AS value, m = 'tombstone' AS tombstone,
       m = (SELECT s.m FROM par_serial_groups s WHERE s.k = p.k) AS equals_serial,
       counter_crdt_digest(m) = (SELECT counter_crdt_digest(s.m) FROM par_serial_groups s WHERE s.k = p.k) AS digest_equal
FROM (SELECT k, counter_crdt_merge_agg(c) AS m FROM par_t GROUP BY k) p
ORDER BY k;

-- The workers really ran: all rows go through them when the leader does not
-- take part, so every partial state is serialized and combined.
SET parallel_leader_participation = off;
CREATE FUNCTION par_workers_launched(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO plan;
  RETURN (SELECT max((n ->> 'Workers Launched')::int)
          FROM json_array_elements(plan -> 0 -> 'Plan' -> 'Plans') n);
END
$$;
SELECT par_workers_launched('SELECT counter_crdt_merge_agg(c) FROM par_t WHERE k <> 5') >= 1 AS workers_ran;
SELECT counter_crdt_merge_agg(c) = (SELECT m FROM par_serial_live) AS live_equal_workers_only
FROM par_t WHERE k <> 5;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE p.m IS DISTINCT FROM s.m) AS groups_differing
FROM (SELECT k, counter_crdt_merge_agg(c) AS m FROM par_t GROUP BY k) p
FULL JOIN par_serial_groups s USING (k);
SELECT counter_crdt_merge_agg(c) AS m FROM par_t;
RESET parallel_leader_participation;

-- c + d in the workers uses the node id of the session: the setting, or
-- the default (the same in every process).
SET counter_crdt.node_id = 'abababab-0000-4000-8000-000000000001';
SET max_parallel_workers_per_gather = 0;
CREATE TABLE par_serial_plus AS SELECT counter_crdt_merge_agg(c + 1) AS m FROM par_t WHERE k <> 5;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT counter_crdt_merge_agg(c + 1) FROM par_t WHERE k <> 5;
SELECT counter_crdt_merge_agg(c + 1) = (SELECT m FROM par_serial_plus) AS plus_equal,
       counter_crdt_merge_agg(c + 1)::bigint AS value,
       (SELECT s FROM counter_crdt_shards(counter_crdt_merge_agg(c + 1)) s
        WHERE s.id = 'abababab-0000-4000-8000-000000000001') AS node_shard
FROM par_t WHERE k <> 5;
RESET counter_crdt.node_id;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE par_serial_plus_default AS SELECT counter_crdt_merge_agg(c + 1) AS m FROM par_t WHERE k <> 5;
SET max_parallel_workers_per_gather = 2;
SELECT counter_crdt_merge_agg(c + 1) = (SELECT m FROM par_serial_plus_default) AS plus_default_equal,
       counter_crdt_merge_agg(c + 1)::bigint AS value
FROM par_t WHERE k <> 5;
RESET parallel_leader_participation;

-- Sorted grouping in parallel as well.
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT k, counter_crdt_merge_agg(c) FROM par_t GROUP BY k;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE p.m IS DISTINCT FROM s.m) AS groups_differing
FROM (SELECT k, counter_crdt_merge_agg(c) AS m FROM par_t GROUP BY k) p
FULL JOIN par_serial_groups s USING (k);
RESET enable_hashagg;

-- Memory of a grouped merge with many groups: the leader's final hash
-- aggregation reads each worker's partial state of a group back and merges
-- it into its own; the state read back lives only for that row (1.3 kept
-- every one in the hash table to the end: 2.4 times the serial plan's
-- memory here).  Peak memory of the top aggregate node, parallel against
-- serial, in one run.
CREATE TABLE par_many (g bigint, k int, c counter_crdt);
INSERT INTO par_many
SELECT g, g % 4000, ('{' || md5('w' || (g % 3))::uuid || ':' || g || ':' || (g % 7) || '}')::counter_crdt
  FROM generate_series(1, 240000) g;
ANALYZE par_many;
CREATE FUNCTION par_top_memory(q text, OUT node text, OUT kb int) LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO plan;
  node := concat_ws(' ', plan -> 0 -> 'Plan' ->> 'Partial Mode', plan -> 0 -> 'Plan' ->> 'Strategy');
  kb := (plan -> 0 -> 'Plan' ->> 'Peak Memory Usage')::int;
END
$$;
SET enable_sort = off;
SET max_parallel_workers_per_gather = 0;
SELECT node, kb AS serial_kb FROM par_top_memory('SELECT k, counter_crdt_merge_agg(c) FROM par_many GROUP BY k') \gset
SELECT :'node' AS serial_node;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT node AS parallel_node, kb <= 1.5 * :serial_kb AS within_one_and_a_half,
       par_workers_launched('SELECT k, counter_crdt_merge_agg(c) FROM par_many GROUP BY k') >= 1 AS workers_ran
  FROM par_top_memory('SELECT k, counter_crdt_merge_agg(c) FROM par_many GROUP BY k');
SELECT count(*) AS groups, count(*) FILTER (WHERE p.m IS DISTINCT FROM s.m) AS groups_differing
  FROM (SELECT k, counter_crdt_merge_agg(c) AS m FROM par_many GROUP BY k) p
  FULL JOIN (SELECT k, counter_crdt_merge_agg(c) AS m FROM (SELECT * FROM par_many ORDER BY g) o GROUP BY k) s USING (k);
RESET parallel_leader_participation;
RESET enable_sort;
DROP FUNCTION par_top_memory(text);
DROP TABLE par_many;

RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
DROP FUNCTION par_workers_launched(text);
DROP TABLE par_t, par_serial_total, par_serial_groups, par_serial_live, par_serial_plus, par_serial_plus_default;
