--
-- replica_hazards: what undoes the replication set-up, and how the delete
-- trigger treats every mix of NULL, live and tombstone counters.  This
-- session plays the apply worker with session_replication_role = replica,
-- as in replica_merge.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

CREATE TABLE hz (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('hz');
CREATE VIEW hz_triggers AS
  SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'hz'::regclass AND NOT tgisinternal;
SELECT * FROM hz_triggers ORDER BY tgname;

-- Writer a is this server, writer b another one.  An applied row from b
-- that has not seen a's latest increment merges: nothing is lost.
INSERT INTO hz VALUES (1, '{00000000-0000-0000-0000-00000000000a:1:1}');
UPDATE hz SET c = counter_crdt_increment(c, 1, '00000000-0000-0000-0000-00000000000a') WHERE k = 1;
SET session_replication_role = replica;
UPDATE hz SET c = '{00000000-0000-0000-0000-00000000000a:1:1, 00000000-0000-0000-0000-00000000000b:1:10}' WHERE k = 1;
RESET session_replication_role;
SELECT c, c::bigint AS value FROM hz WHERE k = 1;

-- The trap: ENABLE TRIGGER ALL (run by habit, or by pg_restore
-- --disable-triggers at the end of a data-only restore) makes the merge
-- trigger an ordinary one, which does not fire on apply.
ALTER TABLE hz ENABLE TRIGGER ALL;
SELECT * FROM hz_triggers ORDER BY tgname;
UPDATE hz SET c = counter_crdt_increment(c, 1, '00000000-0000-0000-0000-00000000000a') WHERE k = 1;
SELECT c, c::bigint AS value FROM hz WHERE k = 1;
-- The same kind of applied row now overwrites: a's last increment is lost.
SET session_replication_role = replica;
UPDATE hz SET c = '{00000000-0000-0000-0000-00000000000a:2:2, 00000000-0000-0000-0000-00000000000b:2:20}' WHERE k = 1;
RESET session_replication_role;
SELECT c, c::bigint AS value FROM hz WHERE k = 1;

-- The repair: enable it as a REPLICA trigger again.  Applied rows merge.
ALTER TABLE hz ENABLE REPLICA TRIGGER counter_crdt_replica_merge;
SELECT * FROM hz_triggers ORDER BY tgname;
UPDATE hz SET c = counter_crdt_increment(c, 1, '00000000-0000-0000-0000-00000000000a') WHERE k = 1;
SET session_replication_role = replica;
UPDATE hz SET c = '{00000000-0000-0000-0000-00000000000a:2:2, 00000000-0000-0000-0000-00000000000b:3:30}' WHERE k = 1;
RESET session_replication_role;
SELECT c, c::bigint AS value FROM hz WHERE k = 1;

-- With session_replication_role = replica the delete trigger (an ordinary
-- one) does not fire: a DELETE there really deletes the row ...
INSERT INTO hz VALUES (2, '{00000000-0000-0000-0000-00000000000a:1:5}'), (3, '{}');
SET session_replication_role = replica;
DELETE FROM hz WHERE k = 2;
RESET session_replication_role;
SELECT k, c FROM hz ORDER BY k;
-- ... while a local DELETE leaves a tombstone.
DELETE FROM hz WHERE k = 3;
SELECT k, c FROM hz ORDER BY k;

-- The delete trigger on a table of two counters: every row that is not
-- already a tombstone in both becomes one in both, whatever mix of NULL,
-- live and tombstone it holds.
CREATE TABLE hz2 (k int PRIMARY KEY, c counter_crdt, d counter_crdt);
SELECT counter_crdt_enable_replica_merge('hz2');
INSERT INTO hz2 VALUES
  (1, NULL, NULL),
  (2, NULL, '{00000000-0000-0000-0000-00000000000a:1:1}'),
  (3, '{00000000-0000-0000-0000-00000000000a:1:1}', NULL),
  (4, 'tombstone', '{00000000-0000-0000-0000-00000000000a:1:1}'),
  (5, '{00000000-0000-0000-0000-00000000000a:1:1}', 'tombstone'),
  (6, 'tombstone', NULL),
  (7, NULL, 'tombstone'),
  (8, '{00000000-0000-0000-0000-00000000000a:1:1}', '{}'),
  (9, 'tombstone', 'tombstone'),
  (10, '{}', '{}');
CREATE TEMP TABLE hz2_before AS SELECT k, ctid AS before_ctid FROM hz2;
DELETE FROM hz2 WHERE k < 10;
SELECT k, c, d, hz2.ctid = before_ctid AS unchanged FROM hz2 JOIN hz2_before USING (k) ORDER BY k;
-- One row at a time, the same.
DELETE FROM hz2 WHERE k = 10;
SELECT k, c, d FROM hz2 WHERE k = 10;

-- Later replicated rows for those keys, inserts and updates, bring none of
-- them back: the tombstones win the merge.
SET session_replication_role = replica;
INSERT INTO hz2
SELECT k, '{00000000-0000-0000-0000-00000000000b:5:5}', '{00000000-0000-0000-0000-00000000000c:5:5}'
  FROM generate_series(1, 10) AS k;
UPDATE hz2 SET c = '{00000000-0000-0000-0000-00000000000b:6:6}', d = '{00000000-0000-0000-0000-00000000000c:6:6}';
RESET session_replication_role;
SELECT k, c, d FROM hz2 ORDER BY k;
SELECT count(*) AS rows, count(*) FILTER (WHERE c = 'tombstone' AND d = 'tombstone') AS deleted FROM hz2;

DROP VIEW hz_triggers;
DROP TABLE hz, hz2;
