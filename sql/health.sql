--
-- counter_crdt_health() (contract 7.3), own-id conflicts (contract 7.2), and the
-- checks of counter_crdt_enable_replica_merge() (issue 13).
-- Replication apply is played with session_replication_role = replica, in
-- which the merge trigger fires as it does in an apply worker.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;
DELETE FROM counter_crdt_writer_conflicts;

-- Nothing replicated: no rows.
SELECT * FROM counter_crdt_health();

-- A table set up right, with a stored generated column beside key and
-- counter, in a publication: still no rows.
CREATE TABLE h_ok (k int PRIMARY KEY, c counter_crdt,
                   total bigint GENERATED ALWAYS AS (c::bigint) STORED);
SELECT counter_crdt_enable_replica_merge('h_ok');
SET client_min_messages = error;  -- no wal_level warning
CREATE PUBLICATION h_pub FOR TABLE h_ok WITH (publish = 'insert, update, delete');
RESET client_min_messages;
SELECT * FROM counter_crdt_health();
-- A counter table in no publication and no subscription is not checked.
CREATE TABLE h_alone (k int, c counter_crdt, note text);
SELECT * FROM counter_crdt_health();

-- A table in a publication without triggers: two rows, and the hint is
-- the repair.
CREATE TABLE h_bare (k int PRIMARY KEY, c counter_crdt);
ALTER PUBLICATION h_pub ADD TABLE h_bare;
SELECT * FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('h_bare');
SELECT * FROM counter_crdt_health();

-- ENABLE TRIGGER ALL (what pg_restore --disable-triggers ends with) turns the
-- merge trigger into an ordinary one.
ALTER TABLE h_ok ENABLE TRIGGER ALL;
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'h_ok'::regclass ORDER BY tgname;
SELECT * FROM counter_crdt_health();
-- The set-up function repairs it, and says so.
SELECT counter_crdt_enable_replica_merge('h_ok');
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'h_ok'::regclass ORDER BY tgname;
SELECT * FROM counter_crdt_health();
-- Disabled, or enabled ALWAYS: reported too, and repaired.
ALTER TABLE h_ok DISABLE TRIGGER counter_crdt_replica_merge;
SELECT "check", problem FROM counter_crdt_health();
ALTER TABLE h_ok ENABLE ALWAYS TRIGGER counter_crdt_replica_merge;
SELECT "check", problem FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('h_ok');
SELECT * FROM counter_crdt_health();

-- Without the delete trigger, or with it enabled for apply only.
DROP TRIGGER counter_crdt_delete_as_tombstone ON h_bare;
SELECT "check", object, problem FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('h_bare');
ALTER TABLE h_bare ENABLE REPLICA TRIGGER counter_crdt_delete_as_tombstone;
SELECT "check", object, problem FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('h_bare');
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'h_bare'::regclass ORDER BY tgname;
SELECT * FROM counter_crdt_health();

-- A second call on a table set up already succeeds and changes nothing.
CREATE TEMP TABLE h_triggers AS
  SELECT oid, tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'h_bare'::regclass;
SELECT counter_crdt_enable_replica_merge('h_bare');
SELECT (SELECT count(*) FROM h_triggers) AS triggers,
       (SELECT count(*) FROM (SELECT oid, tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'h_bare'::regclass
                              EXCEPT SELECT * FROM h_triggers) s) AS new_or_changed,
       (SELECT count(*) FROM (SELECT * FROM h_triggers EXCEPT
                              SELECT oid, tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'h_bare'::regclass) s) AS gone;

-- A column that is neither key nor counter nor stored generated, and a
-- table without a primary key: one row per problem.
ALTER TABLE h_bare ADD COLUMN note text, ADD COLUMN seen timestamptz;
SELECT * FROM counter_crdt_health();
ALTER TABLE h_bare DROP COLUMN note, DROP COLUMN seen;
ALTER TABLE h_bare DROP CONSTRAINT h_bare_pkey;
SELECT * FROM counter_crdt_health();
ALTER TABLE h_bare ADD PRIMARY KEY (k);
SELECT * FROM counter_crdt_health();
-- Tables in a schema whose name needs quotes are named as regclass shows them.
CREATE SCHEMA "H Schema";
CREATE TABLE "H Schema"."Odd" (k int PRIMARY KEY, c counter_crdt);
ALTER PUBLICATION h_pub ADD TABLE "H Schema"."Odd";
SELECT "check", object, hint FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('"H Schema"."Odd"');
-- FOR ALL TABLES publications count too.
SET client_min_messages = error;
CREATE PUBLICATION h_all FOR ALL TABLES WITH (publish = 'insert, update, delete');
RESET client_min_messages;
SELECT "check", object FROM counter_crdt_health();
DROP PUBLICATION h_all;
SELECT * FROM counter_crdt_health();

