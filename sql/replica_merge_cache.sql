--
-- What the merge trigger keeps per backend, and when it reads it again:
-- a table's counter columns and primary key (until DDL on the table), the
-- list of retired writers (until it changes) and this server's writer id
-- (the setting comes first).  This session plays the apply worker, and
-- runs the DDL between two applied rows.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

\set A '00000000-0000-0000-0000-00000000000a'
\set B '00000000-0000-0000-0000-00000000000b'
\set X 'cccccccc-0000-0000-0000-0000000000c1'
CREATE TABLE rmc (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('rmc');
INSERT INTO rmc VALUES (1, format('{%s:1:1}', :'A')::counter_crdt);
SET session_replication_role = replica;
UPDATE rmc SET c = format('{%s:1:2}', :'B')::counter_crdt WHERE k = 1;
SELECT c FROM rmc;

-- A column that cannot be merged, added after the trigger read the table:
-- refused at the next applied row, in the same transaction and after it.
BEGIN;
UPDATE rmc SET c = format('{%s:2:3}', :'B')::counter_crdt WHERE k = 1;
ALTER TABLE rmc ADD COLUMN note text;
UPDATE rmc SET c = format('{%s:3:4}', :'B')::counter_crdt WHERE k = 1;
ROLLBACK;
-- rolled back: merged again
UPDATE rmc SET c = format('{%s:3:4}', :'B')::counter_crdt WHERE k = 1;
SELECT c FROM rmc;
ALTER TABLE rmc ADD COLUMN note text;
UPDATE rmc SET c = format('{%s:4:5}', :'B')::counter_crdt WHERE k = 1;
ALTER TABLE rmc DROP COLUMN note;
UPDATE rmc SET c = format('{%s:4:5}', :'B')::counter_crdt WHERE k = 1;
SELECT c FROM rmc;

-- A counter column added later is merged too, and one dropped is gone.
ALTER TABLE rmc ADD COLUMN d counter_crdt;
UPDATE rmc SET d = format('{%s:1:7}', :'A')::counter_crdt WHERE k = 1;
UPDATE rmc SET d = format('{%s:1:8}', :'B')::counter_crdt WHERE k = 1;
SELECT c, d FROM rmc;
ALTER TABLE rmc DROP COLUMN c;
UPDATE rmc SET d = format('{%s:2:9}', :'B')::counter_crdt WHERE k = 1;
SELECT * FROM rmc;

-- The primary key dropped: refused; made again (on another column set): the
-- new key is the one guarded.
ALTER TABLE rmc DROP CONSTRAINT rmc_pkey;
UPDATE rmc SET d = format('{%s:3:10}', :'B')::counter_crdt WHERE k = 1;
ALTER TABLE rmc ADD COLUMN k2 int NOT NULL DEFAULT 0;
ALTER TABLE rmc ADD PRIMARY KEY (k, k2);
UPDATE rmc SET d = format('{%s:3:10}', :'B')::counter_crdt WHERE k = 1;
UPDATE rmc SET k2 = 1 WHERE k = 1;
SELECT * FROM rmc;

-- A table made again under the same name is read as it is now.
RESET session_replication_role;
DROP TABLE rmc;
CREATE TABLE rmc (k int PRIMARY KEY, c counter_crdt, e counter_crdt);
SELECT counter_crdt_enable_replica_merge('rmc');
INSERT INTO rmc VALUES (1, format('{%s:1:1}', :'A')::counter_crdt, format('{%s:1:1}', :'A')::counter_crdt);
SET session_replication_role = replica;
UPDATE rmc SET c = format('{%s:1:2}', :'B')::counter_crdt,
               e = format('{%s:1:3}', :'B')::counter_crdt WHERE k = 1;
SELECT * FROM rmc;

-- A writer whose folds are forgotten, listed after the trigger found none:
-- the next applied row loses its shard.
RESET session_replication_role;
INSERT INTO counter_crdt_retired_writers (writer, forgotten_at) VALUES (:'X', now());
SET session_replication_role = replica;
UPDATE rmc SET c = format('{%s:1:50, %s:2:2}', :'X', :'B')::counter_crdt WHERE k = 1;
SELECT c FROM rmc;
RESET session_replication_role;
DELETE FROM counter_crdt_retired_writers WHERE writer = :'X';
SET session_replication_role = replica;
UPDATE rmc SET c = format('{%s:1:50, %s:2:2}', :'X', :'B')::counter_crdt WHERE k = 1;
SELECT c FROM rmc;

-- This server's id: the default once the trigger has used it, then the
-- setting, then the default again.
SELECT counter_crdt_node_id() = :'A' AS default_is_a;
UPDATE rmc SET e = format('{%s:5:5}', :'A')::counter_crdt WHERE k = 1;
SET counter_crdt.node_id = :'A';
UPDATE rmc SET e = format('{%s:6:6}', :'A')::counter_crdt WHERE k = 1;
RESET counter_crdt.node_id;
UPDATE rmc SET e = format('{%s:7:7}', :'A')::counter_crdt WHERE k = 1;
SELECT e FROM rmc;
RESET session_replication_role;
SELECT count(*) AS conflicts_of_a FROM counter_crdt_writer_conflicts
 WHERE writer_id = :'A' AND table_name = 'rmc'::regclass;

-- A nested statement that invalidates the table while the trigger runs:
-- a trigger of the table (fired always, before the merge trigger's) changes
-- its privileges during the merge trigger's own INSERT ... ON CONFLICT.
CREATE FUNCTION rmc_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'GRANT SELECT ON rmc TO public';
  EXECUTE 'REVOKE SELECT ON rmc FROM public';
  RETURN NEW;
END $$;
CREATE TRIGGER a_touch BEFORE INSERT OR UPDATE ON rmc FOR EACH ROW EXECUTE FUNCTION rmc_touch();
ALTER TABLE rmc ENABLE ALWAYS TRIGGER a_touch;
SET session_replication_role = replica;
INSERT INTO rmc VALUES (1, format('{%s:9:9}', :'B')::counter_crdt, NULL),
                       (2, format('{%s:1:1}', :'B')::counter_crdt, NULL);
UPDATE rmc SET c = format('{%s:10:10}', :'B')::counter_crdt WHERE k = 2;
RESET session_replication_role;
SELECT * FROM rmc ORDER BY k;

-- what this file recorded goes with its table
DELETE FROM counter_crdt_dropped_writers WHERE table_name = 'rmc'::regclass;
DELETE FROM counter_crdt_writer_conflicts WHERE table_name = 'rmc'::regclass;
DROP TABLE rmc;
DROP FUNCTION rmc_touch();
