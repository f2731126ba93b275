--
-- Guards of retirement that live outside the core (issue 28): increments
-- under a given writer read this server's list when they run, not when a
-- plan was made; an applied row onto a NULL counter is stored stripped; a
-- local DELETE whose tombstone UPDATE a rule rewrites is refused clearly.
--
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000ee';
\set W '00000000-0000-4000-8000-0000000000e1'
\set F '00000000-0000-4000-8000-0000000000e2'
DELETE FROM counter_crdt_retired_writers;

-- Volatility: a generic plan of a prepared increment, and a PL/pgSQL
-- statement, stop writing as soon as the writer is listed.
SELECT provolatile FROM pg_proc
 WHERE oid IN ('counter_crdt_increment(counter_crdt, bigint, uuid)'::regprocedure,
               'counter_crdt_increment(counter_crdt, bigint, uuid, bigint)'::regprocedure);
SET plan_cache_mode = force_generic_plan;
PREPARE inc_w(bigint) AS SELECT counter_crdt_increment('{}', $1, :'W')::bigint;
PREPARE inc_w_at(bigint) AS SELECT counter_crdt_increment('{}', $1, :'W', 1)::bigint;
EXECUTE inc_w(5);
EXECUTE inc_w_at(5);
CREATE FUNCTION pg_temp.inc_w() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
	RETURN counter_crdt_increment('{}', 3, '00000000-0000-4000-8000-0000000000e1')::bigint;
END $$;
SELECT pg_temp.inc_w();
INSERT INTO counter_crdt_retired_writers (writer) VALUES (:'W');
\set VERBOSITY sqlstate
EXECUTE inc_w(5);
EXECUTE inc_w_at(5);
SELECT pg_temp.inc_w();
\set VERBOSITY default
RESET plan_cache_mode;
DEALLOCATE inc_w;
DEALLOCATE inc_w_at;

-- Applied onto a counter that is NULL here, a row is stored without the
-- forgotten writers, as the warning says (the same as onto a value).
INSERT INTO counter_crdt_retired_writers (writer, forgotten_at) VALUES (:'F', now());
CREATE TABLE guard_apply (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('guard_apply');
INSERT INTO guard_apply VALUES (1, NULL), (2, '{}');
SET session_replication_role = replica;
UPDATE guard_apply SET c = format('{%s:3:30, %s:1:1}', :'F', :'W')::counter_crdt;
RESET session_replication_role;
SELECT k, c, c::bigint AS total FROM guard_apply ORDER BY k;

-- A local row that still holds a forgotten writer (from before the list
-- said so) loses it to the first applied row, by UPDATE or by INSERT alike:
-- what is stored does not depend on the way the row came.
DELETE FROM counter_crdt_retired_writers WHERE writer = :'F';
INSERT INTO guard_apply VALUES (3, format('{%s:3:30}', :'F')::counter_crdt),
                               (4, format('{%s:3:30}', :'F')::counter_crdt);
INSERT INTO counter_crdt_retired_writers (writer, forgotten_at) VALUES (:'F', now());
SET session_replication_role = replica;
UPDATE guard_apply SET c = format('{%s:2:2}', :'W')::counter_crdt WHERE k = 3;
INSERT INTO guard_apply VALUES (4, format('{%s:2:2}', :'W')::counter_crdt);
RESET session_replication_role;
SELECT k, c, c::bigint AS total FROM guard_apply WHERE k IN (3, 4) ORDER BY k;

-- A local DELETE is an UPDATE to tombstones; a DO INSTEAD rule on UPDATE
-- makes it a clear error, not an internal one.
CREATE RULE guard_apply_upd AS ON UPDATE TO guard_apply DO INSTEAD NOTHING;
\set VERBOSITY sqlstate
DELETE FROM guard_apply WHERE k = 1;
\set VERBOSITY default
DELETE FROM guard_apply WHERE k = 1;
DROP RULE guard_apply_upd ON guard_apply;
DELETE FROM guard_apply WHERE k = 1;
SELECT k, c FROM guard_apply ORDER BY k;

DROP TABLE guard_apply;
DELETE FROM counter_crdt_retired_writers;
RESET counter_crdt.node_id;