-- counter_crdt_enable_replica_merge() checks the table when it is called,
-- with the SQLSTATE and messages of the merge trigger at apply.
CREATE TABLE h_text (k int PRIMARY KEY, c counter_crdt, note text);
CREATE TABLE h_nopk (k int, c counter_crdt);
CREATE TABLE h_nocounter (k int PRIMARY KEY);
SELECT counter_crdt_enable_replica_merge('h_text');
SELECT counter_crdt_enable_replica_merge('h_nopk');
SELECT counter_crdt_enable_replica_merge('h_nocounter');
\set VERBOSITY sqlstate
SELECT counter_crdt_enable_replica_merge('h_text');
SELECT counter_crdt_enable_replica_merge('h_nopk');
\set VERBOSITY default
SELECT count(*) AS triggers_made FROM pg_trigger
 WHERE tgrelid IN ('h_text'::regclass, 'h_nopk'::regclass, 'h_nocounter'::regclass);
-- The merge trigger refuses the same tables with the same error.
CREATE TRIGGER counter_crdt_replica_merge BEFORE INSERT OR UPDATE ON h_text
  FOR EACH ROW EXECUTE FUNCTION counter_crdt_replica_merge();
ALTER TABLE h_text ENABLE REPLICA TRIGGER counter_crdt_replica_merge;
SET session_replication_role = replica;
INSERT INTO h_text VALUES (1, '{}', 'x');
RESET session_replication_role;
-- Not a table; NULL; no TRIGGER privilege.
CREATE VIEW h_view AS SELECT * FROM h_ok;
SELECT counter_crdt_enable_replica_merge('h_view');
\set VERBOSITY sqlstate
SELECT counter_crdt_enable_replica_merge(NULL);
\set VERBOSITY default
CREATE ROLE regress_health_user;
CREATE TABLE h_theirs (k int PRIMARY KEY, c counter_crdt);
SET ROLE regress_health_user;
SELECT counter_crdt_enable_replica_merge('h_theirs');
RESET ROLE;
SELECT count(*) AS triggers_made FROM pg_trigger WHERE tgrelid = 'h_theirs'::regclass;

-- Applied rows with stored generated columns merge, and the column is
-- computed from the merge.
SET counter_crdt.node_id = '00000000-0000-0000-0000-0000000000aa';
INSERT INTO h_ok VALUES (1, '{}'::counter_crdt + 5);
SET session_replication_role = replica;
UPDATE h_ok SET c = '{00000000-0000-0000-0000-0000000000bb:1:7}' WHERE k = 1;
INSERT INTO h_ok VALUES (1, '{00000000-0000-0000-0000-0000000000cc:1:100}'),
                        (2, '{00000000-0000-0000-0000-0000000000cc:2:9}');
RESET session_replication_role;
SELECT k, c, total FROM h_ok ORDER BY k;

-- Own-id conflicts (contract 7.2).  This server writes as ...aa: clock 1, value 5.
SELECT * FROM counter_crdt_writer_conflicts;
SET session_replication_role = replica;
-- Older, or the same shard (the echo of our own increments): nothing.
UPDATE h_ok SET c = '{00000000-0000-0000-0000-0000000000aa:1:5}' WHERE k = 1;
-- Only other writers newer: nothing.
UPDATE h_ok SET c = '{00000000-0000-0000-0000-0000000000bb:9:70}' WHERE k = 1;
SELECT count(*) AS conflicts FROM counter_crdt_writer_conflicts;
-- A higher clock: a warning naming table, key and id, and a record.
UPDATE h_ok SET c = '{00000000-0000-0000-0000-0000000000aa:2:6}' WHERE k = 1;
-- The same clock and another value, also a lower one (which the merge keeps
-- out): a conflict all the same.
UPDATE h_ok SET c = '{00000000-0000-0000-0000-0000000000aa:2:1}' WHERE k = 1;
-- An applied INSERT of an existing key merges: checked against the local row.
INSERT INTO h_ok VALUES (1, '{00000000-0000-0000-0000-0000000000aa:2:-3}');
INSERT INTO h_ok VALUES (1, '{00000000-0000-0000-0000-0000000000aa:2:6}');
-- A new key, or a NULL local counter: we never wrote what arrives.
INSERT INTO h_ok VALUES (3, '{00000000-0000-0000-0000-0000000000aa:1:1}');
UPDATE h_ok SET c = NULL WHERE k = 2;
RESET session_replication_role;
UPDATE h_ok SET c = NULL WHERE k = 2;
SET session_replication_role = replica;
UPDATE h_ok SET c = '{00000000-0000-0000-0000-0000000000aa:4:4}' WHERE k = 2;
-- A tombstone on either side: nothing.
UPDATE h_ok SET c = 'tombstone' WHERE k = 3;
UPDATE h_ok SET c = '{00000000-0000-0000-0000-0000000000aa:9:9}' WHERE k = 3;
RESET session_replication_role;
SELECT table_name, key, column_name, writer_id, local_clock, local_value, incoming_clock, incoming_value
  FROM counter_crdt_writer_conflicts ORDER BY recorded_at, incoming_clock, incoming_value;
