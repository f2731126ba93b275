--
-- write_guard: counter_crdt_guard_writes() and the trigger it makes.  A
-- local UPDATE may write into a counter column only a state that holds what
-- the row holds (merge(old, new) = new); a state read earlier and written
-- back, and NULL over a counter, are refused with 23000 and change nothing.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;
SET counter_crdt.node_id = '0000000a-0000-0000-0000-000000000000';
\set A '0000000a-0000-0000-0000-000000000000'
\set B '0000000b-0000-0000-0000-000000000000'

CREATE TABLE wg (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                 title text, views counter_crdt, likes counter_crdt);
INSERT INTO wg (title, views, likes) VALUES ('home', NULL::counter_crdt + 1, '{}');

-- Without the guard, the trap: read the state, another session increments,
-- write the state read back; the increments are gone.
SELECT views AS read_state FROM wg WHERE id = 1 \gset
UPDATE wg SET views = views + 10 WHERE id = 1;
UPDATE wg SET views = :'read_state' WHERE id = 1;
SELECT views::bigint AS lost_to_the_trap FROM wg WHERE id = 1;

-- The guard: made once, the same table set up again changes nothing.
SELECT counter_crdt_guard_writes('wg');
SELECT counter_crdt_guard_writes('wg');
SELECT tgname, tgenabled, tgtype FROM pg_trigger WHERE tgrelid = 'wg'::regclass AND NOT tgisinternal;

UPDATE wg SET views = views + 10 WHERE id = 1;
SELECT views AS read_state FROM wg WHERE id = 1 \gset
UPDATE wg SET views = views + 5 WHERE id = 1;
-- the stale state, with the message, detail and hint
UPDATE wg SET views = :'read_state' WHERE id = 1;
\set VERBOSITY sqlstate
UPDATE wg SET views = :'read_state' WHERE id = 1;
-- and in a statement that also changes other columns: nothing changes
UPDATE wg SET title = 'changed', likes = likes + 1, views = :'read_state' WHERE id = 1;
-- NULL over a counter; over a tombstone, a live state
UPDATE wg SET views = NULL WHERE id = 1;
\set VERBOSITY default
UPDATE wg SET views = NULL WHERE id = 1;
SELECT title, views, likes FROM wg WHERE id = 1;

-- What passes: increments, decrements, the same state, a statement that
-- leaves the counter alone, a merge with a stale state, an exactly-once
-- increment, a state that holds more, a tombstone.
UPDATE wg SET views = views - 2, likes = likes + 3 WHERE id = 1;
UPDATE wg SET views = views WHERE id = 1;
UPDATE wg SET title = 'about' WHERE id = 1;
UPDATE wg SET views = counter_crdt_merge(views, :'read_state') WHERE id = 1;
UPDATE wg SET views = counter_crdt_increment(views, 7, :'B', 3) WHERE id = 1;
UPDATE wg SET views = counter_crdt_merge(views, format('{%s:9:100}', :'B')::counter_crdt) WHERE id = 1;
SELECT views AS now_state FROM wg WHERE id = 1 \gset
UPDATE wg SET views = :'now_state' WHERE id = 1;
SELECT title, views, views::bigint AS value, likes FROM wg WHERE id = 1;

-- States that hold some shards newer and some older: refused (one writer's
-- clock would go down), whichever shard is newer.
\set VERBOSITY sqlstate
UPDATE wg SET views = format('{%s:99:1, %s:8:100}', :'A', :'B')::counter_crdt WHERE id = 1;
UPDATE wg SET views = format('{%s:1:1, %s:99:100}', :'A', :'B')::counter_crdt WHERE id = 1;
-- a writer dropped from the state
UPDATE wg SET views = format('{%s:99:1}', :'A')::counter_crdt WHERE id = 1;
UPDATE wg SET views = '{}' WHERE id = 1;
\set VERBOSITY default
-- one writer's value lower at its clock
UPDATE wg SET views = format('{%s:4:7, %s:10:100}', :'A', :'B')::counter_crdt WHERE id = 1;
-- a state that holds everything, with a higher clock of one writer; and
-- one whose value of this server's shard is higher at the same clock,
-- which merge would take but the guard refuses (see below)
UPDATE wg SET views = format('{%s:4:14, %s:10:100}', :'A', :'B')::counter_crdt WHERE id = 1;
UPDATE wg SET views = format('{%s:4:15, %s:10:100}', :'A', :'B')::counter_crdt WHERE id = 1;
SELECT views, views::bigint AS value FROM wg WHERE id = 1;

