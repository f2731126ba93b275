--
-- Whose rights the functions that reach other tables run with (issue 28):
-- the fold and forget sweeps, the writer report, the column list and the
-- health check, run by a superuser and by a non-superuser database owner
-- who installed the (trusted) extension, under a search_path that puts
-- look-alike operators and functions first, over a table whose owner set
-- a trap trigger and a trap policy.  Every trap logs who it runs as: no
-- look-alike may run at all, and the table owner's code only as its owner.
--
SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_sw_db;
DROP ROLE IF EXISTS regress_sw_dbo;
DROP ROLE IF EXISTS regress_sw_mallory;
RESET client_min_messages;
CREATE ROLE regress_sw_dbo;
CREATE ROLE regress_sw_mallory;
CREATE DATABASE regress_sw_db OWNER regress_sw_dbo;
\c regress_sw_db
SET client_min_messages = warning;
SET counter_crdt.node_id = '00000000-0000-4000-8000-00000000aaaa';
GRANT CREATE ON SCHEMA public TO regress_sw_mallory;
SET ROLE regress_sw_dbo;
CREATE EXTENSION counter_crdt;
RESET ROLE;

-- Every trap writes here.
CREATE TABLE sw_log (n serial, who name, trap text);
GRANT INSERT, SELECT ON sw_log TO PUBLIC;
GRANT USAGE ON SEQUENCE sw_log_n_seq TO PUBLIC;

-- The table owner's traps: a trigger that tries to make its owner
-- superuser, and a policy that runs a function.
SET ROLE regress_sw_mallory;
CREATE TABLE sw_trap (k int PRIMARY KEY, c counter_crdt);
INSERT INTO sw_trap VALUES
  (1, '{00000000-0000-4000-8000-000000000001:3:30, 00000000-0000-4000-8000-000000000002:1:5}'),
  (2, '{00000000-0000-4000-8000-000000000001:1:4}');
CREATE FUNCTION sw_trap_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'trigger');
	BEGIN
		EXECUTE 'ALTER ROLE regress_sw_mallory SUPERUSER';
		INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'ALTER ROLE went through');
	EXCEPTION WHEN others THEN
		NULL;
	END;
	RETURN NEW;
END $$;
CREATE TRIGGER sw_trap BEFORE UPDATE ON sw_trap FOR EACH ROW EXECUTE FUNCTION sw_trap_trigger();
CREATE FUNCTION sw_trap_policy() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'policy');
	RETURN true;
END $$;
ALTER TABLE sw_trap ENABLE ROW LEVEL SECURITY;
CREATE POLICY sw_trap ON sw_trap USING (sw_trap_policy());
RESET ROLE;

-- The database owner's own table, and look-alikes on the path: operators
-- that match the catalog columns' types more closely than pg_catalog's,
-- functions of pg_catalog's names, and a table named like the list.
SET ROLE regress_sw_dbo;
CREATE TABLE sw_own (k int PRIMARY KEY, c counter_crdt);
INSERT INTO sw_own VALUES (1, '{00000000-0000-4000-8000-000000000001:2:2}');
RESET ROLE;
CREATE SCHEMA sw_evil;
GRANT USAGE ON SCHEMA sw_evil TO PUBLIC;
CREATE FUNCTION sw_evil.logged(anyelement, anyelement) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'operator on ' || pg_typeof($1));
	RETURN false;
END $$;
CREATE FUNCTION sw_evil.eq_oid_regtype(oid, regtype) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, '=(oid, regtype)');
	RETURN $1 = $2::oid;
END $$;
CREATE OPERATOR sw_evil.= (LEFTARG = oid, RIGHTARG = regtype, FUNCTION = sw_evil.eq_oid_regtype);
CREATE FUNCTION sw_evil.gt_int2_int4(smallint, integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, '>(smallint, integer)');
	RETURN $1 > $2;
END $$;
CREATE OPERATOR sw_evil.> (LEFTARG = smallint, RIGHTARG = integer, FUNCTION = sw_evil.gt_int2_int4);
CREATE OPERATOR sw_evil.= (LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = sw_evil.logged);
CREATE OPERATOR sw_evil.= (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = sw_evil.logged);
CREATE OPERATOR sw_evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = sw_evil.logged);
CREATE FUNCTION sw_evil.now() RETURNS timestamptz LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'now()');
	RETURN pg_catalog.now();
END $$;
CREATE FUNCTION sw_evil.unnest(uuid[]) RETURNS SETOF uuid LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'unnest()');
	RETURN QUERY SELECT pg_catalog.unnest($1);
END $$;
CREATE FUNCTION sw_evil.format(text, integer) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'format()');
	RETURN pg_catalog.format($1, $2);
END $$;
CREATE FUNCTION sw_evil.pg_my_temp_schema() RETURNS oid LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'pg_my_temp_schema()');
	RETURN 0;