SELECT k, c, total FROM h_ok ORDER BY k;
SELECT "check", object, regexp_replace(problem, 'the last at .*: ', 'the last at ...: ') AS problem, hint
  FROM counter_crdt_health();
-- The default writer id is watched too (its warnings are not shown: the id
-- differs for every initdb).
RESET counter_crdt.node_id;
SET client_min_messages = error;
UPDATE h_ok SET c = c + 1 WHERE k = 1;
SET session_replication_role = replica;
UPDATE h_ok SET c = counter_crdt_increment(c, 1, counter_crdt_node_id()) WHERE k = 1;
SELECT count(*) AS one_conflict FROM counter_crdt_writer_conflicts WHERE writer_id = counter_crdt_node_id();
UPDATE h_ok SET c = counter_crdt_increment(counter_crdt_increment(c, 1, counter_crdt_node_id()), 1, counter_crdt_node_id())
 WHERE k = 1;
RESET session_replication_role;
RESET client_min_messages;
SELECT count(*) AS default_id_conflicts FROM counter_crdt_writer_conflicts WHERE writer_id = counter_crdt_node_id();
-- A long key of two columns, stored toasted.
CREATE TABLE h_long (k1 text, k2 int, c counter_crdt, PRIMARY KEY (k1, k2));
SELECT counter_crdt_enable_replica_merge('h_long');
SET session_replication_role = replica;
SET client_min_messages = error;
INSERT INTO h_long VALUES (repeat('x', 5000), 7, counter_crdt_increment(NULL, 1, counter_crdt_node_id()));
RESET client_min_messages;
RESET session_replication_role;
SELECT table_name, length(key) AS key_length, left(key, 12) || '...' || right(key, 6) AS key
  FROM counter_crdt_writer_conflicts WHERE table_name = 'h_long'::regclass;

-- Everyone may read the report, also on tables they have no privilege on,
-- and where and under which id conflicts were; nobody but the owner writes
-- the conflicts.
ALTER TABLE h_bare ENABLE TRIGGER ALL;
SET ROLE regress_health_user;
SELECT has_table_privilege('h_bare', 'SELECT') AS may_read_h_bare;
SELECT "check", object FROM counter_crdt_health();
SELECT table_name, column_name, count(DISTINCT writer_id) AS ids
  FROM counter_crdt_writer_conflicts GROUP BY 1, 2 ORDER BY 1;
-- The keys and shards are the tables' data: not for everyone.
SELECT key FROM counter_crdt_writer_conflicts;
SELECT local_value, incoming_value FROM counter_crdt_writer_conflicts;
INSERT INTO counter_crdt_writer_conflicts (recorded_at, table_name, key, column_name, writer_id, incoming_clock, incoming_value)
  VALUES (now(), 'h_ok', '(k)=(9)', 'c', '00000000-0000-0000-0000-0000000000aa', 1, 1);
DELETE FROM counter_crdt_writer_conflicts;
RESET ROLE;
SELECT counter_crdt_enable_replica_merge('h_bare');
-- The hint's statement clears it.
DELETE FROM counter_crdt_writer_conflicts WHERE table_name = 'h_ok'::regclass;
DELETE FROM counter_crdt_writer_conflicts WHERE table_name = 'h_long'::regclass;
SELECT * FROM counter_crdt_health();

DROP PUBLICATION h_pub;
DROP VIEW h_view;
DROP TABLE h_ok, h_alone, h_bare, "H Schema"."Odd", h_text, h_nopk, h_nocounter, h_theirs, h_long;
DROP SCHEMA "H Schema";
DROP ROLE regress_health_user;
RESET counter_crdt.node_id;