-- Two states computed from one read: the first written passes, the second
-- gives this server's shard the same clock and another value, refused.
-- The same state written twice cannot be told from a statement that left
-- the counter alone: the second write changes nothing.
SELECT views AS one_read FROM wg WHERE id = 1 \gset
UPDATE wg SET views = :'one_read'::counter_crdt + 1 WHERE id = 1;
UPDATE wg SET views = :'one_read'::counter_crdt + 3 WHERE id = 1;
UPDATE wg SET views = :'one_read'::counter_crdt + 1 WHERE id = 1;
SELECT views, views::bigint AS value FROM wg WHERE id = 1;
-- another writer's shard at the same clock with another value (a server
-- that shares an id, or a hand-made state) passes as merge takes it: the
-- conflict is the merge trigger's to record at apply
UPDATE wg SET views = counter_crdt_merge(views, format('{%s:10:101}', :'B')::counter_crdt) WHERE id = 1;
SELECT views, views::bigint AS value FROM wg WHERE id = 1;

-- A tombstone wins, and nothing live goes over it.
UPDATE wg SET views = 'tombstone' WHERE id = 1;
\set VERBOSITY sqlstate
UPDATE wg SET views = '{}' WHERE id = 1;
UPDATE wg SET views = views + 1 WHERE id = 1;
\set VERBOSITY default
UPDATE wg SET views = 'tombstone' WHERE id = 1;
-- NULL to anything, and NULL to NULL
INSERT INTO wg (title) VALUES ('new');
UPDATE wg SET likes = NULL WHERE title = 'new';
UPDATE wg SET likes = :'read_state' WHERE title = 'new';
SELECT title, views, likes FROM wg ORDER BY id;

-- An upsert writing the incoming state is refused when it is stale; the
-- merge the page shows passes.
\set VERBOSITY sqlstate
INSERT INTO wg (id, title, likes) OVERRIDING SYSTEM VALUE VALUES (2, 'new', '{}')
  ON CONFLICT (id) DO UPDATE SET likes = EXCLUDED.likes;
\set VERBOSITY default
INSERT INTO wg (id, title, likes) OVERRIDING SYSTEM VALUE VALUES (2, 'new', '{}')
  ON CONFLICT (id) DO UPDATE SET likes = counter_crdt_merge(wg.likes, EXCLUDED.likes);
SELECT likes::bigint FROM wg WHERE id = 2;

-- Replication apply (session_replication_role = replica) is not checked:
-- the merge trigger merges there.
SET session_replication_role = replica;
UPDATE wg SET likes = '{}' WHERE id = 2;
RESET session_replication_role;
SELECT likes FROM wg WHERE id = 2;

-- A guard disabled by ENABLE/DISABLE TRIGGER ALL is enabled again.
ALTER TABLE wg DISABLE TRIGGER ALL;
SELECT counter_crdt_guard_writes('wg');
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'wg'::regclass AND NOT tgisinternal;

-- Refused set-ups: NULL, no counter column, not a table, no TRIGGER
-- privilege.
\set VERBOSITY sqlstate
SELECT counter_crdt_guard_writes(NULL);
CREATE TABLE wg_plain (id int PRIMARY KEY, n bigint);
SELECT counter_crdt_guard_writes('wg_plain');
CREATE VIEW wg_view AS SELECT * FROM wg;
SELECT counter_crdt_guard_writes('wg_view');
CREATE ROLE wg_app;
GRANT SELECT, UPDATE ON wg TO wg_app;
CREATE TABLE wg_other (id int PRIMARY KEY, c counter_crdt);
GRANT SELECT, UPDATE ON wg_other TO wg_app;
SET ROLE wg_app;
SELECT counter_crdt_guard_writes('wg_other');
-- the guard holds for any role that writes the table
UPDATE wg SET likes = '{}' WHERE id = 1;
UPDATE wg SET likes = likes + 1 WHERE id = 1;
RESET ROLE;
\set VERBOSITY default
SELECT count(*) AS other_triggers FROM pg_trigger WHERE tgrelid = 'wg_other'::regclass;
-- with TRIGGER on the table, that role guards it, and the guard refuses
-- its own stale write
GRANT TRIGGER ON wg_other TO wg_app;
INSERT INTO wg_other VALUES (1, NULL::counter_crdt + 1);
SET ROLE wg_app;
SELECT counter_crdt_guard_writes('wg_other');
SELECT c AS app_read FROM wg_other WHERE id = 1 \gset
UPDATE wg_other SET c = c + 1 WHERE id = 1;
\set VERBOSITY sqlstate
UPDATE wg_other SET c = :'app_read' WHERE id = 1;
\set VERBOSITY default
RESET ROLE;
SELECT c::bigint AS app_value FROM wg_other WHERE id = 1;

