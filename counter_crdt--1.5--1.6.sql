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
-- key differs, which sees the row as written.  Nothing here touches a user
-- table: tables set up before get it when the set-up runs on them again, and
-- counter_crdt_health() reports them (key_change_by_trigger_not_refused).
--
COMMENT ON FUNCTION @extschema@.counter_crdt_local_guard() IS
'trigger of replicated counter tables: refuses local changes of the primary key (before the update, and after it on the row as written) and TRUNCATE, which the other servers could not merge';

COMMENT ON FUNCTION @extschema@.counter_crdt_enable_replica_merge(regclass) IS
'sets a table up for multi-server replication (merge on apply, local deletes as tombstones, key changes, by the statement or by another trigger, and TRUNCATE refused) after checking that it can be merged; idempotent, and the repair of triggers that ENABLE TRIGGER ALL or ALTER TABLE changed';

COMMENT ON FUNCTION @extschema@.counter_crdt_health() IS
'one row per problem of the replication set-up of counter_crdt tables, per table with recorded own-id conflicts, and per table and subscription whose rows brought writers forgotten on this server; no rows when healthy';
