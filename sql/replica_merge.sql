--
-- counter_crdt_replica_merge(): merge on apply for logical replication.
-- A REPLICA trigger fires where session_replication_role = replica, as in
-- an apply worker, so this session plays the apply worker.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

CREATE TABLE rm (k int PRIMARY KEY, c counter_crdt, d counter_crdt);
SELECT counter_crdt_enable_replica_merge('rm');
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'rm'::regclass ORDER BY tgname;

INSERT INTO rm VALUES
  (1, '{00000000-0000-0000-0000-00000000000a:2:20}', NULL),
  (2, '{00000000-0000-0000-0000-00000000000a:1:1}', '{}');

-- Local writes (origin role): last writer wins as usual, the trigger is off.
UPDATE rm SET c = '{00000000-0000-0000-0000-00000000000b:1:5}' WHERE k = 2;
SELECT k, c, d FROM rm ORDER BY k;

SET session_replication_role = replica;

-- A replicated UPDATE merges: the local shard of writer a survives.
UPDATE rm SET c = '{00000000-0000-0000-0000-00000000000a:1:10, 00000000-0000-0000-0000-00000000000b:3:30}',
              d = '{00000000-0000-0000-0000-00000000000c:1:7}'
 WHERE k = 1;
SELECT k, c, d, c::bigint + d::bigint AS total FROM rm ORDER BY k;

-- Applying the same or an older state changes nothing and writes nothing:
-- the row keeps its ctid (no new row version).
SELECT ctid AS before_ctid FROM rm WHERE k = 1 \gset
UPDATE rm SET c = '{00000000-0000-0000-0000-00000000000a:1:1}' WHERE k = 1;
UPDATE rm SET c = c, d = NULL WHERE k = 1;
SELECT ctid = :'before_ctid' AS unchanged, c, d FROM rm WHERE k = 1;

-- A replicated row whose state wins whole in one counter and is NULL in the
-- other: the other keeps its local value.  When both win whole, the row is
-- the replicated one as it came.
UPDATE rm SET c = '{00000000-0000-0000-0000-00000000000a:9:90, 00000000-0000-0000-0000-00000000000b:9:90}',
              d = NULL
 WHERE k = 1;
SELECT c, d FROM rm WHERE k = 1;
UPDATE rm SET c = '{00000000-0000-0000-0000-00000000000a:10:100, 00000000-0000-0000-0000-00000000000b:10:100}',
              d = '{00000000-0000-0000-0000-00000000000c:2:8}'
 WHERE k = 1;
SELECT c, d FROM rm WHERE k = 1;

-- A replicated INSERT of an existing key merges into the local row.
INSERT INTO rm VALUES (2, '{00000000-0000-0000-0000-00000000000a:5:50}', '{00000000-0000-0000-0000-00000000000a:1:1}');
-- and of a new key inserts it.
INSERT INTO rm VALUES (3, '{00000000-0000-0000-0000-00000000000c:1:3}', NULL);
SELECT k, c, d FROM rm ORDER BY k;

-- Tombstones win on apply as in every merge; NULL incoming keeps local.
UPDATE rm SET c = 'tombstone' WHERE k = 3;
UPDATE rm SET c = '{00000000-0000-0000-0000-00000000000c:9:9}' WHERE k = 3;
INSERT INTO rm VALUES (2, NULL, NULL);
SELECT k, c, d FROM rm ORDER BY k;

-- A replicated DELETE stays a delete.
DELETE FROM rm WHERE k = 3;
SELECT count(*) FROM rm WHERE k = 3;

-- A key cannot change under a merge.
UPDATE rm SET k = 10 WHERE k = 1;
SELECT k FROM rm ORDER BY k;

RESET session_replication_role;