-- A domain over counter_crdt, a partitioned table: its partitions, also
-- those attached later, are guarded.
CREATE DOMAIN wg_count AS counter_crdt;
CREATE TABLE wg_parts (id int PRIMARY KEY, c wg_count) PARTITION BY RANGE (id);
CREATE TABLE wg_parts_1 PARTITION OF wg_parts FOR VALUES FROM (0) TO (10);
SELECT counter_crdt_guard_writes('wg_parts');
CREATE TABLE wg_parts_2 PARTITION OF wg_parts FOR VALUES FROM (10) TO (20);
INSERT INTO wg_parts VALUES (1, NULL::counter_crdt + 1), (11, NULL::counter_crdt + 1);
UPDATE wg_parts SET c = c + 1;
\set VERBOSITY sqlstate
UPDATE wg_parts SET c = format('{%s:1:1}', :'A')::counter_crdt WHERE id = 1;
UPDATE wg_parts_2 SET c = format('{%s:1:1}', :'A')::counter_crdt;
\set VERBOSITY default
SELECT id, c FROM wg_parts ORDER BY id;

-- The fold and forget sweeps rewrite guarded tables; a write that a
-- trigger of the sweep's own UPDATE makes is still checked.
CREATE TABLE wg_fold (id int PRIMARY KEY, c counter_crdt);
INSERT INTO wg_fold VALUES (1, format('{%s:2:5, %s:3:7}', :'A', :'B')::counter_crdt),
                           (2, format('{%s:1:1}', :'A')::counter_crdt);
SELECT counter_crdt_guard_writes('wg_fold');
SELECT * FROM counter_crdt_fold_writer(:'B', 'wg_fold');
SELECT id, c, c::bigint AS value FROM wg_fold ORDER BY id;
SELECT * FROM counter_crdt_forget_writer(:'B', 'wg_fold');
SELECT id, c, c::bigint AS value FROM wg_fold ORDER BY id;
INSERT INTO wg_fold VALUES (3, format('{%s:2:5, %s:3:7}', :'A', :'B')::counter_crdt);
CREATE FUNCTION wg_fold_side() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id = 3 THEN
    UPDATE public.wg_fold SET c = '{}' WHERE id = 2;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER wg_fold_side BEFORE UPDATE ON wg_fold FOR EACH ROW EXECUTE FUNCTION wg_fold_side();
\set VERBOSITY sqlstate
SELECT * FROM counter_crdt_fold_writer(:'B', 'wg_fold');
\set VERBOSITY default
SELECT id, c FROM wg_fold ORDER BY id;
-- and once the sweep is over, its rows are checked again: the forget by
-- hand drops the fold records the row holds, the state from before the
-- fold lacks them
DROP TRIGGER wg_fold_side ON wg_fold;
SELECT * FROM counter_crdt_fold_writer(:'B', 'wg_fold');
UPDATE wg_fold SET c = counter_crdt_forget(c, :'B') WHERE id = 3;
UPDATE wg_fold SET c = format('{%s:2:5, %s:3:7}', :'A', :'B')::counter_crdt WHERE id = 3;
SELECT id, c FROM wg_fold ORDER BY id;

-- A strip of a writer forgotten on this server passes, as apply strips
-- it; the same strip of a writer not forgotten here is refused.
\set C '0000000c-0000-0000-0000-000000000000'
INSERT INTO wg_fold VALUES (4, format('{%s:1:1, %s:2:5}', :'A', :'C')::counter_crdt);
\set VERBOSITY sqlstate
UPDATE wg_fold SET c = counter_crdt_strip(c, :'C') WHERE id = 4;
\set VERBOSITY default
INSERT INTO counter_crdt_retired_writers (writer) VALUES (:'C');
\set VERBOSITY sqlstate
UPDATE wg_fold SET c = counter_crdt_strip(c, :'C') WHERE id = 4;
\set VERBOSITY default
UPDATE counter_crdt_retired_writers SET forgotten_at = now() WHERE writer = :'C';
UPDATE wg_fold SET c = counter_crdt_strip(c, :'C') WHERE id = 4;
SELECT c FROM wg_fold WHERE id = 4;
DELETE FROM counter_crdt_retired_writers WHERE writer IN (:'B', :'C');

-- The trigger function is a BEFORE UPDATE row trigger only.
CREATE TRIGGER wg_wrong AFTER UPDATE ON wg_fold FOR EACH ROW EXECUTE FUNCTION counter_crdt_write_guard();
\set VERBOSITY sqlstate
UPDATE wg_fold SET c = c + 1 WHERE id = 3;
\set VERBOSITY default

DROP TABLE wg, wg_plain, wg_other, wg_parts, wg_fold CASCADE;
DROP FUNCTION wg_fold_side();
DROP DOMAIN wg_count;
DROP ROLE wg_app;
RESET counter_crdt.node_id;
