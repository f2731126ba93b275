/* counter_crdt--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.6'" to load this file. \quit

--
-- Version 1.6: retiring writers hardened (issue 28).  Values of 1.0 to 1.5
-- are read and merged as they are; no stored value is rewritten.
--

--
-- Whose rights (src/sweep.c).  The sweeps and the writer report read and
-- rewrite every table as its owner, under a security-restricted operation
-- with search_path pinned, as VACUUM does; tables the caller may not
-- maintain are skipped with a WARNING (all tables) or refused with 42501
-- (one table).  A forget marks its writers forgotten only when it swept
-- every table; a one-table forget lists them as retired only.
--
CREATE OR REPLACE FUNCTION @extschema@.counter_crdt_rewrite_counters(action text, retired uuid[], only_table regclass)
RETURNS TABLE (table_name regclass, column_name name, counters bigint)
AS 'MODULE_PATHNAME', 'counter_crdt_rewrite_counters'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.counter_crdt_rewrite_counters(text, uuid[], regclass) IS
'counter_crdt_fold_many or counter_crdt_forget_many on every counter of a table (or of all tables) that it changes, each table as its owner; what the *_writer and *_writers functions run';

CREATE OR REPLACE FUNCTION @extschema@.counter_crdt_writer_report(only_table regclass DEFAULT NULL)
RETURNS TABLE (table_name regclass, column_name name, writer uuid,
	counters bigint, max_clock bigint, this_server boolean,
	folded bigint, pending bigint, candidate text, last_write timestamptz)
AS 'MODULE_PATHNAME', 'counter_crdt_writer_report'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.counter_crdt_writer_report(regclass) IS
'per counter column and writer id: counters carrying it, its highest clock, whether it is this server''s id, counters that folded it, where the fold is pending, why it may be retired, and (with track_commit_timestamp) a time it last wrote no later than (a full scan of each table, as its owner)';

-- Safe under any search_path: operators qualified, path pinned.
CREATE OR REPLACE FUNCTION @extschema@.counter_crdt_columns(only_table regclass)
RETURNS TABLE (table_name regclass, column_name name)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT c.oid::pg_catalog.regclass, a.attname
	  FROM pg_catalog.pg_attribute a
	  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid
	 WHERE a.atttypid OPERATOR(pg_catalog.=) '@extschema@.counter_crdt'::pg_catalog.regtype::pg_catalog.oid
	   AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
	   AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::"char"[])
	   AND (c.relpersistence OPERATOR(pg_catalog.<>) 't'
	        OR c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.pg_my_temp_schema())
	   AND CASE WHEN only_table IS NULL THEN NOT c.relispartition
	            ELSE c.oid OPERATOR(pg_catalog.=) only_table::pg_catalog.oid END
	 ORDER BY c.oid::pg_catalog.regclass::pg_catalog.text, a.attnum
$$;

ALTER FUNCTION @extschema@.counter_crdt_fold_writer(uuid, regclass) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.counter_crdt_fold_writers(uuid[], regclass) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.counter_crdt_forget_writer(uuid, regclass) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.counter_crdt_forget_writers(uuid[], regclass) SET search_path = pg_catalog, pg_temp;

-- Increments under a given writer read this server's list of retired
-- writers: stable, so that no plan keeps a result from before a retirement.
ALTER FUNCTION @extschema@.counter_crdt_increment(@extschema@.counter_crdt, bigint, uuid) STABLE;
ALTER FUNCTION @extschema@.counter_crdt_increment(@extschema@.counter_crdt, bigint, uuid, bigint) STABLE;

-- The extension's own tables keep to their server under TRUNCATE too: a
-- local TRUNCATE is refused (it would be applied on every subscriber).
CREATE TRIGGER counter_crdt_no_truncate
  BEFORE TRUNCATE ON @extschema@.counter_crdt_writer_conflicts
  FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.counter_crdt_local_rows_only();
CREATE TRIGGER counter_crdt_no_truncate
  BEFORE TRUNCATE ON @extschema@.counter_crdt_retired_writers
  FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.counter_crdt_local_rows_only();

--
-- Late copies of forgotten writers (issue 28, item 6): the merge trigger
-- records the applied rows from which it drops the shards of writers whose
-- folds were forgotten on this server, and counter_crdt_health() reports
-- them (forgotten_writer_dropped), naming the subscription that brought
-- them.  Such a shard comes from a copy that missed the fold (a server
-- started from a backup taken before it): this server's totals stay exact,
-- the sender's count the writer twice.
--
-- A table of its own rather than more columns of
-- counter_crdt_writer_conflicts: other facts (a peer's writer ids, not this
-- server's), another remedy, and kept by pg_dump, which the conflicts are
-- not (they describe this server's writer id, which a restore into a new
-- cluster does not keep; these describe the peers' rows, which stay wrong
-- until their servers are repaired).  Written like the conflicts: by the
-- merge trigger in replication apply only, a direct heap insert (no index,
-- no privilege of the subscription's owner needed); never applied from
-- another server (its REPLICA trigger drops the rows a publication of all
-- tables brings); everyone may read what health reports (not the keys,
-- which are data of the tables); the extension's owner reads it whole and
-- clears it.
CREATE TABLE @extschema@.counter_crdt_dropped_writers (
	recorded_at timestamptz NOT NULL,
	table_name regclass NOT NULL,
	column_name name NOT NULL,
	key text NOT NULL,
	writers uuid[] NOT NULL,
	origin text,
	subscription name
);
ALTER TABLE @extschema@.counter_crdt_dropped_writers REPLICA IDENTITY FULL;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.counter_crdt_dropped_writers', '');
REVOKE ALL ON @extschema@.counter_crdt_dropped_writers FROM PUBLIC;
GRANT SELECT (recorded_at, table_name, column_name, writers, origin, subscription)
  ON @extschema@.counter_crdt_dropped_writers TO PUBLIC;

DO $$
BEGIN
	EXECUTE pg_catalog.format('GRANT SELECT, DELETE ON TABLE %s TO %s',
		'@extschema@.counter_crdt_dropped_writers'::pg_catalog.regclass,
		(SELECT e.extowner::pg_catalog.regrole FROM pg_catalog.pg_extension e
		  WHERE e.extname OPERATOR(pg_catalog.=) 'counter_crdt'));
END
$$;

CREATE TRIGGER counter_crdt_local_rows_only
  BEFORE INSERT OR UPDATE OR DELETE ON @extschema@.counter_crdt_dropped_writers
  FOR EACH ROW EXECUTE FUNCTION @extschema@.counter_crdt_local_rows_only();
ALTER TABLE @extschema@.counter_crdt_dropped_writers
  ENABLE REPLICA TRIGGER counter_crdt_local_rows_only;
CREATE TRIGGER counter_crdt_no_truncate
  BEFORE TRUNCATE ON @extschema@.counter_crdt_dropped_writers
  FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.counter_crdt_local_rows_only();

COMMENT ON TABLE @extschema@.counter_crdt_dropped_writers IS
'replicated rows from which this server dropped shards of writers whose folds were forgotten here (copies from before the fold): the subscription or replication origin that applied them, the writers, the table, column and key; written only by replication apply, never applied from another server, cleared by the extension''s owner';

COMMENT ON FUNCTION @extschema@.counter_crdt_local_rows_only() IS
'trigger of counter_crdt_writer_conflicts, counter_crdt_retired_writers and counter_crdt_dropped_writers: rows that replication applies (another server''s records) are dropped (REPLICA, each row), and a local TRUNCATE is refused';

--
-- The key guard checks the key BEFORE UPDATE OF its columns, and BEFORE
-- triggers fire in name order: a trigger of the table's owner named after it
-- could change the key unseen.  Since 1.6 counter_crdt_enable_replica_merge()
-- also makes an AFTER UPDATE trigger of counter_crdt_local_guard() WHEN the
-- key differs, which sees the row as written, and on a partitioned table a key
-- guard that fires for every UPDATE, so that the delete trigger refuses the
-- row move such a trigger makes.  Nothing here touches a user
-- table: tables set up before get it when the set-up runs on them again, and
-- counter_crdt_health() reports them (key_change_by_trigger_not_refused).
--
COMMENT ON FUNCTION @extschema@.counter_crdt_local_guard() IS
'trigger of replicated counter tables: refuses local changes of the primary key (before the update, and after it on the row as written) and TRUNCATE, which the other servers could not merge';

COMMENT ON FUNCTION @extschema@.counter_crdt_enable_replica_merge(regclass) IS
'sets a table up for multi-server replication (merge on apply, local deletes as tombstones, key changes, by the statement or by another trigger, and TRUNCATE refused) after checking that it can be merged; idempotent, and the repair of triggers that ENABLE TRIGGER ALL or ALTER TABLE changed';

COMMENT ON FUNCTION @extschema@.counter_crdt_health() IS
'one row per problem of the replication set-up of counter_crdt tables, per table with recorded own-id conflicts, and per table and subscription whose rows brought writers forgotten on this server; no rows when healthy';

--
-- A counter is a number (issue 29).  Its value, as c::bigint reads it (the
-- exact sum, fold records counted; NULL for a tombstone; 22003 outside
-- bigint), compares with numbers.  = and <> between two counters stay state
-- equality (the hash and btree operator classes); between a counter and a
-- number they compare values.  Casts to numbers stay explicit: an implicit
-- one would make c + 5 ambiguous.
--

--
-- Comparisons (src/compare_numbers.c): c op n and n op c for =, <>, <, <=,
-- >, >= with n smallint, integer, bigint, numeric or double precision; NULL
-- when c is a tombstone.  Commutators and negators are declared, so the
-- planner may flip (3 < c) and negate (NOT c > 3).  The estimators are the
-- scalar ones: they read the column's most common values and its histogram
-- (of states in the counters' order, which is by value first) through these
-- operators.  Where the column has an index on c::bigint, their support
-- function has the planner read c op n as c::bigint op n (c::numeric,
-- c::double precision op n for those, with an index on that), the same
-- answer, so that the index serves it (doc/numbers.md).
--

CREATE FUNCTION @extschema@.counter_crdt_value_compare_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_value_compare_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.counter_crdt_value_compare_support(internal) IS
'planner support of the comparisons of counters with numbers: c op n is planned as c::bigint op n where an index on c::bigint can serve it';

-- with smallint
CREATE FUNCTION @extschema@.counter_crdt_value_eq(c @extschema@.counter_crdt, n smallint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_eq_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = smallint,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(@extschema@.counter_crdt, smallint) IS
'the value of a counter = a smallint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.counter_crdt, smallint) IS
'the value of a counter = a smallint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_eq(n smallint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int2_eq_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = smallint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(smallint, @extschema@.counter_crdt) IS
'a smallint = the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (smallint, @extschema@.counter_crdt) IS
'a smallint = the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(c @extschema@.counter_crdt, n smallint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ne_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = smallint,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(@extschema@.counter_crdt, smallint) IS
'the value of a counter <> a smallint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.counter_crdt, smallint) IS
'the value of a counter <> a smallint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(n smallint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int2_ne_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = smallint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(smallint, @extschema@.counter_crdt) IS
'a smallint <> the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (smallint, @extschema@.counter_crdt) IS
'a smallint <> the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(c @extschema@.counter_crdt, n smallint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_lt_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = @extschema@.counter_crdt, RIGHTARG = smallint,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(@extschema@.counter_crdt, smallint) IS
'the value of a counter < a smallint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (@extschema@.counter_crdt, smallint) IS
'the value of a counter < a smallint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(n smallint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int2_lt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = smallint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(smallint, @extschema@.counter_crdt) IS
'a smallint < the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (smallint, @extschema@.counter_crdt) IS
'a smallint < the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(c @extschema@.counter_crdt, n smallint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_le_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = smallint,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(@extschema@.counter_crdt, smallint) IS
'the value of a counter <= a smallint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.counter_crdt, smallint) IS
'the value of a counter <= a smallint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(n smallint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int2_le_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = smallint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(smallint, @extschema@.counter_crdt) IS
'a smallint <= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (smallint, @extschema@.counter_crdt) IS
'a smallint <= the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(c @extschema@.counter_crdt, n smallint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_gt_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = smallint,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(@extschema@.counter_crdt, smallint) IS
'the value of a counter > a smallint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.counter_crdt, smallint) IS
'the value of a counter > a smallint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(n smallint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int2_gt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = smallint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(smallint, @extschema@.counter_crdt) IS
'a smallint > the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (smallint, @extschema@.counter_crdt) IS
'a smallint > the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(c @extschema@.counter_crdt, n smallint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ge_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = smallint,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(@extschema@.counter_crdt, smallint) IS
'the value of a counter >= a smallint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.counter_crdt, smallint) IS
'the value of a counter >= a smallint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(n smallint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int2_ge_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = smallint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(smallint, @extschema@.counter_crdt) IS
'a smallint >= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (smallint, @extschema@.counter_crdt) IS
'a smallint >= the value of a counter (NULL for a tombstone)';

-- with integer
CREATE FUNCTION @extschema@.counter_crdt_value_eq(c @extschema@.counter_crdt, n integer) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_eq_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = integer,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(@extschema@.counter_crdt, integer) IS
'the value of a counter = a integer (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.counter_crdt, integer) IS
'the value of a counter = a integer (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_eq(n integer, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int4_eq_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = integer, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(integer, @extschema@.counter_crdt) IS
'a integer = the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (integer, @extschema@.counter_crdt) IS
'a integer = the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(c @extschema@.counter_crdt, n integer) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ne_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = integer,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(@extschema@.counter_crdt, integer) IS
'the value of a counter <> a integer (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.counter_crdt, integer) IS
'the value of a counter <> a integer (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(n integer, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int4_ne_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = integer, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(integer, @extschema@.counter_crdt) IS
'a integer <> the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (integer, @extschema@.counter_crdt) IS
'a integer <> the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(c @extschema@.counter_crdt, n integer) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_lt_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = @extschema@.counter_crdt, RIGHTARG = integer,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(@extschema@.counter_crdt, integer) IS
'the value of a counter < a integer (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (@extschema@.counter_crdt, integer) IS
'the value of a counter < a integer (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(n integer, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int4_lt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = integer, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(integer, @extschema@.counter_crdt) IS
'a integer < the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (integer, @extschema@.counter_crdt) IS
'a integer < the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(c @extschema@.counter_crdt, n integer) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_le_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = integer,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(@extschema@.counter_crdt, integer) IS
'the value of a counter <= a integer (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.counter_crdt, integer) IS
'the value of a counter <= a integer (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(n integer, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int4_le_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = integer, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(integer, @extschema@.counter_crdt) IS
'a integer <= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (integer, @extschema@.counter_crdt) IS
'a integer <= the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(c @extschema@.counter_crdt, n integer) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_gt_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = integer,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(@extschema@.counter_crdt, integer) IS
'the value of a counter > a integer (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.counter_crdt, integer) IS
'the value of a counter > a integer (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(n integer, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int4_gt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = integer, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(integer, @extschema@.counter_crdt) IS
'a integer > the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (integer, @extschema@.counter_crdt) IS
'a integer > the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(c @extschema@.counter_crdt, n integer) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ge_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = integer,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(@extschema@.counter_crdt, integer) IS
'the value of a counter >= a integer (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.counter_crdt, integer) IS
'the value of a counter >= a integer (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(n integer, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int4_ge_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = integer, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(integer, @extschema@.counter_crdt) IS
'a integer >= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (integer, @extschema@.counter_crdt) IS
'a integer >= the value of a counter (NULL for a tombstone)';

-- with bigint
CREATE FUNCTION @extschema@.counter_crdt_value_eq(c @extschema@.counter_crdt, n bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_eq_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = bigint,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(@extschema@.counter_crdt, bigint) IS
'the value of a counter = a bigint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.counter_crdt, bigint) IS
'the value of a counter = a bigint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_eq(n bigint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int8_eq_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = bigint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(bigint, @extschema@.counter_crdt) IS
'a bigint = the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (bigint, @extschema@.counter_crdt) IS
'a bigint = the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(c @extschema@.counter_crdt, n bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ne_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = bigint,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(@extschema@.counter_crdt, bigint) IS
'the value of a counter <> a bigint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.counter_crdt, bigint) IS
'the value of a counter <> a bigint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(n bigint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int8_ne_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = bigint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(bigint, @extschema@.counter_crdt) IS
'a bigint <> the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (bigint, @extschema@.counter_crdt) IS
'a bigint <> the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(c @extschema@.counter_crdt, n bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_lt_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = @extschema@.counter_crdt, RIGHTARG = bigint,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(@extschema@.counter_crdt, bigint) IS
'the value of a counter < a bigint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (@extschema@.counter_crdt, bigint) IS
'the value of a counter < a bigint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(n bigint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int8_lt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = bigint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(bigint, @extschema@.counter_crdt) IS
'a bigint < the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (bigint, @extschema@.counter_crdt) IS
'a bigint < the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(c @extschema@.counter_crdt, n bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_le_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = bigint,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(@extschema@.counter_crdt, bigint) IS
'the value of a counter <= a bigint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.counter_crdt, bigint) IS
'the value of a counter <= a bigint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(n bigint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int8_le_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = bigint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(bigint, @extschema@.counter_crdt) IS
'a bigint <= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (bigint, @extschema@.counter_crdt) IS
'a bigint <= the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(c @extschema@.counter_crdt, n bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_gt_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = bigint,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(@extschema@.counter_crdt, bigint) IS
'the value of a counter > a bigint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.counter_crdt, bigint) IS
'the value of a counter > a bigint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(n bigint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int8_gt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = bigint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(bigint, @extschema@.counter_crdt) IS
'a bigint > the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (bigint, @extschema@.counter_crdt) IS
'a bigint > the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(c @extschema@.counter_crdt, n bigint) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ge_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = bigint,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(@extschema@.counter_crdt, bigint) IS
'the value of a counter >= a bigint (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.counter_crdt, bigint) IS
'the value of a counter >= a bigint (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(n bigint, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_int8_ge_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = bigint, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(bigint, @extschema@.counter_crdt) IS
'a bigint >= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (bigint, @extschema@.counter_crdt) IS
'a bigint >= the value of a counter (NULL for a tombstone)';

-- with numeric
CREATE FUNCTION @extschema@.counter_crdt_value_eq(c @extschema@.counter_crdt, n numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_eq_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = numeric,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(@extschema@.counter_crdt, numeric) IS
'the value of a counter = a numeric (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.counter_crdt, numeric) IS
'the value of a counter = a numeric (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_eq(n numeric, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_numeric_eq_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = numeric, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(numeric, @extschema@.counter_crdt) IS
'a numeric = the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (numeric, @extschema@.counter_crdt) IS
'a numeric = the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(c @extschema@.counter_crdt, n numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ne_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = numeric,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(@extschema@.counter_crdt, numeric) IS
'the value of a counter <> a numeric (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.counter_crdt, numeric) IS
'the value of a counter <> a numeric (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(n numeric, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_numeric_ne_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = numeric, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(numeric, @extschema@.counter_crdt) IS
'a numeric <> the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (numeric, @extschema@.counter_crdt) IS
'a numeric <> the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(c @extschema@.counter_crdt, n numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_lt_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = @extschema@.counter_crdt, RIGHTARG = numeric,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(@extschema@.counter_crdt, numeric) IS
'the value of a counter < a numeric (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (@extschema@.counter_crdt, numeric) IS
'the value of a counter < a numeric (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(n numeric, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_numeric_lt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = numeric, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(numeric, @extschema@.counter_crdt) IS
'a numeric < the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (numeric, @extschema@.counter_crdt) IS
'a numeric < the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(c @extschema@.counter_crdt, n numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_le_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = numeric,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(@extschema@.counter_crdt, numeric) IS
'the value of a counter <= a numeric (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.counter_crdt, numeric) IS
'the value of a counter <= a numeric (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(n numeric, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_numeric_le_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = numeric, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(numeric, @extschema@.counter_crdt) IS
'a numeric <= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (numeric, @extschema@.counter_crdt) IS
'a numeric <= the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(c @extschema@.counter_crdt, n numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_gt_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = numeric,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(@extschema@.counter_crdt, numeric) IS
'the value of a counter > a numeric (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.counter_crdt, numeric) IS
'the value of a counter > a numeric (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(n numeric, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_numeric_gt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = numeric, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(numeric, @extschema@.counter_crdt) IS
'a numeric > the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (numeric, @extschema@.counter_crdt) IS
'a numeric > the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(c @extschema@.counter_crdt, n numeric) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ge_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = numeric,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(@extschema@.counter_crdt, numeric) IS
'the value of a counter >= a numeric (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.counter_crdt, numeric) IS
'the value of a counter >= a numeric (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(n numeric, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_numeric_ge_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = numeric, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(numeric, @extschema@.counter_crdt) IS
'a numeric >= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (numeric, @extschema@.counter_crdt) IS
'a numeric >= the value of a counter (NULL for a tombstone)';

-- with double precision (float4 arguments too, by its implicit cast)
CREATE FUNCTION @extschema@.counter_crdt_value_eq(c @extschema@.counter_crdt, n double precision) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_eq_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = double precision,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(@extschema@.counter_crdt, double precision) IS
'the value of a counter = a double precision (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.counter_crdt, double precision) IS
'the value of a counter = a double precision (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_eq(n double precision, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_float8_eq_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.= (LEFTARG = double precision, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel, JOIN = pg_catalog.eqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_eq(double precision, @extschema@.counter_crdt) IS
'a double precision = the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.= (double precision, @extschema@.counter_crdt) IS
'a double precision = the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(c @extschema@.counter_crdt, n double precision) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ne_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = double precision,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(@extschema@.counter_crdt, double precision) IS
'the value of a counter <> a double precision (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.counter_crdt, double precision) IS
'the value of a counter <> a double precision (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ne(n double precision, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_float8_ne_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<> (LEFTARG = double precision, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel, JOIN = pg_catalog.neqjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ne(double precision, @extschema@.counter_crdt) IS
'a double precision <> the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<> (double precision, @extschema@.counter_crdt) IS
'a double precision <> the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(c @extschema@.counter_crdt, n double precision) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_lt_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = @extschema@.counter_crdt, RIGHTARG = double precision,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(@extschema@.counter_crdt, double precision) IS
'the value of a counter < a double precision (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (@extschema@.counter_crdt, double precision) IS
'the value of a counter < a double precision (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_lt(n double precision, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_float8_lt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.< (LEFTARG = double precision, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel, JOIN = pg_catalog.scalarltjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_lt(double precision, @extschema@.counter_crdt) IS
'a double precision < the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.< (double precision, @extschema@.counter_crdt) IS
'a double precision < the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(c @extschema@.counter_crdt, n double precision) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_le_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = double precision,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(@extschema@.counter_crdt, double precision) IS
'the value of a counter <= a double precision (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.counter_crdt, double precision) IS
'the value of a counter <= a double precision (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_le(n double precision, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_float8_le_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.<= (LEFTARG = double precision, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel, JOIN = pg_catalog.scalarlejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_le(double precision, @extschema@.counter_crdt) IS
'a double precision <= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.<= (double precision, @extschema@.counter_crdt) IS
'a double precision <= the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(c @extschema@.counter_crdt, n double precision) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_gt_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = @extschema@.counter_crdt, RIGHTARG = double precision,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(@extschema@.counter_crdt, double precision) IS
'the value of a counter > a double precision (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.counter_crdt, double precision) IS
'the value of a counter > a double precision (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_gt(n double precision, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_float8_gt_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.> (LEFTARG = double precision, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel, JOIN = pg_catalog.scalargtjoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_gt(double precision, @extschema@.counter_crdt) IS
'a double precision > the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.> (double precision, @extschema@.counter_crdt) IS
'a double precision > the value of a counter (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(c @extschema@.counter_crdt, n double precision) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_value_ge_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = @extschema@.counter_crdt, RIGHTARG = double precision,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(@extschema@.counter_crdt, double precision) IS
'the value of a counter >= a double precision (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.counter_crdt, double precision) IS
'the value of a counter >= a double precision (NULL for a tombstone)';
CREATE FUNCTION @extschema@.counter_crdt_value_ge(n double precision, c @extschema@.counter_crdt) RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_float8_ge_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE SUPPORT @extschema@.counter_crdt_value_compare_support;
CREATE OPERATOR @extschema@.>= (LEFTARG = double precision, RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_value_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel, JOIN = pg_catalog.scalargejoinsel);
COMMENT ON FUNCTION @extschema@.counter_crdt_value_ge(double precision, @extschema@.counter_crdt) IS
'a double precision >= the value of a counter (NULL for a tombstone)';
COMMENT ON OPERATOR @extschema@.>= (double precision, @extschema@.counter_crdt) IS
'a double precision >= the value of a counter (NULL for a tombstone)';

--
-- Casts to the other numbers, explicit as the one to bigint is (src/value.c):
-- the value, NULL for a tombstone, 22003 where it does not fit.
--
CREATE FUNCTION @extschema@.counter_crdt_to_int2(c @extschema@.counter_crdt) RETURNS smallint
AS 'MODULE_PATHNAME', 'counter_crdt_to_int2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.counter_crdt_to_int4(c @extschema@.counter_crdt) RETURNS integer
AS 'MODULE_PATHNAME', 'counter_crdt_to_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.counter_crdt_to_numeric(c @extschema@.counter_crdt) RETURNS numeric
AS 'MODULE_PATHNAME', 'counter_crdt_to_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.counter_crdt_to_float8(c @extschema@.counter_crdt) RETURNS double precision
AS 'MODULE_PATHNAME', 'counter_crdt_to_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (@extschema@.counter_crdt AS smallint)
	WITH FUNCTION @extschema@.counter_crdt_to_int2(@extschema@.counter_crdt);
CREATE CAST (@extschema@.counter_crdt AS integer)
	WITH FUNCTION @extschema@.counter_crdt_to_int4(@extschema@.counter_crdt);
CREATE CAST (@extschema@.counter_crdt AS numeric)
	WITH FUNCTION @extschema@.counter_crdt_to_numeric(@extschema@.counter_crdt);
CREATE CAST (@extschema@.counter_crdt AS double precision)
	WITH FUNCTION @extschema@.counter_crdt_to_float8(@extschema@.counter_crdt);

COMMENT ON FUNCTION @extschema@.counter_crdt_to_int2(@extschema@.counter_crdt) IS
'the value of a counter as smallint: NULL for a tombstone, 22003 outside smallint';
COMMENT ON FUNCTION @extschema@.counter_crdt_to_int4(@extschema@.counter_crdt) IS
'the value of a counter as integer: NULL for a tombstone, 22003 outside integer';
COMMENT ON FUNCTION @extschema@.counter_crdt_to_numeric(@extschema@.counter_crdt) IS
'the value of a counter as numeric: NULL for a tombstone';
COMMENT ON FUNCTION @extschema@.counter_crdt_to_float8(@extschema@.counter_crdt) IS
'the value of a counter as double precision, rounded as bigint::double precision is: NULL for a tombstone';
COMMENT ON CAST (@extschema@.counter_crdt AS smallint) IS
'the value (explicit only): counter_crdt_to_int2';
COMMENT ON CAST (@extschema@.counter_crdt AS integer) IS
'the value (explicit only): counter_crdt_to_int4';
COMMENT ON CAST (@extschema@.counter_crdt AS numeric) IS
'the value (explicit only): counter_crdt_to_numeric';
COMMENT ON CAST (@extschema@.counter_crdt AS double precision) IS
'the value (explicit only): counter_crdt_to_float8';

--
-- Aggregates of values (src/value_aggregates.c): sum(c) and avg(c) as
-- sum(bigint) and avg(bigint) (numeric, exact), on PostgreSQL's own state of
-- those (combined, passed between parallel workers and finished by its
-- functions; a moving window frame takes values out with the inverse);
-- min(c) and max(c) bigint, plain aggregates of the value, not sort-operator
-- ones (ORDER BY c orders states, by value first).  Tombstones and NULLs are
-- skipped.  sum adds different counters' values; counter_crdt_merge_agg
-- merges copies of one counter.
--
CREATE FUNCTION @extschema@.counter_crdt_sum_accum(internal, @extschema@.counter_crdt) RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_sum_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.counter_crdt_sum_accum_inv(internal, @extschema@.counter_crdt) RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_sum_accum_inv' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.counter_crdt_min_accum(bigint, @extschema@.counter_crdt) RETURNS bigint
AS 'MODULE_PATHNAME', 'counter_crdt_min_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.counter_crdt_max_accum(bigint, @extschema@.counter_crdt) RETURNS bigint
AS 'MODULE_PATHNAME', 'counter_crdt_max_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.sum(@extschema@.counter_crdt) (
	SFUNC = @extschema@.counter_crdt_sum_accum,
	STYPE = internal,
	SSPACE = 48,
	FINALFUNC = pg_catalog.numeric_poly_sum,
	COMBINEFUNC = pg_catalog.int8_avg_combine,
	SERIALFUNC = pg_catalog.int8_avg_serialize,
	DESERIALFUNC = pg_catalog.int8_avg_deserialize,
	MSFUNC = @extschema@.counter_crdt_sum_accum,
	MINVFUNC = @extschema@.counter_crdt_sum_accum_inv,
	MSTYPE = internal,
	MSSPACE = 48,
	MFINALFUNC = pg_catalog.numeric_poly_sum,
	PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.avg(@extschema@.counter_crdt) (
	SFUNC = @extschema@.counter_crdt_sum_accum,
	STYPE = internal,
	SSPACE = 48,
	FINALFUNC = pg_catalog.numeric_poly_avg,
	COMBINEFUNC = pg_catalog.int8_avg_combine,
	SERIALFUNC = pg_catalog.int8_avg_serialize,
	DESERIALFUNC = pg_catalog.int8_avg_deserialize,
	MSFUNC = @extschema@.counter_crdt_sum_accum,
	MINVFUNC = @extschema@.counter_crdt_sum_accum_inv,
	MSTYPE = internal,
	MSSPACE = 48,
	MFINALFUNC = pg_catalog.numeric_poly_avg,
	PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.min(@extschema@.counter_crdt) (
	SFUNC = @extschema@.counter_crdt_min_accum,
	STYPE = bigint,
	COMBINEFUNC = pg_catalog.int8smaller,
	PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.max(@extschema@.counter_crdt) (
	SFUNC = @extschema@.counter_crdt_max_accum,
	STYPE = bigint,
	COMBINEFUNC = pg_catalog.int8larger,
	PARALLEL = SAFE
);

COMMENT ON FUNCTION @extschema@.counter_crdt_sum_accum(internal, @extschema@.counter_crdt) IS
'transition function of sum(counter_crdt) and avg(counter_crdt): int8_avg_accum of the value';
COMMENT ON FUNCTION @extschema@.counter_crdt_sum_accum_inv(internal, @extschema@.counter_crdt) IS
'inverse moving transition function of sum(counter_crdt) and avg(counter_crdt): int8_avg_accum_inv of the value';
COMMENT ON FUNCTION @extschema@.counter_crdt_min_accum(bigint, @extschema@.counter_crdt) IS
'transition function of min(counter_crdt): the least value so far';
COMMENT ON FUNCTION @extschema@.counter_crdt_max_accum(bigint, @extschema@.counter_crdt) IS
'transition function of max(counter_crdt): the greatest value so far';
COMMENT ON AGGREGATE @extschema@.sum(@extschema@.counter_crdt) IS
'sum of the values of counters, as numeric (exact, as sum(bigint)); tombstones and NULLs skipped; adds different counters (counter_crdt_merge_agg merges copies of one)';
COMMENT ON AGGREGATE @extschema@.avg(@extschema@.counter_crdt) IS
'average of the values of counters, as numeric (as avg(bigint)); tombstones and NULLs skipped';
COMMENT ON AGGREGATE @extschema@.min(@extschema@.counter_crdt) IS
'least value of counters, as bigint; tombstones and NULLs skipped';
COMMENT ON AGGREGATE @extschema@.max(@extschema@.counter_crdt) IS
'greatest value of counters, as bigint; tombstones and NULLs skipped';