-- A local DELETE turns the row's counters into tombstones instead: the row
-- stays, reads as NULL, and wins every merge on every replica.
INSERT INTO rm VALUES (4, '{00000000-0000-0000-0000-00000000000a:1:4}', NULL);
DELETE FROM rm WHERE k = 4;
SELECT k, c, d, c::bigint AS value FROM rm WHERE k = 4;
-- increments after the delete are ignored, and so are stale replica states
UPDATE rm SET c = c + 1, d = d + 1 WHERE k = 4;
SET session_replication_role = replica;
INSERT INTO rm VALUES (4, '{00000000-0000-0000-0000-00000000000a:9:9}', '{}');
RESET session_replication_role;
SELECT k, c, d FROM rm WHERE k = 4;
-- deleting it again writes nothing
SELECT ctid AS before_ctid FROM rm WHERE k = 4 \gset
DELETE FROM rm WHERE k = 4;
SELECT ctid = :'before_ctid' AS unchanged FROM rm WHERE k = 4;
-- a transaction that deletes and rolls back leaves the counter live
BEGIN;
DELETE FROM rm WHERE k = 2;
SELECT c FROM rm WHERE k = 2;
ROLLBACK;
SELECT c::bigint FROM rm WHERE k = 2;

-- Tables the trigger cannot merge get an error at trigger time.  Since 1.2
-- counter_crdt_enable_replica_merge() refuses them already (test health), so
-- here the triggers are made by hand.
CREATE TABLE rm_other (k int PRIMARY KEY, c counter_crdt, note text);
CREATE TABLE rm_nopk (k int, c counter_crdt);
CREATE TABLE rm_nocounter (k int PRIMARY KEY, v bigint);
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['rm_other', 'rm_nopk', 'rm_nocounter'] LOOP
    EXECUTE format('CREATE TRIGGER counter_crdt_replica_merge BEFORE INSERT OR UPDATE ON %I'
                   ' FOR EACH ROW EXECUTE FUNCTION counter_crdt_replica_merge()', t);
    EXECUTE format('ALTER TABLE %I ENABLE REPLICA TRIGGER counter_crdt_replica_merge', t);
    EXECUTE format('CREATE TRIGGER counter_crdt_delete_as_tombstone BEFORE DELETE ON %I'
                   ' FOR EACH ROW EXECUTE FUNCTION counter_crdt_delete_as_tombstone()', t);
  END LOOP;
END
$$;
INSERT INTO rm_other VALUES (1, '{}', 'x');
SET session_replication_role = replica;
INSERT INTO rm_other VALUES (1, '{}', 'x');
UPDATE rm_other SET c = '{00000000-0000-0000-0000-00000000000a:1:1}';
INSERT INTO rm_nopk VALUES (1, '{}');
INSERT INTO rm_nocounter VALUES (1, 1);
RESET session_replication_role;
DELETE FROM rm_other WHERE k = 1;
SELECT count(*) FROM rm_other;
SELECT count(*) FROM rm_nopk;

-- Keys of several columns, quoted names, a schema of its own, and a
-- search_path that finds neither the table nor the extension.
CREATE SCHEMA "Odd Schema";
CREATE TABLE "Odd Schema"."Hits" ("Site" text, day date, "Count" counter_crdt,
                                  PRIMARY KEY ("Site", day));
SELECT counter_crdt_enable_replica_merge('"Odd Schema"."Hits"');
INSERT INTO "Odd Schema"."Hits" VALUES ('a', '2026-01-01', '{00000000-0000-0000-0000-00000000000a:1:1}');
SET search_path = pg_catalog;
SET session_replication_role = replica;
INSERT INTO "Odd Schema"."Hits" VALUES ('a', '2026-01-01', '{00000000-0000-0000-0000-00000000000b:1:2}');
INSERT INTO "Odd Schema"."Hits" VALUES ('a', '2026-01-02', '{00000000-0000-0000-0000-00000000000b:1:4}');
RESET session_replication_role;
RESET search_path;
SELECT "Site", day, "Count", "Count"::bigint FROM "Odd Schema"."Hits" ORDER BY 1, 2;

