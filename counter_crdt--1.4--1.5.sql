/* counter_crdt--1.4--1.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.5'" to load this file. \quit

--
-- Version 1.5: retiring writers (issue 24).  A retired writer's count is
-- folded into a live writer's shard; fold records in the value keep every
-- total exact whatever copy arrives late, and are forgotten once the fold
-- is finished everywhere.  doc/retiring-writers.md has the steps.  Values
-- of 1.0 to 1.4 are read and merged as they are; a value gets records only
-- when a fold touches it.
--

-- The fold of one counter, run as a leader update inside an UPDATE: the
-- target is this server's writer id (counter_crdt_node_id()), or the given
-- one for writers that are not servers.  Stable: the default target is a
-- setting.  Not strict: a NULL counter stays NULL.
CREATE FUNCTION @extschema@.counter_crdt_fold(c @extschema@.counter_crdt, retired uuid)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_fold'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_fold(c @extschema@.counter_crdt, retired uuid, target uuid)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_fold'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_forget(c @extschema@.counter_crdt, retired uuid)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_forget'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_strip(c @extschema@.counter_crdt, retired uuid)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_strip'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_fold_pending(c @extschema@.counter_crdt, retired uuid)
RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_fold_pending'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_folds(c @extschema@.counter_crdt,
	OUT retired uuid, OUT target uuid, OUT tclock bigint, OUT aclock bigint,
	OUT avalue bigint, OUT absorbed bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'counter_crdt_folds'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 2;

-- Many retired writers at once: one new value for them all.
CREATE FUNCTION @extschema@.counter_crdt_fold_many(c @extschema@.counter_crdt, retired uuid[])
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_fold_many'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_forget_many(c @extschema@.counter_crdt, retired uuid[])
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_forget_many'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.counter_crdt_fold_many(@extschema@.counter_crdt, uuid[]) IS
'counter_crdt_fold for each retired writer in turn, into this server''s writer id, as one new value';
COMMENT ON FUNCTION @extschema@.counter_crdt_forget_many(@extschema@.counter_crdt, uuid[]) IS
'counter_crdt_forget for every retired writer, in an order that lets them all go; an error when one cannot';

COMMENT ON FUNCTION @extschema@.counter_crdt_fold(@extschema@.counter_crdt, uuid) IS
'the counter with the retired writer''s count moved into this server''s shard (a leader update: run it in an UPDATE, on this server only)';
COMMENT ON FUNCTION @extschema@.counter_crdt_fold(@extschema@.counter_crdt, uuid, uuid) IS
'the counter with the retired writer''s count moved into the target writer''s shard (run only where the target writes)';
COMMENT ON FUNCTION @extschema@.counter_crdt_forget(@extschema@.counter_crdt, uuid) IS
'the counter without the records of a finished fold of the retired writer; an error while the fold is not finished';
COMMENT ON FUNCTION @extschema@.counter_crdt_strip(@extschema@.counter_crdt, uuid) IS
'the counter without anything of the retired writer: for a copy from before a fold that was forgotten since';
COMMENT ON FUNCTION @extschema@.counter_crdt_fold_pending(@extschema@.counter_crdt, uuid) IS
'whether the counter still holds a shard of the retired writer, or a count of it that no live writer holds';
COMMENT ON FUNCTION @extschema@.counter_crdt_folds(@extschema@.counter_crdt) IS
'the fold records of the counter: which retired writer''s count which target holds';

-- The counter columns of tables (partitioned tables rather than their
-- partitions, whose rows an UPDATE of the parent reaches; no foreign
-- tables: a fold runs on the server that holds the rows; no temporary
-- tables of other sessions), or of one table.
CREATE FUNCTION @extschema@.counter_crdt_columns(only_table regclass)
RETURNS TABLE (table_name regclass, column_name name)
LANGUAGE sql STABLE
AS $$
	SELECT c.oid::pg_catalog.regclass, a.attname
	  FROM pg_catalog.pg_attribute a
	  JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
	 WHERE a.atttypid = '@extschema@.counter_crdt'::pg_catalog.regtype
	   AND a.attnum > 0 AND NOT a.attisdropped
	   AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p}'::"char"[])
	   AND (c.relpersistence OPERATOR(pg_catalog.<>) 't'
	        OR c.relnamespace OPERATOR(pg_catalog.=) pg_catalog.pg_my_temp_schema())
	   AND CASE WHEN only_table IS NULL THEN NOT c.relispartition
	            ELSE c.oid OPERATOR(pg_catalog.=) only_table END
	 ORDER BY c.oid::pg_catalog.regclass::pg_catalog.text, a.attnum
$$;

COMMENT ON FUNCTION @extschema@.counter_crdt_columns(regclass) IS
'the counter_crdt columns of every table (NULL) or of one table';

-- This server's list of retired writers (src/retired.c): an increment under
-- a listed id is refused, and the merge trigger drops from every replicated
-- value the shards and records of the listed ids whose folds were forgotten
-- here (forgotten_at set).  counter_crdt_fold_writers() and
-- counter_crdt_forget_writers() add the ids they retire; the extension's
-- owner may add and remove rows.  Local to each server like the conflicts
-- table: rows that replication applies are dropped.  pg_dump keeps its rows.
CREATE TABLE @extschema@.counter_crdt_retired_writers (
	writer uuid PRIMARY KEY,
	retired_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	forgotten_at timestamptz
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.counter_crdt_retired_writers', '');
REVOKE ALL ON @extschema@.counter_crdt_retired_writers FROM PUBLIC;
GRANT SELECT ON @extschema@.counter_crdt_retired_writers TO PUBLIC;

DO $$
BEGIN
	EXECUTE pg_catalog.format('GRANT SELECT, INSERT, UPDATE, DELETE, TRUNCATE ON TABLE %s TO %s',
		'@extschema@.counter_crdt_retired_writers'::pg_catalog.regclass,
		(SELECT e.extowner::pg_catalog.regrole FROM pg_catalog.pg_extension e
		  WHERE e.extname = 'counter_crdt'));
END
$$;

COMMENT ON TABLE @extschema@.counter_crdt_retired_writers IS
'writer ids retired on this server: increments under them are refused, and replicated values lose those whose folds were forgotten here (forgotten_at)';

-- Every backend reads the list again after a change (a relcache
-- invalidation of the table).
CREATE FUNCTION @extschema@.counter_crdt_retired_writers_changed()
RETURNS trigger
AS 'MODULE_PATHNAME', 'counter_crdt_retired_writers_changed'
LANGUAGE C;

COMMENT ON FUNCTION @extschema@.counter_crdt_retired_writers_changed() IS
'trigger of counter_crdt_retired_writers: every session reads the list again';

CREATE TRIGGER counter_crdt_retired_writers_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON @extschema@.counter_crdt_retired_writers
  FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.counter_crdt_retired_writers_changed();
CREATE TRIGGER counter_crdt_local_rows_only
  BEFORE INSERT OR UPDATE OR DELETE ON @extschema@.counter_crdt_retired_writers
  FOR EACH ROW EXECUTE FUNCTION @extschema@.counter_crdt_local_rows_only();
ALTER TABLE @extschema@.counter_crdt_retired_writers
  ENABLE REPLICA TRIGGER counter_crdt_local_rows_only;

-- counter_crdt_fold_many() or counter_crdt_forget_many() (action 'fold' or
-- 'forget') on every counter of one table or of all tables, as the calling
-- role (which needs UPDATE on them): one rewrite of a row for all the
-- retired writers.  Only rows that change are updated (NULL counters are
-- left as they are); run again, it updates none.  Then the retired writers
-- go on this server's list (forgotten ones marked so), or a warning says
-- that the calling role may not write it.
CREATE FUNCTION @extschema@.counter_crdt_rewrite_counters(action text, retired uuid[], only_table regclass)
RETURNS TABLE (table_name regclass, column_name name, counters bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	col record;
	fn text;
BEGIN
	IF retired IS NULL OR array_position(retired, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'counter_crdt retired writer id must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	fn := CASE action WHEN 'fold' THEN '@extschema@.counter_crdt_fold_many'
	                  WHEN 'forget' THEN '@extschema@.counter_crdt_forget_many' END;
	IF fn IS NULL THEN
		RAISE EXCEPTION 'counter_crdt_rewrite_counters action must be fold or forget'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF action = 'fold' AND @extschema@.counter_crdt_node_id() = ANY (retired) THEN
		RAISE EXCEPTION 'counter_crdt cannot fold this server''s own writer id into itself'
			USING ERRCODE = 'invalid_parameter_value',
			      HINT = 'Run the fold on a server that goes on writing.';
	END IF;
	FOR col IN SELECT * FROM @extschema@.counter_crdt_columns(only_table) LOOP
		EXECUTE format('UPDATE %1$s SET %2$I = %3$s(%2$I, $1) '
					   'WHERE NOT (%3$s(%2$I, $1) OPERATOR(@extschema@.=) %2$I)',
					   col.table_name, col.column_name, fn)
			USING retired;
		table_name := col.table_name;
		column_name := col.column_name;
		GET DIAGNOSTICS counters = ROW_COUNT;
		RETURN NEXT;
	END LOOP;
	IF pg_catalog.has_table_privilege('@extschema@.counter_crdt_retired_writers', 'INSERT, UPDATE') THEN
		INSERT INTO @extschema@.counter_crdt_retired_writers AS r (writer, forgotten_at)
		SELECT DISTINCT u, CASE WHEN action = 'forget' THEN pg_catalog.now() END
		  FROM pg_catalog.unnest(retired) u
		ON CONFLICT (writer) DO UPDATE
		  SET forgotten_at = coalesce(r.forgotten_at, EXCLUDED.forgotten_at)
		  WHERE r.forgotten_at IS NULL AND EXCLUDED.forgotten_at IS NOT NULL;
	ELSE
		RAISE WARNING 'counter_crdt_retired_writers of this server is left as it was: role % may not write it', current_user
			USING HINT = 'The extension''s owner adds the retired writers to it, as doc/retiring-writers.md shows.';
	END IF;
END
$$;

COMMENT ON FUNCTION @extschema@.counter_crdt_rewrite_counters(text, uuid[], regclass) IS
'counter_crdt_fold_many or counter_crdt_forget_many on every counter of a table (or of all tables) that it changes; what the *_writer and *_writers functions run';

-- Step 1 of doc/retiring-writers.md: folds the retired writer (or writers)
-- into this server's writer id in every counter of one table or of all
-- tables.
CREATE FUNCTION @extschema@.counter_crdt_fold_writer(retired uuid, only_table regclass DEFAULT NULL)
RETURNS TABLE (table_name regclass, column_name name, counters bigint)
LANGUAGE sql
AS $$
	SELECT * FROM @extschema@.counter_crdt_rewrite_counters('fold', ARRAY[retired], only_table)
$$;

CREATE FUNCTION @extschema@.counter_crdt_fold_writers(retired uuid[], only_table regclass DEFAULT NULL)
RETURNS TABLE (table_name regclass, column_name name, counters bigint)
LANGUAGE sql
AS $$
	SELECT * FROM @extschema@.counter_crdt_rewrite_counters('fold', retired, only_table)
$$;

COMMENT ON FUNCTION @extschema@.counter_crdt_fold_writer(uuid, regclass) IS
'folds the retired writer into this server''s writer id in every counter of a table (or of all tables); returns the counters changed per column';
COMMENT ON FUNCTION @extschema@.counter_crdt_fold_writers(uuid[], regclass) IS
'folds the retired writers into this server''s writer id in every counter of a table (or of all tables), one rewrite per counter; returns the counters changed per column';

-- Step 3: drops the records of finished folds in every counter of one table
-- or of all tables; an error (and nothing changed) where one is not
-- finished.
CREATE FUNCTION @extschema@.counter_crdt_forget_writer(retired uuid, only_table regclass DEFAULT NULL)
RETURNS TABLE (table_name regclass, column_name name, counters bigint)
LANGUAGE sql
AS $$
	SELECT * FROM @extschema@.counter_crdt_rewrite_counters('forget', ARRAY[retired], only_table)
$$;

CREATE FUNCTION @extschema@.counter_crdt_forget_writers(retired uuid[], only_table regclass DEFAULT NULL)
RETURNS TABLE (table_name regclass, column_name name, counters bigint)
LANGUAGE sql
AS $$
	SELECT * FROM @extschema@.counter_crdt_rewrite_counters('forget', retired, only_table)
$$;

COMMENT ON FUNCTION @extschema@.counter_crdt_forget_writer(uuid, regclass) IS
'drops the records of the retired writer''s finished fold from every counter of a table (or of all tables); an error where a fold is not finished';
COMMENT ON FUNCTION @extschema@.counter_crdt_forget_writers(uuid[], regclass) IS
'drops the records of the retired writers'' finished folds from every counter of a table (or of all tables), one rewrite per counter; an error where a fold is not finished';

-- The default writer ids of this cluster's timelines, up to the current one:
-- those of earlier timelines were left by a promotion or a point-in-time
-- recovery.  Stable: it reads the timeline.
CREATE FUNCTION @extschema@.counter_crdt_node_id_history(OUT timeline integer, OUT writer uuid)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'counter_crdt_node_id_history'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 4;

COMMENT ON FUNCTION @extschema@.counter_crdt_node_id_history() IS
'the default writer id of every timeline of this cluster up to the current one (ids of earlier timelines are candidates for retirement)';

-- The writers of the counters of one table or of all tables, as this server
-- sees them: per column and writer id, how many counters carry a shard of
-- it and the highest clock among them; whether it is this server's id;
-- how many counters have folded it (records naming it as retired) and in
-- how many a fold of it is pending; why it may be a candidate for
-- retirement, as far as this server can tell (on this server's list of
-- retired writers, or the default id of an earlier timeline of this
-- cluster); and, with track_commit_timestamp on, the latest commit time
-- here of a row that carries its shard: it last wrote no later than that.
-- A full scan of every table it reads.
CREATE FUNCTION @extschema@.counter_crdt_writer_report(only_table regclass DEFAULT NULL)
RETURNS TABLE (table_name regclass, column_name name, writer uuid,
	counters bigint, max_clock bigint, this_server boolean,
	folded bigint, pending bigint, candidate text, last_write timestamptz)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	col record;
	commit_ts boolean := current_setting('track_commit_timestamp')::boolean;
BEGIN
	FOR col IN SELECT * FROM @extschema@.counter_crdt_columns(only_table) LOOP
		RETURN QUERY EXECUTE format(
			'WITH w AS ('
			'  SELECT s.id AS writer, count(*) AS counters, max(s.clock) AS max_clock,'
			'         max(CASE WHEN $3 THEN pg_xact_commit_timestamp(t.xmin) END) AS last_write'
			'    FROM %1$s t, @extschema@.counter_crdt_shards(t.%2$I) s GROUP BY s.id),'
			' f AS ('
			'  SELECT x.retired AS writer, count(DISTINCT (t.tableoid, t.ctid)) AS folded,'
			'         count(DISTINCT (t.tableoid, t.ctid)) FILTER (WHERE @extschema@.counter_crdt_fold_pending(t.%2$I, x.retired)) AS pending'
			'    FROM %1$s t, @extschema@.counter_crdt_folds(t.%2$I) x GROUP BY x.retired),'
			' r AS (SELECT coalesce(w.writer, f.writer) AS writer, w.counters, w.max_clock,'
			'              coalesce(f.folded, 0) AS folded, coalesce(f.pending, 0) AS pending, w.last_write'
			'         FROM w FULL JOIN f ON f.writer = w.writer)'
			' SELECT $1, $2, r.writer, coalesce(r.counters, 0), r.max_clock,'
			'        r.writer = @extschema@.counter_crdt_node_id(), r.folded, r.pending,'
			'        CASE WHEN r.writer = @extschema@.counter_crdt_node_id() THEN NULL'
			'             WHEN EXISTS (SELECT FROM @extschema@.counter_crdt_retired_writers l WHERE l.writer = r.writer) THEN'
			'               ''on this server''''s list of retired writers'''
			'             WHEN r.folded = 0 THEN'
			'               (SELECT format(''the default id of timeline %%s of this cluster, which ended'', h.timeline)'
			'                  FROM @extschema@.counter_crdt_node_id_history() h'
			'                 WHERE h.writer = r.writer'
			'                   AND h.timeline < (SELECT max(timeline) FROM @extschema@.counter_crdt_node_id_history()))'
			'        END, r.last_write'
			'   FROM r ORDER BY 3',
			col.table_name, col.column_name)
			USING col.table_name, col.column_name, commit_ts;
	END LOOP;
END
$$;

COMMENT ON FUNCTION @extschema@.counter_crdt_writer_report(regclass) IS
'per counter column and writer id: counters carrying it, its highest clock, whether it is this server''s id, counters that folded it, where the fold is pending, why it may be retired, and (with track_commit_timestamp) a time it last wrote no later than (a full scan)';