END $$;
CREATE FUNCTION sw_evil.count_step(bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.sw_log (who, trap) VALUES (current_user, 'count(*)');
	RETURN $1 + 1;
END $$;
CREATE AGGREGATE sw_evil.count(*) (SFUNC = sw_evil.count_step, STYPE = bigint, INITCOND = '0');
CREATE TABLE sw_evil.counter_crdt_retired_writers (writer uuid, retired_at timestamptz, forgotten_at timestamptz);
GRANT ALL ON sw_evil.counter_crdt_retired_writers TO PUBLIC;

-- Run everything that reaches other tables, as a superuser and as the
-- database owner, with the look-alikes first on the path.
CREATE FUNCTION pg_temp.sweep_all() RETURNS TABLE (step text, result text)
LANGUAGE plpgsql AS $$
BEGIN
	step := 'columns';
	SELECT string_agg(x.table_name || '.' || x.column_name, ', ' ORDER BY 1) INTO result
	  FROM public.counter_crdt_columns(NULL) x;
	RETURN NEXT;
	step := 'fold';
	SELECT string_agg(x.table_name || ':' || x.counters, ', ' ORDER BY 1) INTO result
	  FROM public.counter_crdt_fold_writer('00000000-0000-4000-8000-000000000001') x;
	RETURN NEXT;
	step := 'fold_writers';
	SELECT string_agg(x.table_name || ':' || x.counters, ', ' ORDER BY 1) INTO result
	  FROM public.counter_crdt_fold_writers('{00000000-0000-4000-8000-000000000002}') x;
	RETURN NEXT;
	step := 'report';
	SELECT string_agg(x.table_name || ':' || x.writer || ':' || x.counters || ':' || x.folded
	                  || ':' || coalesce(x.candidate, '-'), ', ' ORDER BY 1) INTO result
	  FROM public.counter_crdt_writer_report() x;
	RETURN NEXT;
	step := 'forget';
	SELECT string_agg(x.table_name || ':' || x.counters, ', ' ORDER BY 1) INTO result
	  FROM public.counter_crdt_forget_writers('{00000000-0000-4000-8000-000000000001, 00000000-0000-4000-8000-000000000002}') x;
	RETURN NEXT;
	step := 'rewrite';
	SELECT string_agg(x.table_name || ':' || x.counters, ', ' ORDER BY 1) INTO result
	  FROM public.counter_crdt_rewrite_counters('forget', '{00000000-0000-4000-8000-000000000001}', NULL) x;
	RETURN NEXT;
	step := 'health';
	SELECT count(*)::text INTO result FROM public.counter_crdt_health();
	RETURN NEXT;
END $$;

RESET client_min_messages;
-- The database owner: the other owner's table is skipped, with a warning,
-- and nothing of it runs; its own table is swept.
SET ROLE regress_sw_dbo;
SET search_path = sw_evil, pg_catalog, public;
SELECT * FROM pg_temp.sweep_all();
RESET search_path;
RESET ROLE;
SELECT who, trap, count(*) FROM sw_log GROUP BY 1, 2 ORDER BY 1, 2;
TRUNCATE sw_log;

-- The superuser: every table is swept, the other owner's as its owner; the
-- trap trigger runs as that owner and cannot make it superuser.
SET search_path = sw_evil, pg_catalog, public;
SELECT * FROM pg_temp.sweep_all();
RESET search_path;
SELECT who, trap, count(*) FROM sw_log GROUP BY 1, 2 ORDER BY 1, 2;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_sw_mallory';
SELECT k, c FROM sw_trap ORDER BY k;
SELECT writer, forgotten_at IS NOT NULL AS forgotten FROM counter_crdt_retired_writers ORDER BY 1;
SELECT count(*) AS look_alike_list_rows FROM sw_evil.counter_crdt_retired_writers;

-- Named, a table the caller does not own is refused (42501), and nothing
-- of it runs.
TRUNCATE sw_log;
SET ROLE regress_sw_dbo;
\set VERBOSITY sqlstate
SELECT * FROM counter_crdt_fold_writer('00000000-0000-4000-8000-000000000003', 'sw_trap');
SELECT * FROM counter_crdt_writer_report('sw_trap');
\set VERBOSITY default
RESET ROLE;
SELECT count(*) AS traps_run FROM sw_log;

-- A table whose owner forced row security on itself: skipped, since its
-- policies could hide rows from the sweep; named, refused.
ALTER TABLE sw_trap FORCE ROW LEVEL SECURITY;
SELECT * FROM counter_crdt_fold_writer('00000000-0000-4000-8000-000000000003');
\set VERBOSITY sqlstate
SELECT * FROM counter_crdt_fold_writer('00000000-0000-4000-8000-000000000003', 'sw_trap');
\set VERBOSITY default
ALTER TABLE sw_trap NO FORCE ROW LEVEL SECURITY;

-- The forms of one table list writers as retired, never as forgotten; a
-- forget of this server's own id is refused.
DELETE FROM counter_crdt_retired_writers;
SELECT * FROM counter_crdt_forget_writer('00000000-0000-4000-8000-000000000001', 'sw_own');
SELECT writer, forgotten_at IS NOT NULL AS forgotten FROM counter_crdt_retired_writers ORDER BY 1;
\set VERBOSITY sqlstate
SELECT * FROM counter_crdt_forget_writer(counter_crdt_node_id());
SELECT * FROM counter_crdt_fold_writer(counter_crdt_node_id());
\set VERBOSITY default

-- The extension's tables keep to their server: TRUNCATE is refused.
\set VERBOSITY sqlstate
TRUNCATE counter_crdt_retired_writers;
TRUNCATE counter_crdt_writer_conflicts;
\set VERBOSITY default
SELECT count(*) > 0 AS list_kept FROM counter_crdt_retired_writers;

\c contrib_regression
DROP DATABASE regress_sw_db;
DROP ROLE regress_sw_dbo;
DROP ROLE regress_sw_mallory;
