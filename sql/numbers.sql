--
-- A counter is a number (issue 29): comparisons with smallint, integer,
-- bigint and numeric on either side, casts to those and to double
-- precision, and sum, avg, min and max.  All read the value as c::bigint
-- does: the exact sum, fold records counted, NULL for a tombstone, 22003
-- outside bigint.  = between two counters stays state equality.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;
\set A '80000000-0000-0000-0000-000000000000'
\set B '7fffffff-ffff-ffff-ffff-ffffffffffff'

CREATE TABLE nt (k int PRIMARY KEY, c counter_crdt);
INSERT INTO nt VALUES
  (1, '{00000000-0000-0000-0000-00000000000a:1:5}'),
  (2, '{00000000-0000-0000-0000-00000000000a:2:-7, 00000000-0000-0000-0000-00000000000b:1:4}'),
  (3, '{}'),
  (4, 'tombstone'),
  (5, NULL),
  (6, '{00000000-0000-0000-0000-00000000000a:1:70000}'),
  (7, '{00000000-0000-0000-0000-00000000000a:1:3000000000}'),
  (8, '{00000000-0000-0000-0000-00000000000a:1:-3000000000}'),
  (9, format('{%s:4:110} folded {%s>%s:4:5:100:100}', :'B', :'A', :'B')::counter_crdt),
  -- A's late 7 after its fold: the value (117) is not the shards' sum (217)
  (10, counter_crdt_merge(counter_crdt_fold(format('{%s:5:100, %s:3:10}', :'A', :'B')::counter_crdt, :'A', :'B'),
                          format('{%s:6:107, %s:3:10}', :'A', :'B')::counter_crdt)),
  (11, '{00000000-0000-0000-0000-00000000000a:1:5, 00000000-0000-0000-0000-00000000000b:1:0}');
SELECT k, c::bigint AS value, (SELECT sum(value) FROM counter_crdt_shards(c)) AS shards_sum,
       (SELECT count(*) FROM counter_crdt_folds(c)) AS fold_records
  FROM nt ORDER BY k;