-- Called any other way, it refuses.
SELECT counter_crdt_replica_merge();
CREATE TRIGGER bad AFTER INSERT ON rm FOR EACH ROW EXECUTE FUNCTION counter_crdt_replica_merge();
INSERT INTO rm VALUES (7, '{}', '{}');
DROP TRIGGER bad ON rm;
SELECT counter_crdt_delete_as_tombstone();
CREATE TRIGGER bad BEFORE UPDATE ON rm FOR EACH ROW EXECUTE FUNCTION counter_crdt_delete_as_tombstone();
UPDATE rm SET c = c WHERE k = 1;
DROP TRIGGER bad ON rm;

DROP TABLE rm, rm_other, rm_nopk, rm_nocounter;
DROP SCHEMA "Odd Schema" CASCADE;

-- The trigger remembers, per session, the schema of its function and the
-- type counter_crdt in it.  The extension dropped and created again in
-- another schema, in this session, is found afresh: a remembered type would
-- make the new table look as if it had no counter_crdt column.
BEGIN;
SET LOCAL client_min_messages = warning;
DROP EXTENSION counter_crdt CASCADE;
CREATE SCHEMA cc_moved;
CREATE EXTENSION counter_crdt SCHEMA cc_moved;
CREATE TABLE rm_moved (k int PRIMARY KEY, c cc_moved.counter_crdt);
SELECT cc_moved.counter_crdt_enable_replica_merge('rm_moved');
INSERT INTO rm_moved VALUES (1, '{00000000-0000-0000-0000-00000000000a:2:20}');
SET LOCAL session_replication_role = replica;
UPDATE rm_moved SET c = '{00000000-0000-0000-0000-00000000000b:1:5}' WHERE k = 1;
SELECT k, c FROM rm_moved;
ROLLBACK;

-- And the extension as it was is found again.
CREATE TABLE rm_back (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('rm_back');
INSERT INTO rm_back VALUES (1, '{00000000-0000-0000-0000-00000000000a:2:20}');
SET session_replication_role = replica;
UPDATE rm_back SET c = '{00000000-0000-0000-0000-00000000000b:1:5}' WHERE k = 1;
RESET session_replication_role;
SELECT k, c FROM rm_back;
DROP TABLE rm_back;

-- A change to the table after the trigger has read it in this session is
-- seen at the next applied row: a column that is not a counter refuses the
-- merge, a new counter column is merged too, and a table whose primary key
-- is gone refuses it.
CREATE TABLE rm_alter (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('rm_alter');
INSERT INTO rm_alter VALUES (1, '{00000000-0000-0000-0000-00000000000a:2:20}');
SET session_replication_role = replica;
UPDATE rm_alter SET c = '{00000000-0000-0000-0000-00000000000b:1:5}' WHERE k = 1;
RESET session_replication_role;
ALTER TABLE rm_alter ADD COLUMN note text;
SET session_replication_role = replica;
UPDATE rm_alter SET c = '{00000000-0000-0000-0000-00000000000b:2:6}' WHERE k = 1;
RESET session_replication_role;
ALTER TABLE rm_alter DROP COLUMN note, ADD COLUMN d counter_crdt;
UPDATE rm_alter SET d = '{00000000-0000-0000-0000-00000000000a:1:1}' WHERE k = 1;
SET session_replication_role = replica;
UPDATE rm_alter SET c = '{00000000-0000-0000-0000-00000000000b:2:6}',
                    d = '{00000000-0000-0000-0000-00000000000b:1:2}' WHERE k = 1;
RESET session_replication_role;
SELECT k, c, d FROM rm_alter;
ALTER TABLE rm_alter DROP CONSTRAINT rm_alter_pkey;
SET session_replication_role = replica;
UPDATE rm_alter SET c = '{00000000-0000-0000-0000-00000000000b:3:7}' WHERE k = 1;
RESET session_replication_role;
SELECT k, c, d FROM rm_alter;
DROP TABLE rm_alter;
