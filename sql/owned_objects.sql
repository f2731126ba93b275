--
-- The extension's own objects.  The C code reads and calls only objects of
-- the extension's schema that are members of the extension and owned by a
-- superuser.  The database owner who installed the trusted extension owns
-- the extension: he may add objects of his own to it (ALTER EXTENSION ...
-- ADD), in another schema or under a name that a later version takes.
-- None of them is ever read or called by the code that other roles run
-- (a superuser's health check, the monitoring role's scrape, a table
-- owner's set-up, a superuser's increments).
--
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS counter_crdt CASCADE;
DROP SCHEMA IF EXISTS regress_dbo_s CASCADE;
DROP TABLE IF EXISTS owned_t;
DROP ROLE IF EXISTS regress_dbo;
DROP ROLE IF EXISTS regress_dbo_mon;
RESET client_min_messages;

CREATE ROLE regress_dbo;
CREATE ROLE regress_dbo_mon IN ROLE pg_monitor;
SELECT format('GRANT CREATE ON DATABASE %I TO regress_dbo', current_database()) \gexec
GRANT CREATE ON SCHEMA public TO regress_dbo;

-- Version 1.3: no conflict summary, no guard function, no retired list yet.
SET ROLE regress_dbo;
CREATE EXTENSION counter_crdt VERSION '1.3';
CREATE SCHEMA regress_dbo_s;
-- His function says whenever it runs, and with whose rights.
CREATE FUNCTION regress_dbo_s.spy(what text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'his code ran for %: as a superuser: %, as pg_monitor: %', what,
    (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
    pg_has_role(current_user, 'pg_monitor', 'MEMBER');
  RETURN true;
END $$;
CREATE FUNCTION regress_dbo_s.spy_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM regress_dbo_s.spy(TG_NAME);
  RETURN NEW;
END $$;
-- Under the names that 1.4, 1.5 and 1.6 take: in the extension's schema,
-- and in his own.
CREATE VIEW public.counter_crdt_writer_conflict_summary AS
  SELECT now() AS recorded_at, 'pg_class'::regclass AS table_name, 'c'::name AS column_name,
         gen_random_uuid() AS writer_id, regress_dbo_s.spy('public summary') AS clock_near_limit;
CREATE VIEW regress_dbo_s.counter_crdt_writer_conflict_summary AS
  SELECT * FROM public.counter_crdt_writer_conflict_summary;
CREATE FUNCTION public.counter_crdt_local_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM regress_dbo_s.spy('guard');
  RETURN NEW;
END $$;
CREATE TABLE public.counter_crdt_retired_writers (writer uuid PRIMARY KEY,
  retired_at timestamptz, forgotten_at timestamptz);
INSERT INTO public.counter_crdt_retired_writers
  VALUES ('00000000-0000-4000-8000-0000000000d1', now(), NULL);
ALTER EXTENSION counter_crdt ADD VIEW public.counter_crdt_writer_conflict_summary;
ALTER EXTENSION counter_crdt ADD VIEW regress_dbo_s.counter_crdt_writer_conflict_summary;
ALTER EXTENSION counter_crdt ADD FUNCTION public.counter_crdt_local_guard();
ALTER EXTENSION counter_crdt ADD TABLE public.counter_crdt_retired_writers;
RESET ROLE;

-- The superuser's health check and the monitoring role's reads: none of his
-- code runs (no NOTICE).
SELECT count(*) >= 0 AS health_ran FROM counter_crdt_health();
SET ROLE regress_dbo_mon;
SELECT count(*) >= 0 AS health_ran FROM counter_crdt_health();
RESET ROLE;

-- A table set up by the superuser: his function is not made a guard.
CREATE TABLE owned_t (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('owned_t');
SELECT count(*) AS his_triggers FROM pg_trigger
 WHERE tgrelid = 'owned_t'::regclass AND tgfoid = 'public.counter_crdt_local_guard()'::regprocedure;
-- His list of retired writers does not stop the superuser's increments
-- under writer d1.
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000d1';
INSERT INTO owned_t VALUES (1, NULL::counter_crdt + 5);
UPDATE owned_t SET c = c + 2 WHERE k = 1;
SELECT k, c::bigint FROM owned_t;
RESET counter_crdt.node_id;

-- The update that would create the real ones fails on his: the extension
-- stays at 1.3 and still calls none of them.
\set VERBOSITY terse
SET ROLE regress_dbo;
ALTER EXTENSION counter_crdt UPDATE TO '1.4';
RESET ROLE;
\set VERBOSITY default
SELECT extversion FROM pg_extension WHERE extname = 'counter_crdt';

-- Taken out of the extension, his objects in its schema no longer block the
-- update; the one in his own schema stays a member, beside the real ones.
SET ROLE regress_dbo;
ALTER EXTENSION counter_crdt DROP VIEW regress_dbo_s.counter_crdt_writer_conflict_summary;
ALTER EXTENSION counter_crdt DROP VIEW public.counter_crdt_writer_conflict_summary;
ALTER EXTENSION counter_crdt DROP FUNCTION public.counter_crdt_local_guard();
ALTER EXTENSION counter_crdt DROP TABLE public.counter_crdt_retired_writers;
DROP VIEW public.counter_crdt_writer_conflict_summary CASCADE;
DROP FUNCTION public.counter_crdt_local_guard();
ALTER TABLE public.counter_crdt_retired_writers SET SCHEMA regress_dbo_s;
CREATE VIEW regress_dbo_s.counter_crdt_writer_conflict_summary AS
  SELECT now() AS recorded_at, 'pg_class'::regclass AS table_name, 'c'::name AS column_name,
         gen_random_uuid() AS writer_id, regress_dbo_s.spy('own summary') AS clock_near_limit;
CREATE TABLE regress_dbo_s.counter_crdt_dropped_writers (recorded_at timestamptz NOT NULL,
  table_name regclass NOT NULL, column_name name NOT NULL, key text NOT NULL,
  writers uuid[] NOT NULL, origin text, subscription name);
INSERT INTO regress_dbo_s.counter_crdt_dropped_writers
  VALUES (now(), 'pg_class', 'c', '(k)=(1)', '{00000000-0000-4000-8000-0000000000d2}', 'x', 'his');
ALTER EXTENSION counter_crdt UPDATE;
-- Added in his schema, once the real ones exist.
ALTER EXTENSION counter_crdt ADD VIEW regress_dbo_s.counter_crdt_writer_conflict_summary;
ALTER EXTENSION counter_crdt ADD TABLE regress_dbo_s.counter_crdt_retired_writers;
ALTER EXTENSION counter_crdt ADD TABLE regress_dbo_s.counter_crdt_dropped_writers;
-- And pglogical's catalog, where pglogical is not installed: a schema of
-- that name is his to make.
CREATE SCHEMA pglogical;
CREATE VIEW pglogical.replication_set_table AS
  SELECT 'pg_class'::regclass::oid AS set_reloid WHERE regress_dbo_s.spy('pglogical sets');
CREATE TABLE pglogical.local_node (node_id oid);
INSERT INTO pglogical.local_node VALUES (1);
CREATE FUNCTION pglogical.show_subscription_status(name DEFAULT NULL,
  OUT subscription_name text, OUT status text, OUT provider_node text)
  RETURNS SETOF record LANGUAGE plpgsql AS $$
BEGIN
  PERFORM regress_dbo_s.spy('pglogical status');
  RETURN QUERY SELECT 'his'::text, 'down'::text, 'his'::text;
END $$;
GRANT USAGE ON SCHEMA pglogical TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA pglogical TO PUBLIC;
RESET ROLE;
SELECT extversion = (SELECT default_version FROM pg_available_extensions
                      WHERE name = 'counter_crdt') AS latest
  FROM pg_extension WHERE extname = 'counter_crdt';

-- Health, the health view and the metrics read the extension's own: no
-- NOTICE, no dropped writer d2, no conflict.
SELECT "check", object FROM counter_crdt_health() ORDER BY 1, 2;
SET ROLE regress_dbo_mon;
SELECT kind, problems FROM counter_crdt_stat_health WHERE problems > 0 ORDER BY 1;
SELECT table_name, own_id_conflicts FROM counter_crdt_stat WHERE table_name = 'owned_t'::regclass;
RESET ROLE;
-- The table's set-up, the retired check and the guard: the real ones.
SELECT counter_crdt_enable_replica_merge('owned_t');
SELECT count(*) AS guards FROM pg_trigger
 WHERE tgrelid = 'owned_t'::regclass
   AND tgfoid = 'public.counter_crdt_local_guard()'::regprocedure;
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000d1';
UPDATE owned_t SET c = c + 3 WHERE k = 1;
SELECT k, c::bigint FROM owned_t;
RESET counter_crdt.node_id;

-- The objects the code uses are the extension's, owned by a superuser.
SELECT c.relname, n.nspname, r.rolsuper
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_roles r ON r.oid = c.relowner
  JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt')
 ORDER BY 2, 1;

-- The extension's own tables must have the columns its scripts made, and
-- no index: otherwise health says so rather than read them.
-- (counter_crdt_writer_conflicts: the metrics read it, health its view)
BEGIN;
ALTER TABLE counter_crdt_writer_conflicts ADD COLUMN extra integer;
SELECT count(*) FROM counter_crdt_stat;
ROLLBACK;
BEGIN;
CREATE INDEX ON counter_crdt_writer_conflicts (table_name);
SELECT count(*) FROM counter_crdt_stat;
ROLLBACK;
BEGIN;
CREATE INDEX ON counter_crdt_dropped_writers (table_name);
SELECT count(*) FROM counter_crdt_health();
ROLLBACK;
BEGIN;
ALTER TABLE counter_crdt_dropped_writers DROP COLUMN subscription;
SELECT count(*) FROM counter_crdt_health();
ROLLBACK;
-- A rolled-back CREATE INDEX leaves pg_class.relhasindex set: no index is there.
SELECT relhasindex FROM pg_class WHERE oid = 'counter_crdt_dropped_writers'::regclass;
SELECT count(*) AS problems FROM counter_crdt_health();
SELECT count(*) AS columns FROM counter_crdt_stat WHERE table_name = 'owned_t'::regclass;

SET client_min_messages = warning;
DROP TABLE owned_t;
DROP EXTENSION counter_crdt CASCADE;
DROP SCHEMA regress_dbo_s CASCADE;
DROP SCHEMA pglogical CASCADE;
SELECT format('REVOKE CREATE ON DATABASE %I FROM regress_dbo', current_database()) \gexec
REVOKE CREATE ON SCHEMA public FROM regress_dbo;
DROP ROLE regress_dbo;
DROP ROLE regress_dbo_mon;
RESET client_min_messages;
CREATE EXTENSION counter_crdt;