-- The operators: for each, its commutator takes the arguments swapped and
-- mirrors the comparison, its negator takes them as they are and negates
-- it; the estimators are the scalar ones.  No row when all agree.
WITH ops AS (
  SELECT o.oid, o.oprname, o.oprleft, o.oprright, o.oprcom, o.oprnegate, o.oprrest, o.oprjoin
    FROM pg_operator o JOIN pg_depend d ON d.objid = o.oid AND d.classid = 'pg_operator'::regclass
   WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt'))
SELECT o.oid::regoperator, c.oid::regoperator AS commutator, n.oid::regoperator AS negator, o.oprrest, o.oprjoin
  FROM ops o
  LEFT JOIN pg_operator c ON c.oid = o.oprcom
  LEFT JOIN pg_operator n ON n.oid = o.oprnegate
 WHERE (o.oprleft = 'counter_crdt'::regtype) <> (o.oprright = 'counter_crdt'::regtype)
   AND o.oprname IN ('=', '<>', '<', '<=', '>', '>=')
   AND (c.oid IS NULL OR n.oid IS NULL
        OR c.oprleft <> o.oprright OR c.oprright <> o.oprleft
        OR c.oprname <> (jsonb_build_object('=', '=', '<>', '<>', '<', '>', '<=', '>=', '>', '<', '>=', '<=') ->> o.oprname)
        OR n.oprleft <> o.oprleft OR n.oprright <> o.oprright
        OR n.oprname <> (jsonb_build_object('=', '<>', '<>', '=', '<', '>=', '<=', '>', '>', '<=', '>=', '<') ->> o.oprname)
        OR o.oprrest::text <> (jsonb_build_object('=', 'eqsel', '<>', 'neqsel', '<', 'scalarltsel', '<=', 'scalarlesel',
                                                  '>', 'scalargtsel', '>=', 'scalargesel') ->> o.oprname)
        OR o.oprjoin::text <> (jsonb_build_object('=', 'eqjoinsel', '<>', 'neqjoinsel', '<', 'scalarltjoinsel', '<=', 'scalarlejoinsel',
                                                  '>', 'scalargtjoinsel', '>=', 'scalargejoinsel') ->> o.oprname));
-- 6 comparisons x 5 types x 2 sides
SELECT count(*) AS number_operators
  FROM pg_operator o JOIN pg_depend d ON d.objid = o.oid AND d.classid = 'pg_operator'::regclass
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt')
   AND (o.oprleft = 'counter_crdt'::regtype) <> (o.oprright = 'counter_crdt'::regtype)
   AND o.oprname IN ('=', '<>', '<', '<=', '>', '>=');

-- A literal number picks the operator of its type.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT c = 5::smallint, c < 5, 5::bigint <= c, c >= 5.5 FROM nt;

-- Every operator, both ways, of every type, against the value read as
-- bigint and compared as numeric: a wrong result in any row shows.  The
-- planner reads c op n as c::bigint op n (their support function); op ANY
-- calls the operator's own function, so both are checked.
CREATE FUNCTION pg_temp.check_ops(typ text, ns text[])
RETURNS TABLE (op text, compared bigint, c_op_n_wrong bigint, n_op_c_wrong bigint,
               c_op_any_wrong bigint, n_op_any_wrong bigint, nulls bigint)
LANGUAGE plpgsql AS $$
DECLARE
  o text;
BEGIN
  FOREACH o IN ARRAY ARRAY['=', '<>', '<', '<=', '>', '>='] LOOP
    RETURN QUERY EXECUTE format($q$
      SELECT %1$L, count(*),
             count(*) FILTER (WHERE (c %1$s n::%2$s) IS DISTINCT FROM (c::bigint::numeric %1$s n::numeric)),
             count(*) FILTER (WHERE (n::%2$s %1$s c) IS DISTINCT FROM (n::numeric %1$s c::bigint::numeric)),
             count(*) FILTER (WHERE (c %1$s ANY (ARRAY[n::%2$s])) IS DISTINCT FROM (c::bigint::numeric %1$s n::numeric)),
             count(*) FILTER (WHERE (n::%2$s %1$s ANY (ARRAY[c])) IS DISTINCT FROM (n::numeric %1$s c::bigint::numeric)),
             count(*) FILTER (WHERE (c %1$s n::%2$s) IS NULL)
        FROM nt, unnest($1) AS u(n)$q$, o, typ) USING ns;
  END LOOP;
END
$$;
SELECT * FROM pg_temp.check_ops('smallint', '{-32768,-7,-3,0,5,6,32767}');
SELECT * FROM pg_temp.check_ops('integer', '{-2147483648,-3,0,4,5,110,70000,2147483647}');
SELECT * FROM pg_temp.check_ops('bigint', '{-9223372036854775808,-3000000000,-3,0,5,30,2999999999,3000000000,9223372036854775807}');
SELECT * FROM pg_temp.check_ops('numeric', '{-1e30,-3000000000.5,-3,-2.5,0,4.9,5,5.0,5.1,110,1e30,NaN,Infinity,-Infinity}');
-- double precision: as bigint compares with it (the value converted), so
-- the reference here is c::bigint::double precision, not numeric
CREATE FUNCTION pg_temp.check_float8_ops(ns float8[])
RETURNS TABLE (op text, compared bigint, c_op_n_wrong bigint, n_op_c_wrong bigint,
               c_op_any_wrong bigint, n_op_any_wrong bigint)
LANGUAGE plpgsql AS $$
DECLARE
  o text;
BEGIN
  FOREACH o IN ARRAY ARRAY['=', '<>', '<', '<=', '>', '>='] LOOP
    RETURN QUERY EXECUTE format($q$
      SELECT %1$L, count(*),
             count(*) FILTER (WHERE (c %1$s n) IS DISTINCT FROM (c::bigint %1$s n)),
             count(*) FILTER (WHERE (n %1$s c) IS DISTINCT FROM (n %1$s c::bigint)),
             count(*) FILTER (WHERE (c %1$s ANY (ARRAY[n])) IS DISTINCT FROM (c::bigint %1$s n)),
             count(*) FILTER (WHERE (n %1$s ANY (ARRAY[c])) IS DISTINCT FROM (n %1$s c::bigint))
        FROM nt, unnest($1) AS u(n)$q$, o) USING ns;
  END LOOP;
END
$$;
SELECT * FROM pg_temp.check_float8_ops('{-1e30,-3000000000.5,-3,-2.5,0,4.9,5,5.1,110,2999999999.5,3000000000,1e30,NaN,Infinity,-Infinity}');
-- real takes the double precision operators
SELECT k, c > 4.5::real AS gt_real, c = 5::real AS eq_real, 5.5::real > c AS real_gt
  FROM nt WHERE k IN (1, 2, 4) ORDER BY k;

-- The same, shown for a few: a tombstone and NULL compare as NULL.
SELECT k, c::bigint AS value,
       c = 5 AS "c = 5", 5 = c AS "5 = c", c <> 5 AS "c <> 5", 5 <> c AS "5 <> c",
       c < 5 AS "c < 5", 5 < c AS "5 < c", c <= 5 AS "c <= 5", 5 <= c AS "5 <= c",
       c > 5 AS "c > 5", 5 > c AS "5 > c", c >= 5 AS "c >= 5", 5 >= c AS "5 >= c"
  FROM nt WHERE k IN (1, 2, 3, 4, 5, 6) ORDER BY k;
SELECT k, c > 4::smallint AS int2, c > 4::bigint AS int8, c > 4.9 AS num, 4.9 < c AS num_left,
       c = 5.0 AS eq_num, c = 5.1 AS eq_frac, c < 'NaN'::numeric AS below_nan, c > '-Infinity'::numeric AS above_minf
  FROM nt WHERE k IN (1, 3, 4, 5) ORDER BY k;

-- In WHERE, BETWEEN (plain and symmetric), IN.
SELECT k FROM nt WHERE c > 3 ORDER BY k;
SELECT k FROM nt WHERE 3 < c ORDER BY k;
SELECT k FROM nt WHERE c BETWEEN -7 AND 5 ORDER BY k;
SELECT k FROM nt WHERE c BETWEEN SYMMETRIC 5 AND -7 ORDER BY k;
SELECT k FROM nt WHERE c NOT BETWEEN -7 AND 5 ORDER BY k;
SELECT k FROM nt WHERE c BETWEEN 2999999999.5 AND 1e10 ORDER BY k;
SELECT k FROM nt WHERE c IN (5, 0, 110) ORDER BY k;

-- The planner negates through the negator (NOT c > 3 is c <= 3), and the
-- rows are those of the comparison that is false, for each operator.
EXPLAIN (COSTS OFF) SELECT k FROM nt WHERE NOT (c > 3);
EXPLAIN (COSTS OFF) SELECT k FROM nt WHERE NOT (3::bigint <> c);
SELECT array(SELECT k FROM nt WHERE NOT (c > 3) ORDER BY k) AS not_gt,
       array(SELECT k FROM nt WHERE (c > 3) IS FALSE ORDER BY k) AS gt_false;
CREATE FUNCTION pg_temp.check_negation(typ text, n text)
RETURNS TABLE (op text, differing_rows bigint)
LANGUAGE plpgsql AS $$
DECLARE
  o text;
BEGIN
  FOREACH o IN ARRAY ARRAY['=', '<>', '<', '<=', '>', '>='] LOOP
    RETURN QUERY EXECUTE format($q$
      SELECT %1$L, count(*) FROM (
        (SELECT k FROM nt WHERE NOT (c %1$s %3$L::%2$s) EXCEPT SELECT k FROM nt WHERE (c %1$s %3$L::%2$s) IS FALSE)
        UNION ALL
        (SELECT k FROM nt WHERE (c %1$s %3$L::%2$s) IS FALSE EXCEPT SELECT k FROM nt WHERE NOT (c %1$s %3$L::%2$s))
        UNION ALL
        (SELECT k FROM nt WHERE NOT (%3$L::%2$s %1$s c) EXCEPT SELECT k FROM nt WHERE (%3$L::%2$s %1$s c) IS FALSE)
        UNION ALL
        (SELECT k FROM nt WHERE (%3$L::%2$s %1$s c) IS FALSE EXCEPT SELECT k FROM nt WHERE NOT (%3$L::%2$s %1$s c))) d$q$,
      o, typ, n);
  END LOOP;
END
$$;
SELECT typ, string_agg(op || ' ' || differing_rows, ', ') AS differing
  FROM unnest(ARRAY['smallint', 'integer', 'bigint', 'numeric']) typ, pg_temp.check_negation(typ, '5') GROUP BY typ ORDER BY typ;

-- The commutator serves a join whose counter is on the right: the hash or
-- nested loop may put either side outside, the rows are the same.
CREATE TABLE nums (n bigint);
INSERT INTO nums VALUES (-7), (0), (5), (110);
SELECT k, n FROM nt JOIN nums ON n = c ORDER BY k, n;
SELECT k, n FROM nt JOIN nums ON c = n ORDER BY k, n;
SELECT k, n FROM nt JOIN nums ON n < c WHERE k < 4 ORDER BY k, n;
SELECT k, n FROM nt JOIN nums ON c > n WHERE k < 4 ORDER BY k, n;

-- = between two counters is state equality: two states of value 5 differ.
SELECT a.c = b.c AS states_equal, a.c = 5 AND b.c = 5 AS values_equal,
       a.c::bigint = b.c::bigint AS bigint_equal
  FROM nt a, nt b WHERE a.k = 1 AND b.k = 11;
SELECT count(DISTINCT c) AS states, count(DISTINCT c::bigint) AS values FROM nt WHERE c = 5;
-- An untyped literal is still read as a counter (the other side's type).
\set VERBOSITY sqlstate
SELECT k FROM nt WHERE c = '5';
\set VERBOSITY default
SELECT k FROM nt WHERE c = '{00000000-0000-0000-0000-00000000000a:1:5}' ORDER BY k;

-- A value outside bigint cannot be read: 22003, in both directions and
-- with numeric too.
CREATE TABLE nt_over (c counter_crdt);
INSERT INTO nt_over VALUES ('{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}');
\set VERBOSITY sqlstate
SELECT c > 0 FROM nt_over;
SELECT 0 < c FROM nt_over;
SELECT c = 1e30 FROM nt_over;
SELECT c < 1e30::float8 FROM nt_over;
SELECT c::smallint FROM nt_over;
SELECT c::integer FROM nt_over;
SELECT c::numeric FROM nt_over;
SELECT c::double precision FROM nt_over;
SELECT sum(c) FROM nt_over;
SELECT max(c) FROM nt_over;
\set VERBOSITY default

-- Estimates read the column's common values and histogram through these
-- operators; a tombstone among them (the operator gives NULL) is no error.
CREATE TABLE nt_stats (c counter_crdt);
INSERT INTO nt_stats SELECT CASE WHEN g % 4 = 0 THEN 'tombstone'
                                 ELSE ('{00000000-0000-0000-0000-00000000000a:1:' || g % 10 || '}')::counter_crdt END
  FROM generate_series(1, 2000) g;
ANALYZE nt_stats;
SELECT (SELECT count(*) FROM nt_stats WHERE c = 5) AS eq_5, (SELECT count(*) FROM nt_stats WHERE c > 5) AS gt_5,
       (SELECT count(*) FROM nt_stats WHERE c <> 5) AS ne_5;
EXPLAIN (COSTS OFF) SELECT * FROM nt_stats WHERE c = 5 AND 7 >= c AND c <> 3.0;

--
-- Casts: explicit only, the value, NULL for a tombstone, 22003 out of range.
--
SELECT c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure, c.castcontext, c.castmethod
  FROM pg_cast c WHERE c.castsource = 'counter_crdt'::regtype ORDER BY c.casttarget::regtype::text;
SELECT k, c::smallint AS int2, c::integer AS int4, c::numeric AS num, c::double precision AS float8, c::bigint AS int8
  FROM nt WHERE k IN (1, 2, 3, 4, 5, 9, 10) ORDER BY k;
SELECT k, c::numeric AS num, c::double precision AS float8, CASE WHEN k = 6 THEN c::integer END AS int4
  FROM nt WHERE k IN (6, 7, 8) ORDER BY k;
SELECT pg_typeof(c::smallint), pg_typeof(c::integer), pg_typeof(c::numeric), pg_typeof(c::float8)
  FROM nt WHERE k = 1;
-- the limits of each type, and one past them
SELECT v, ('{00000000-0000-0000-0000-00000000000a:1:' || v || '}')::counter_crdt::smallint AS int2
  FROM unnest(ARRAY[32767, -32768]) v;
SELECT v, ('{00000000-0000-0000-0000-00000000000a:1:' || v || '}')::counter_crdt::integer AS int4
  FROM unnest(ARRAY[2147483647, -2147483648]) v;
\set VERBOSITY sqlstate
SELECT '{00000000-0000-0000-0000-00000000000a:1:32768}'::counter_crdt::smallint;
SELECT '{00000000-0000-0000-0000-00000000000a:1:-32769}'::counter_crdt::smallint;
SELECT '{00000000-0000-0000-0000-00000000000a:1:2147483648}'::counter_crdt::integer;
SELECT '{00000000-0000-0000-0000-00000000000a:1:-2147483649}'::counter_crdt::integer;
SELECT c::smallint FROM nt WHERE k = 6;
\set VERBOSITY default
SELECT '{00000000-0000-0000-0000-00000000000a:1:-2147483649}'::counter_crdt::integer;
-- bigint's exact value, and double precision rounded as bigint's cast rounds
SELECT c::numeric = c::bigint::numeric AS exact, c::double precision = c::bigint::double precision AS same_rounding,
       c::numeric
  FROM (VALUES ('{00000000-0000-0000-0000-00000000000a:1:9223372036854775807}'::counter_crdt),
               ('{00000000-0000-0000-0000-00000000000a:1:9007199254740993}'),
               ('{00000000-0000-0000-0000-00000000000a:1:-9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:-1}')) v(c);
-- explicit only: no assignment to a number column, no implicit cast
CREATE TABLE nt_int (i integer);
\set VERBOSITY sqlstate
INSERT INTO nt_int SELECT c FROM nt WHERE k = 1;
SELECT 1 + c FROM nt WHERE k = 1;
\set VERBOSITY default
-- c + 5 is still an increment
SELECT pg_typeof(c + 5), (c + 5)::bigint FROM nt WHERE k = 1;

--
-- Aggregates: sum and avg numeric as for bigint, min and max bigint;
-- tombstones and NULLs skipped.
--
SELECT sum(c), avg(c), min(c), max(c), count(c) AS non_null FROM nt;
SELECT sum(c::bigint), avg(c::bigint), min(c::bigint), max(c::bigint) FROM nt;
SELECT pg_typeof(sum(c)), pg_typeof(avg(c)), pg_typeof(min(c)), pg_typeof(max(c)) FROM nt;
SELECT k % 3 AS g, sum(c), avg(c), min(c), max(c) FROM nt GROUP BY 1 ORDER BY 1;
-- no rows, only NULLs, only tombstones: NULL
SELECT sum(c), avg(c), min(c), max(c) FROM nt WHERE false;
SELECT sum(c), avg(c), min(c), max(c) FROM nt WHERE k IN (4, 5);
-- beyond bigint: exact, as sum(bigint)
SELECT sum(c), avg(c), min(c), max(c)
  FROM (VALUES ('{00000000-0000-0000-0000-00000000000a:1:9223372036854775807}'::counter_crdt),
               ('{00000000-0000-0000-0000-00000000000b:1:9223372036854775807}'),
               ('{00000000-0000-0000-0000-00000000000c:1:1}')) v(c);
SELECT sum(c), avg(c), min(c), max(c)
  FROM (VALUES ('{00000000-0000-0000-0000-00000000000a:1:-9223372036854775807, 00000000-0000-0000-0000-00000000000c:1:-1}'::counter_crdt),
               ('{00000000-0000-0000-0000-00000000000b:1:-9223372036854775807, 00000000-0000-0000-0000-00000000000c:1:-1}')) v(c);
-- sum adds different counters; counter_crdt_merge_agg merges copies of one
SELECT sum(c) AS sum_of_copies, counter_crdt_merge_agg(c)::bigint AS merged
  FROM (VALUES ('{00000000-0000-0000-0000-00000000000a:1:5}'::counter_crdt),
               ('{00000000-0000-0000-0000-00000000000a:2:6}')) v(c);
-- ORDER BY c and the btree operator class are untouched by min and max
CREATE INDEX nt_c ON nt (c);
SELECT k FROM nt ORDER BY c DESC NULLS LAST LIMIT 3;
SELECT max(c), (SELECT c::bigint FROM nt WHERE c IS NOT NULL AND c <> 'tombstone' ORDER BY c DESC LIMIT 1) AS by_order FROM nt;
SELECT a.aggfnoid::regprocedure, a.aggtransfn, a.aggfinalfn, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn,
       a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn, a.aggsortop <> 0 AS has_sortop, a.aggtranstype::regtype
  FROM pg_aggregate a
 WHERE a.aggfnoid IN ('sum(counter_crdt)'::regprocedure, 'avg(counter_crdt)'::regprocedure,
                      'min(counter_crdt)'::regprocedure, 'max(counter_crdt)'::regprocedure)
 ORDER BY a.aggfnoid::regprocedure::text;

-- Window frames: the moving form takes values out (tombstones and NULLs
-- too, skipped both ways); the same as over the bigint values.
SELECT k, c::bigint AS value,
       sum(c) OVER w AS sum, avg(c) OVER w AS avg, min(c) OVER w AS min, max(c) OVER w AS max,
       sum(c) OVER w IS NOT DISTINCT FROM sum(c::bigint) OVER w AS sum_as_bigint
  FROM nt WINDOW w AS (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
 ORDER BY k;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE s IS DISTINCT FROM sb OR a IS DISTINCT FROM ab) AS differing
  FROM (SELECT sum(c) OVER w AS s, sum(c::bigint) OVER w AS sb, avg(c) OVER w AS a, avg(c::bigint) OVER w AS ab
          FROM nt_stats, generate_series(1, 3) r
        WINDOW w AS (ORDER BY ctid, r ROWS BETWEEN 5 PRECEDING AND 2 FOLLOWING)) x;

-- In parallel: partial aggregates in workers, combined; the same results.
CREATE TABLE nt_par AS
  SELECT g, CASE WHEN g % 97 = 0 THEN 'tombstone'::counter_crdt WHEN g % 89 = 0 THEN NULL
                 ELSE ('{00000000-0000-0000-0000-00000000000a:' || g || ':' || (g * 7919 % 20001 - 10000) || ', '
                       || '00000000-0000-0000-0000-00000000000b:1:' || (g % 3000000000::bigint * 3) || '}')::counter_crdt END AS c
    FROM generate_series(1, 100000) g;
ANALYZE nt_par;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE nt_serial AS
  SELECT sum(c) AS s, avg(c) AS a, min(c) AS mi, max(c) AS ma, sum(c::bigint) AS sb FROM nt_par;
SELECT s = sb AS sum_as_bigint, s, a, mi, ma FROM nt_serial;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT sum(c), avg(c), min(c), max(c) FROM nt_par;
CREATE FUNCTION pg_temp.workers_launched(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO plan;
  RETURN (SELECT max((n ->> 'Workers Launched')::int)
          FROM json_array_elements(plan -> 0 -> 'Plan' -> 'Plans') n);
END
$$;
SELECT pg_temp.workers_launched('SELECT sum(c), avg(c), min(c), max(c) FROM nt_par') >= 1 AS workers_ran;
SELECT p.s = n.s AS sum_same, p.a = n.a AS avg_same, p.mi = n.mi AS min_same, p.ma = n.ma AS max_same
  FROM (SELECT sum(c) AS s, avg(c) AS a, min(c) AS mi, max(c) AS ma FROM nt_par) p, nt_serial n;
SELECT count(*) AS groups, count(*) FILTER (WHERE s IS DISTINCT FROM sb) AS differing
  FROM (SELECT g % 5, sum(c) AS s, sum(c::bigint) AS sb FROM nt_par GROUP BY 1) x;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

DROP TABLE nt, nt_over, nt_stats, nt_int, nums, nt_par;
