--
-- Markings (issue 28): every function of the extension, with the
-- volatility, strictness and parallel safety that what it reads allows,
-- reviewed by hand below.  A function added or changed without a review
-- here shows up in the first query; anything that reads more than its
-- arguments (a setting, a table, the catalogs) is never IMMUTABLE.
--
CREATE TEMP TABLE reviewed (f text PRIMARY KEY, vol "char", strict boolean, par "char", reads text);
INSERT INTO reviewed VALUES
  ('counter_crdt_add(counter_crdt,bigint)', 's', false, 's', 'this server''s id (a setting) and its list of retired writers'),
  ('counter_crdt_cmp(counter_crdt,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_columns(regclass)', 's', false, 'u', 'catalogs'),
  ('counter_crdt_delete_as_tombstone()', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_difference(counter_crdt,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_digest(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_digest_agg(text,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_digest_agg_combine(internal,internal)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_digest_agg_deserial(bytea,internal)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_digest_agg_final(internal)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_digest_agg_serial(internal)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_digest_agg_trans(internal,text,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_enable_replica_merge(regclass)', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_eq(counter_crdt,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_fold(counter_crdt,uuid)', 's', false, 's', 'this server''s id (a setting)'),
  ('counter_crdt_fold(counter_crdt,uuid,uuid)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_fold_many(counter_crdt,uuid[])', 's', false, 's', 'this server''s id (a setting)'),
  ('counter_crdt_fold_pending(counter_crdt,uuid)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_fold_writer(uuid,regclass)', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_fold_writers(uuid[],regclass)', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_folds(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_forget(counter_crdt,uuid)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_forget_many(counter_crdt,uuid[])', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_forget_writer(uuid,regclass)', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_forget_writers(uuid[],regclass)', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_from_json(json)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_from_jsonb(jsonb)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_ge(counter_crdt,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_gt(counter_crdt,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_guard_writes(regclass)', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_hash(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_hash_extended(counter_crdt,bigint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_health()', 's', false, 'r', 'catalogs and tables'),
  ('counter_crdt_in(cstring)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_increment(counter_crdt,bigint,uuid)', 's', false, 's', 'this server''s list of retired writers'),
  ('counter_crdt_increment(counter_crdt,bigint,uuid,bigint)', 's', false, 's', 'this server''s list of retired writers'),
  ('counter_crdt_le(counter_crdt,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_local_guard()', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_local_rows_only()', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_lt(counter_crdt,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_merge(counter_crdt,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_merge_agg(counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_merge_agg_combine(internal,internal)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_merge_agg_deserial(bytea,internal)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_merge_agg_final(internal)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_merge_agg_serial(internal)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_merge_agg_trans(internal,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_ne(counter_crdt,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_metrics()', 's', false, 'r', 'catalogs and tables'),
  ('counter_crdt_node_id()', 's', false, 's', 'a setting and the timeline'),
  ('counter_crdt_node_id_history()', 's', true, 's', 'the timeline'),
  ('counter_crdt_out(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_pending_id(uuid)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_rack_id(text,text)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_recv(internal)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_replica_merge()', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_retired_writers_changed()', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_rewrite_counters(text,uuid[],regclass)', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_send(counter_crdt)', 's', true, 's', 'its argument and a setting (counter_crdt.binary_format)'),
  ('counter_crdt_shards(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_sortsupport(internal)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_strip(counter_crdt,uuid)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_sub(counter_crdt,bigint)', 's', false, 's', 'this server''s id (a setting) and its list of retired writers'),
  ('counter_crdt_table_metrics()', 's', false, 'r', 'catalogs and tables'),
  ('counter_crdt_to_json(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_to_jsonb(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_compare_support(internal)', 'i', true, 's', 'a planner request (and the catalogs, at plan time, as PostgreSQL''s own support functions)'),
  ('counter_crdt_write_guard()', 'v', false, 'u', 'writes tables, or a trigger'),
  ('counter_crdt_writer_report(regclass)', 's', false, 'u', 'tables, as their owners'),
  ('counter_crdt_writers(counter_crdt)', 'i', true, 's', 'its arguments only'),
  -- A counter is a number (issue 29): comparisons, casts, aggregates of values
  ('counter_crdt_value_eq(counter_crdt,smallint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(smallint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(counter_crdt,smallint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(smallint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(counter_crdt,smallint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(smallint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(counter_crdt,smallint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(smallint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(counter_crdt,smallint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(smallint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(counter_crdt,smallint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(smallint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(counter_crdt,integer)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(integer,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(counter_crdt,integer)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(integer,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(counter_crdt,integer)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(integer,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(counter_crdt,integer)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(integer,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(counter_crdt,integer)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(integer,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(counter_crdt,integer)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(integer,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(counter_crdt,bigint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(bigint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(counter_crdt,bigint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(bigint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(counter_crdt,bigint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(bigint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(counter_crdt,bigint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(bigint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(counter_crdt,bigint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(bigint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(counter_crdt,bigint)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(bigint,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(counter_crdt,numeric)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(numeric,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(double precision,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_eq(counter_crdt,double precision)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(counter_crdt,numeric)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(numeric,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(double precision,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ne(counter_crdt,double precision)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(counter_crdt,numeric)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(numeric,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(double precision,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_lt(counter_crdt,double precision)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(counter_crdt,numeric)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(numeric,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(double precision,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_le(counter_crdt,double precision)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(counter_crdt,numeric)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(numeric,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(double precision,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_gt(counter_crdt,double precision)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(counter_crdt,numeric)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(numeric,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(double precision,counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_value_ge(counter_crdt,double precision)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_to_int2(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_to_int4(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_to_numeric(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_to_float8(counter_crdt)', 'i', true, 's', 'its arguments only'),
  ('counter_crdt_sum_accum(internal,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_sum_accum_inv(internal,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_min_accum(bigint,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('counter_crdt_max_accum(bigint,counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('sum(counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('avg(counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('min(counter_crdt)', 'i', false, 's', 'its arguments only'),
  ('max(counter_crdt)', 'i', false, 's', 'its arguments only');

-- Every function of the extension as reviewed: no row.
WITH actual AS (
  SELECT p.oid::regprocedure::text AS f, p.provolatile AS vol, p.proisstrict AS strict, p.proparallel AS par
    FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
   WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
     AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt'))
SELECT coalesce(a.f, r.f) AS function, a.vol, a.strict, a.par,
       r.vol AS reviewed_vol, r.strict AS reviewed_strict, r.par AS reviewed_par
  FROM actual a FULL JOIN reviewed r ON r.f = a.f
 WHERE a.f IS NULL OR r.f IS NULL
    OR (a.vol, a.strict, a.par) IS DISTINCT FROM (r.vol, r.strict, r.par)
 ORDER BY 1;

-- What reads more than its arguments is not IMMUTABLE (a planner support
-- function is never called in a query); what writes is VOLATILE and not
-- parallel safe: no row.
SELECT f, vol, par, reads FROM reviewed
 WHERE (reads <> 'its arguments only' AND reads NOT LIKE 'a planner request%' AND vol = 'i')
    OR (reads LIKE 'writes%' AND (vol <> 'v' OR par = 's'))
 ORDER BY 1;

-- The functions that run SQL of their own have a pinned search_path.
SELECT p.oid::regprocedure AS function
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt')
   AND (p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('sql', 'plpgsql'))
        OR p.proname IN ('counter_crdt_rewrite_counters', 'counter_crdt_writer_report'))
   AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
 ORDER BY 1;
