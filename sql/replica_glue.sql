--
-- replica_glue: the replication triggers and set-up against ordinary table
-- features (identity keys, key updates, partitions, TRUNCATE, other
-- triggers, row security, nested triggers) and as the roles that meet them:
-- the extension created by a database owner who is not a superuser (it is
-- trusted), the tables and triggers of a role with no privilege but its own
-- tables.  session_replication_role = replica plays the apply worker, as in
-- replica_merge.
--
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS counter_crdt CASCADE;
DROP ROLE IF EXISTS regress_glue_owner;
DROP ROLE IF EXISTS regress_glue_user;
RESET client_min_messages;
CREATE ROLE regress_glue_owner;
CREATE ROLE regress_glue_user;
SELECT format('GRANT CREATE ON DATABASE %I TO regress_glue_owner', current_database()) \gexec
GRANT CREATE ON SCHEMA public TO regress_glue_owner, regress_glue_user;

-- The trusted path: the database owner creates the extension.
SET ROLE regress_glue_owner;
CREATE EXTENSION counter_crdt;
RESET ROLE;
SELECT extowner::regrole, extversion FROM pg_extension WHERE extname = 'counter_crdt';

--
-- The conflict log: written only by replication apply, durable, never
-- applied from another server, read and cleared by the extension's owner.
--
SELECT relpersistence, relreplident FROM pg_class WHERE oid = 'counter_crdt_writer_conflicts'::regclass;
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000aa';
-- A role with its own table and the merge trigger as an ordinary trigger
-- (it fires for its local writes) cannot make a record: outside apply the
-- trigger lets local writes through unmerged and checks nothing.
SET ROLE regress_glue_user;
CREATE TABLE g_forge (k int PRIMARY KEY, c counter_crdt);
CREATE TRIGGER forge BEFORE INSERT OR UPDATE ON g_forge
  FOR EACH ROW EXECUTE FUNCTION counter_crdt_replica_merge();
INSERT INTO g_forge VALUES (1, '{00000000-0000-4000-8000-0000000000aa:1:1}');
UPDATE g_forge SET c = '{00000000-0000-4000-8000-0000000000aa:9:9}' WHERE k = 1;
-- a local INSERT of an existing key is a unique violation, not a merge
INSERT INTO g_forge VALUES (1, '{00000000-0000-4000-8000-0000000000aa:10:10}');
SELECT k, c FROM g_forge;
SELECT count(*) AS conflicts FROM counter_crdt_writer_conflicts;
RESET ROLE;
SELECT count(*) AS conflicts_seen_by_superuser FROM counter_crdt_writer_conflicts;
-- Enabled ALWAYS it fires in apply too, where a conflict is recorded ...
SET ROLE regress_glue_user;
ALTER TABLE g_forge ENABLE ALWAYS TRIGGER forge;
UPDATE g_forge SET c = '{00000000-0000-4000-8000-0000000000aa:11:11}' WHERE k = 1;
RESET ROLE;
SELECT count(*) AS conflicts FROM counter_crdt_writer_conflicts;
SET session_replication_role = replica;
UPDATE g_forge SET c = '{00000000-0000-4000-8000-0000000000aa:12:12}' WHERE k = 1;
RESET session_replication_role;
-- ... and the extension's owner reads the whole record and clears it, also
-- while a FOR ALL TABLES publication holds the table (its replica identity
-- is the whole row).
SET client_min_messages = error;  -- no wal_level warning
CREATE PUBLICATION g_all FOR ALL TABLES WITH (publish = 'insert, update, delete');
RESET client_min_messages;
SELECT count(*) AS published FROM pg_publication_tables
 WHERE pubname = 'g_all' AND tablename = 'counter_crdt_writer_conflicts';
-- Such a publication sends the records to the other servers, where they
-- would name this server's id as theirs: applied (replica role), a record
-- is dropped; a delete or update applied there changes nothing.
SET session_replication_role = replica;
INSERT INTO counter_crdt_writer_conflicts
  SELECT now(), 'g_forge'::regclass, '(k)=(9)', 'c', '00000000-0000-4000-8000-0000000000cc', 1, 1, 2, 2;
UPDATE counter_crdt_writer_conflicts SET local_clock = 0;
DELETE FROM counter_crdt_writer_conflicts;
RESET session_replication_role;
SELECT key, writer_id, local_clock FROM counter_crdt_writer_conflicts;
SET ROLE regress_glue_owner;
SELECT table_name, key, column_name, local_clock, incoming_clock FROM counter_crdt_writer_conflicts;
DELETE FROM counter_crdt_writer_conflicts;
RESET ROLE;
DROP PUBLICATION g_all;
SELECT count(*) AS conflicts FROM counter_crdt_writer_conflicts;
-- Others read only when, where and which id, as before.
SET ROLE regress_glue_user;
SELECT key FROM counter_crdt_writer_conflicts;
SELECT count(*) FROM (SELECT recorded_at, table_name, column_name, writer_id FROM counter_crdt_writer_conflicts) s;
DELETE FROM counter_crdt_writer_conflicts;
RESET ROLE;
DROP TABLE g_forge;

--
-- Every user-facing function, aggregate, operator and cast, as the role
-- with no privilege but its own tables.
--
SET ROLE regress_glue_user;
CREATE TABLE g_all_fn (k text PRIMARY KEY, c counter_crdt);
INSERT INTO g_all_fn VALUES
  ('a', counter_crdt_increment(NULL, 5, counter_crdt_rack_id('dc1', 'rack1'))),
  ('b', counter_crdt_increment('{}', 2, counter_crdt_pending_id(counter_crdt_rack_id('dc1', 'rack1')), 7)),
  ('c', counter_crdt_from_json('{"shards": [{"id": "00000000-0000-0000-0000-000000000001", "clock": 2, "value": 3}]}')),
  ('d', counter_crdt_from_jsonb('{"tombstone": true}'));
UPDATE g_all_fn SET c = counter_crdt_sub(counter_crdt_add(c, 4), 1) WHERE k = 'a';
UPDATE g_all_fn SET c = c + 1 WHERE k = 'c';
SELECT k, c, counter_crdt_value(c) AS value, c::bigint AS as_bigint, counter_crdt_writers(c) AS writers,
       counter_crdt_to_json(c)::text = c::json::text AS json_same, counter_crdt_to_jsonb(c) = c::jsonb AS jsonb_same
  FROM g_all_fn ORDER BY g_all_fn.c, k;
SELECT counter_crdt_merge_agg(c) AS merged,
       encode(counter_crdt_digest_agg(k, c), 'hex') <> '' AS digest_agg
  FROM g_all_fn WHERE k <> 'd';
SELECT counter_crdt_merge(x.c, y.c) AS merge_a_b FROM g_all_fn x, g_all_fn y WHERE x.k = 'a' AND y.k = 'b';
SELECT k, s.* FROM g_all_fn, counter_crdt_shards(c) s WHERE k IN ('a', 'b') ORDER BY k, s.id;
SELECT count(DISTINCT x.c) AS distinct_states, count(*) FILTER (WHERE x.c = y.c) AS equal_pairs,
       count(*) FILTER (WHERE x.c < y.c) AS ordered_pairs
  FROM g_all_fn x CROSS JOIN g_all_fn y;
SELECT counter_crdt_difference(c, '{}') = c AS difference, length(counter_crdt_digest(c)) AS digest_bytes,
       counter_crdt_node_id() = '00000000-0000-4000-8000-0000000000aa' AS node_id
  FROM g_all_fn WHERE k = 'a';
SELECT count(*) AS health_rows_visible FROM counter_crdt_health();
COPY g_all_fn TO STDOUT;
DROP TABLE g_all_fn;
RESET ROLE;

--
-- Nested triggers: an applied row of table A whose AFTER trigger (enabled
-- ALWAYS, so it fires in apply) writes to counter table B, whose columns lie
-- differently, and inserts into A again.  Each table's merge sees its own
-- rows only.
--
CREATE TABLE g_a (k int PRIMARY KEY, c counter_crdt);
CREATE TABLE g_b (name text PRIMARY KEY, x counter_crdt, y counter_crdt, z counter_crdt);
SELECT counter_crdt_enable_replica_merge('g_a'), counter_crdt_enable_replica_merge('g_b');
INSERT INTO g_b VALUES ('one', '{}', '{00000000-0000-0000-0000-00000000000b:1:1}', NULL);
CREATE FUNCTION g_a_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE g_b SET x = '{00000000-0000-0000-0000-00000000000b:5:5}', z = '{00000000-0000-0000-0000-00000000000c:1:2}'
   WHERE name = 'one';
  IF NEW.k < 100 THEN
    INSERT INTO g_a VALUES (NEW.k + 100, '{00000000-0000-0000-0000-00000000000c:1:1}');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER g_a_after AFTER INSERT OR UPDATE ON g_a FOR EACH ROW EXECUTE FUNCTION g_a_after();
ALTER TABLE g_a ENABLE ALWAYS TRIGGER g_a_after;
INSERT INTO g_a VALUES (1, '{00000000-0000-0000-0000-00000000000a:1:1}');
SET session_replication_role = replica;
-- an existing key (conflict action) and a new one, each nesting the other table
INSERT INTO g_a VALUES (1, '{00000000-0000-0000-0000-00000000000a:2:2}');
INSERT INTO g_a VALUES (2, '{00000000-0000-0000-0000-00000000000a:1:7}');
INSERT INTO g_a VALUES (101, '{00000000-0000-0000-0000-00000000000d:1:4}');
-- an applied row whose trigger inserts a key that exists: merged too
INSERT INTO g_a VALUES (1, '{00000000-0000-0000-0000-00000000000a:3:3}');
RESET session_replication_role;
SELECT k, c FROM g_a ORDER BY k;
SELECT name, x, y, z FROM g_b;
DROP TABLE g_a, g_b;
DROP FUNCTION g_a_after();

--
-- A look-alike conflicts table: a schema of the extension at 1.1 (no
-- conflicts table yet), a table of that name made by the database owner.
-- The 1.4 library never writes to it.
--
SET client_min_messages = warning;
DROP EXTENSION counter_crdt CASCADE;
RESET client_min_messages;
CREATE SCHEMA g_old AUTHORIZATION regress_glue_owner;
SET ROLE regress_glue_owner;
CREATE EXTENSION counter_crdt VERSION '1.1' SCHEMA g_old;
CREATE TABLE g_old.counter_crdt_writer_conflicts (a int, b int, c int, d int, e int, f int, g int, h int, i int);
CREATE TABLE g_old.t (k int PRIMARY KEY, c g_old.counter_crdt);
SELECT g_old.counter_crdt_enable_replica_merge('g_old.t');
INSERT INTO g_old.t VALUES (1, '{00000000-0000-4000-8000-0000000000aa:1:1}');
RESET ROLE;
SET session_replication_role = replica;
UPDATE g_old.t SET c = '{00000000-0000-4000-8000-0000000000aa:5:5}' WHERE k = 1;
RESET session_replication_role;
SELECT count(*) AS untouched FROM g_old.counter_crdt_writer_conflicts;
SELECT k, c FROM g_old.t;
SET client_min_messages = warning;
DROP SCHEMA g_old CASCADE;
RESET client_min_messages;
SET ROLE regress_glue_owner;
CREATE EXTENSION counter_crdt;
RESET ROLE;

--
-- Identity keys: an applied INSERT of a new key keeps the applied identity
-- value (the apply worker writes it as it is; the trigger's own insert must
-- override the identity too), and of an existing key merges.
--
SET ROLE regress_glue_user;
CREATE TABLE g_id (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('g_id');
INSERT INTO g_id (c) VALUES ('{00000000-0000-0000-0000-00000000000a:1:1}');
RESET ROLE;
SET session_replication_role = replica;
INSERT INTO g_id OVERRIDING SYSTEM VALUE VALUES (7, '{00000000-0000-0000-0000-00000000000b:1:70}');
INSERT INTO g_id OVERRIDING SYSTEM VALUE VALUES (1, '{00000000-0000-0000-0000-00000000000b:2:20}');
RESET session_replication_role;
SELECT id, c, c::bigint FROM g_id ORDER BY id;
SELECT * FROM counter_crdt_health() WHERE object = 'g_id';

--
-- Key updates are refused where they are made, before any row changes; an
-- update of other columns, or one that sets the key to itself, is not.
--
SET ROLE regress_glue_user;
CREATE TABLE g_k (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('g_k');
INSERT INTO g_k VALUES (2, '{00000000-0000-0000-0000-00000000000a:1:5}');
\set VERBOSITY sqlstate
UPDATE g_k SET k = 3 WHERE k = 2;
\set VERBOSITY default
UPDATE g_k SET k = 3, c = c + 1 WHERE k = 2;
UPDATE g_k SET k = k, c = c + 1 WHERE k = 2;
UPDATE g_k SET k = 2 WHERE k = 2;
SELECT k, c::bigint FROM g_k ORDER BY k;
RESET ROLE;
SET client_min_messages = error;
CREATE PUBLICATION g_pub FOR TABLE g_k WITH (publish = 'insert, update, delete');
RESET client_min_messages;
-- A primary key that grows needs a guard that covers it: health says so
-- until the set-up function makes it again.
SET ROLE regress_glue_user;
ALTER TABLE g_k ADD COLUMN part int NOT NULL DEFAULT 0,
  DROP CONSTRAINT g_k_pkey, ADD PRIMARY KEY (k, part);
SELECT "check", object FROM counter_crdt_health();
UPDATE g_k SET part = 1 WHERE k = 2;
SELECT counter_crdt_enable_replica_merge('g_k');
SELECT "check", object FROM counter_crdt_health();
UPDATE g_k SET part = 2 WHERE k = 2;
UPDATE g_k SET k = 4 WHERE k = 2;
SELECT k, part, c::bigint FROM g_k ORDER BY k;
SELECT tgname, tgenabled, tgattr FROM pg_trigger WHERE tgrelid = 'g_k'::regclass ORDER BY tgname;
SELECT pg_get_triggerdef(oid) FROM pg_trigger
 WHERE tgrelid = 'g_k'::regclass AND tgname = 'counter_crdt_key_guard_after';
-- A guard disabled, or enabled for replication only, is reported and
-- enabled again.
ALTER TABLE g_k ENABLE REPLICA TRIGGER counter_crdt_key_guard;
ALTER TABLE g_k DISABLE TRIGGER counter_crdt_truncate_guard;
SELECT "check", object FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('g_k');
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'g_k'::regclass ORDER BY tgname;
-- Enabled ALWAYS, the key guard would also refuse a replicated key change
-- (which the merge trigger refuses anyway): it counts as firing.
ALTER TABLE g_k ENABLE ALWAYS TRIGGER counter_crdt_key_guard;
SELECT "check", object FROM counter_crdt_health();
RESET ROLE;
-- A replicated key change is still refused by the merge trigger.
SET session_replication_role = replica;
UPDATE g_k SET k = 5 WHERE k = 2;
RESET session_replication_role;
DROP PUBLICATION g_pub;

--
-- TRUNCATE is refused; health reports publications that publish it.
--
SET ROLE regress_glue_user;
TRUNCATE g_k;
SELECT count(*) FROM g_k;
RESET ROLE;
SET client_min_messages = error;
CREATE PUBLICATION g_pub FOR TABLE g_k, g_id;
RESET client_min_messages;
SELECT "check", object, hint FROM counter_crdt_health();
ALTER PUBLICATION g_pub SET (publish = 'insert, update, delete');
SELECT "check", object, hint FROM counter_crdt_health();
DROP PUBLICATION g_pub;
DROP TABLE g_id, g_k;

--
-- A partitioned table: set up on the parent, each partition gets the
-- guards; an update that would move a row to another partition is refused
-- before anything is deleted (the counter is intact, no tombstone), and so
-- is a TRUNCATE of one partition.  Applied rows merge in the partitions.
--
SET ROLE regress_glue_user;
CREATE TABLE g_p (region int, k int, c counter_crdt, PRIMARY KEY (region, k)) PARTITION BY LIST (region);
CREATE TABLE g_p1 PARTITION OF g_p FOR VALUES IN (1);
CREATE TABLE g_p2 PARTITION OF g_p FOR VALUES IN (2);
SELECT counter_crdt_enable_replica_merge('g_p');
SELECT tgrelid::regclass, tgname, tgenabled FROM pg_trigger
 WHERE tgrelid IN ('g_p'::regclass, 'g_p1'::regclass, 'g_p2'::regclass) ORDER BY 1, 2;
INSERT INTO g_p VALUES (1, 1, '{00000000-0000-0000-0000-00000000000a:3:30}');
UPDATE g_p SET region = 2 WHERE k = 1;
SELECT tableoid::regclass, region, k, c, c::bigint FROM g_p;
TRUNCATE g_p1;
TRUNCATE g_p;
RESET ROLE;
SET session_replication_role = replica;
UPDATE g_p SET c = '{00000000-0000-0000-0000-00000000000b:1:5}' WHERE region = 1 AND k = 1;
INSERT INTO g_p VALUES (1, 1, '{00000000-0000-0000-0000-00000000000c:1:6}'), (2, 9, '{00000000-0000-0000-0000-00000000000c:1:1}');
RESET session_replication_role;
SELECT tableoid::regclass, region, k, c::bigint FROM g_p ORDER BY region, k;
-- A partition made later lacks the truncate guard until set up again.
SET ROLE regress_glue_user;
CREATE TABLE g_p3 PARTITION OF g_p FOR VALUES IN (3);
RESET ROLE;
SET client_min_messages = error;
CREATE PUBLICATION g_pub FOR TABLE g_p WITH (publish = 'insert, update, delete', publish_via_partition_root = true);
RESET client_min_messages;
SELECT "check", object, problem FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('g_p');
SELECT "check", object FROM counter_crdt_health();
-- A partition's clone of the merge, delete or key guard trigger changed
-- alone (the table's own trigger is right): health names the partition,
-- the set-up function enables each clone again, and a second call has
-- nothing left to do.  Each kind on another partition, so that a check
-- dropped for one of them leaves its row out.
SET ROLE regress_glue_user;
ALTER TABLE g_p1 DISABLE TRIGGER counter_crdt_replica_merge;
ALTER TABLE g_p2 ENABLE TRIGGER counter_crdt_replica_merge;
ALTER TABLE g_p2 DISABLE TRIGGER counter_crdt_delete_as_tombstone;
ALTER TABLE g_p3 DISABLE TRIGGER counter_crdt_key_guard;
SELECT "check", object, problem FROM counter_crdt_health() ORDER BY 1, 3;
SELECT counter_crdt_enable_replica_merge('g_p');
SELECT "check", object FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('g_p');
SELECT tgrelid::regclass, tgname, tgenabled FROM pg_trigger
 WHERE tgrelid IN ('g_p1'::regclass, 'g_p2'::regclass, 'g_p3'::regclass)
   AND tgname IN ('counter_crdt_replica_merge', 'counter_crdt_delete_as_tombstone', 'counter_crdt_key_guard')
 ORDER BY 1, 2;
-- ALWAYS is not REPLICA either.
ALTER TABLE g_p3 ENABLE ALWAYS TRIGGER counter_crdt_replica_merge;
SELECT "check", object, problem FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('g_p');
RESET ROLE;
DROP PUBLICATION g_pub;
-- A local DELETE in a partition still makes tombstones.
SET ROLE regress_glue_user;
DELETE FROM g_p WHERE region = 2 AND k = 9;
SELECT region, k, c FROM g_p WHERE region = 2;
DROP TABLE g_p;

-- One walk of the partitions gathers every clone's problem and command, on
-- a partition of a partition too: there the key guard's clone, the AFTER
-- check's clone and the truncate guard disabled together, and the delete
-- trigger's clone on the partition between (ALTER TABLE recurses: in the
-- leaf too).  Health names the five, one set-up call enables them all, and
-- a key update in the leaf is refused.
CREATE TABLE g_w (region int, k int, c counter_crdt, PRIMARY KEY (region, k)) PARTITION BY LIST (region);
CREATE TABLE g_w1 PARTITION OF g_w FOR VALUES IN (1) PARTITION BY LIST (k);
CREATE TABLE g_w11 PARTITION OF g_w1 FOR VALUES IN (1, 2);
SELECT counter_crdt_enable_replica_merge('g_w');
INSERT INTO g_w VALUES (1, 1, '{00000000-0000-0000-0000-00000000000a:1:4}');
ALTER TABLE g_w11 DISABLE TRIGGER counter_crdt_key_guard;
ALTER TABLE g_w11 DISABLE TRIGGER counter_crdt_key_guard_after;
ALTER TABLE g_w11 DISABLE TRIGGER counter_crdt_truncate_guard;
ALTER TABLE g_w1 DISABLE TRIGGER counter_crdt_delete_as_tombstone;
RESET ROLE;
SET client_min_messages = error;
CREATE PUBLICATION g_pub FOR TABLE g_w WITH (publish = 'insert, update, delete', publish_via_partition_root = true);
RESET client_min_messages;
SELECT "check", object, problem FROM counter_crdt_health() ORDER BY 1, 3;
SET ROLE regress_glue_user;
SELECT counter_crdt_enable_replica_merge('g_w');
SELECT "check", object FROM counter_crdt_health();
SELECT tgrelid::regclass, tgname, tgenabled FROM pg_trigger
 WHERE tgrelid IN ('g_w1'::regclass, 'g_w11'::regclass) ORDER BY 1, 2;
UPDATE g_w SET k = 2 WHERE k = 1;
SELECT tableoid::regclass, region, k, c::bigint FROM g_w;
RESET ROLE;
DROP PUBLICATION g_pub;
SET ROLE regress_glue_user;
DROP TABLE g_w;

--
-- A BEFORE UPDATE trigger of the owner's that fires after the key guard
-- (triggers fire in name order) and changes the key: the guard saw the key
-- unchanged, the AFTER check sees the row as written and refuses it; for
-- either column of a composite key, on a partitioned table too (the check
-- is cloned to every partition, one made later as well).  A trigger that
-- changes a counter, or a statement that sets the key to itself, passes.
--
SET ROLE regress_glue_user;
CREATE TABLE g_kt (a int, b text, c counter_crdt, PRIMARY KEY (a, b));
SELECT counter_crdt_enable_replica_merge('g_kt');
SELECT pg_get_triggerdef(oid) FROM pg_trigger
 WHERE tgrelid = 'g_kt'::regclass AND tgname = 'counter_crdt_key_guard_after';
INSERT INTO g_kt VALUES (1, 'x', '{00000000-0000-0000-0000-00000000000a:1:5}'),
  (2, 'y', '{00000000-0000-0000-0000-00000000000a:1:7}');
CREATE FUNCTION g_rekey() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  CASE TG_ARGV[0]
    WHEN 'a' THEN NEW.a := NEW.a + 1000;
    WHEN 'b' THEN NEW.b := NEW.b || '!';
    ELSE NEW.c := NEW.c + 1;
  END CASE;
  RETURN NEW;
END $$;
CREATE TRIGGER zz_rekey BEFORE UPDATE ON g_kt FOR EACH ROW EXECUTE FUNCTION g_rekey('a');
UPDATE g_kt SET c = c + 1 WHERE a = 1;
DROP TRIGGER zz_rekey ON g_kt;
CREATE TRIGGER zz_rekey BEFORE UPDATE ON g_kt FOR EACH ROW EXECUTE FUNCTION g_rekey('b');
\set VERBOSITY sqlstate
UPDATE g_kt SET c = c + 1 WHERE a = 2;
\set VERBOSITY default
DROP TRIGGER zz_rekey ON g_kt;
CREATE TRIGGER zz_rekey BEFORE UPDATE ON g_kt FOR EACH ROW EXECUTE FUNCTION g_rekey('c');
UPDATE g_kt SET c = c + 1 WHERE a = 1;
UPDATE g_kt SET a = a, b = b WHERE a = 2;
SELECT a, b, c::bigint FROM g_kt ORDER BY a;
DROP TRIGGER zz_rekey ON g_kt;
CREATE TABLE g_kp (a int, b text, c counter_crdt, PRIMARY KEY (a, b)) PARTITION BY LIST (a);
CREATE TABLE g_kp1 PARTITION OF g_kp FOR VALUES IN (1);
SELECT counter_crdt_enable_replica_merge('g_kp');
CREATE TABLE g_kp2 PARTITION OF g_kp FOR VALUES IN (2);
INSERT INTO g_kp VALUES (1, 'x', '{00000000-0000-0000-0000-00000000000a:1:5}'),
  (2, 'y', '{00000000-0000-0000-0000-00000000000a:1:7}');
CREATE TRIGGER zz_rekey BEFORE UPDATE ON g_kp FOR EACH ROW EXECUTE FUNCTION g_rekey('b');
\set VERBOSITY sqlstate
UPDATE g_kp SET c = c + 1 WHERE a = 1;
UPDATE g_kp SET c = c + 1 WHERE a = 2;
UPDATE g_kp2 SET c = c + 1;
\set VERBOSITY default
DROP TRIGGER zz_rekey ON g_kp;
CREATE TRIGGER zz_rekey BEFORE UPDATE ON g_kp FOR EACH ROW EXECUTE FUNCTION g_rekey('c');
UPDATE g_kp SET c = c + 1;
SELECT tableoid::regclass, a, b, c::bigint FROM g_kp ORDER BY a;
DROP TRIGGER zz_rekey ON g_kp;
RESET ROLE;
-- In replication apply the check does not fire, as the key guard does not:
-- a replicated key change is the merge trigger's to refuse.
SET session_replication_role = replica;
UPDATE g_kt SET c = '{00000000-0000-0000-0000-00000000000b:1:1}' WHERE a = 1;
UPDATE g_kt SET a = 5 WHERE a = 1;
RESET session_replication_role;
SELECT a, b, c::bigint FROM g_kt ORDER BY a;
-- A table without the check (set up under 1.5, or the check dropped by
-- hand), one whose check does not read the whole key, and a partition
-- whose clone is disabled: health reports each, and the set-up function
-- makes or enables the check again.
SET client_min_messages = error;
CREATE PUBLICATION g_pub FOR TABLE g_kt, g_kp WITH (publish = 'insert, update, delete', publish_via_partition_root = true);
RESET client_min_messages;
SET ROLE regress_glue_user;
SELECT "check", object FROM counter_crdt_health();
DROP TRIGGER counter_crdt_key_guard_after ON g_kt;
ALTER TABLE g_kp2 DISABLE TRIGGER counter_crdt_key_guard_after;
SELECT "check", object, problem FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('g_kt');
SELECT counter_crdt_enable_replica_merge('g_kp');
SELECT "check", object FROM counter_crdt_health();
SELECT tgrelid::regclass, tgname, tgenabled FROM pg_trigger
 WHERE tgrelid IN ('g_kt'::regclass, 'g_kp'::regclass, 'g_kp1'::regclass, 'g_kp2'::regclass)
   AND tgname = 'counter_crdt_key_guard_after' ORDER BY 1;
DROP TRIGGER counter_crdt_key_guard_after ON g_kt;
CREATE TRIGGER counter_crdt_key_guard_after AFTER UPDATE ON g_kt
  FOR EACH ROW WHEN (OLD.a <> NEW.a) EXECUTE FUNCTION counter_crdt_local_guard();
SELECT "check", object FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('g_kt');
SELECT "check", object FROM counter_crdt_health();
SELECT pg_get_triggerdef(oid) FROM pg_trigger
 WHERE tgrelid = 'g_kt'::regclass AND tgname = 'counter_crdt_key_guard_after';
RESET ROLE;
DROP PUBLICATION g_pub;
DROP TABLE g_kt, g_kp;
DROP FUNCTION g_rekey();
SET ROLE regress_glue_user;

--
-- A BEFORE UPDATE trigger of the owner's that changes the partition key
-- makes PostgreSQL move the row by a delete, which fires no AFTER UPDATE
-- trigger, and which the delete trigger would turn into tombstones.  On a
-- partitioned table the key guard fires for every UPDATE and notes the row
-- it passed; the delete of that row in the same statement is refused as the
-- move it is: by UPDATE whether or not it sets a key column, by MERGE, and
-- when the trigger updates another row of the partition first.  Counters
-- stay as they were.  An update that keeps the partition, a DELETE, and a
-- DELETE after an UPDATE of the row in another statement pass.
--
CREATE TABLE g_mv (a int, b text, c counter_crdt, PRIMARY KEY (a, b)) PARTITION BY LIST (a);
CREATE TABLE g_mv1 PARTITION OF g_mv FOR VALUES IN (1);
CREATE TABLE g_mv2 PARTITION OF g_mv FOR VALUES IN (2);
SELECT counter_crdt_enable_replica_merge('g_mv');
SELECT tgrelid::regclass, pg_get_triggerdef(oid) FROM pg_trigger
 WHERE tgname = 'counter_crdt_key_guard' AND tgrelid IN ('g_mv'::regclass, 'g_mv1'::regclass) ORDER BY 1;
-- s and u lie at the same place of their partitions
INSERT INTO g_mv VALUES (1, 's', '{00000000-0000-0000-0000-00000000000a:1:5}'),
  (2, 'u', '{00000000-0000-0000-0000-00000000000a:1:5}'),
  (1, 'x', '{00000000-0000-0000-0000-00000000000a:1:9}'),
  (1, 'n', '{00000000-0000-0000-0000-00000000000a:1:9}'),
  (1, 'w', '{00000000-0000-0000-0000-00000000000a:1:1}'),
  (1, 'd', '{00000000-0000-0000-0000-00000000000a:1:3}');
SELECT tableoid::regclass, b, ctid FROM g_mv WHERE b IN ('s', 'u') ORDER BY 1;
-- hot counters move to partition 2; n first increments w; s is skipped,
-- but for its tombstones
CREATE FUNCTION g_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.b = 'n' AND pg_trigger_depth() = 1 THEN
    UPDATE g_mv SET c = c + 1 WHERE a = 1 AND b = 'w';
  END IF;
  IF NEW.b = 's' AND NEW.c::bigint IS NOT NULL THEN
    RETURN NULL;
  END IF;
  IF NEW.c::bigint >= 10 THEN
    NEW.a := 2;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER zz_move BEFORE UPDATE ON g_mv FOR EACH ROW EXECUTE FUNCTION g_move();
UPDATE g_mv SET c = c + 1 WHERE b = 'x';
\set VERBOSITY sqlstate
UPDATE g_mv SET a = a, c = c + 1 WHERE b = 'x';
MERGE INTO g_mv USING (VALUES (1, 'x')) v(a, b) ON g_mv.a = v.a AND g_mv.b = v.b
  WHEN MATCHED THEN UPDATE SET c = g_mv.c + 1;
UPDATE g_mv SET c = c + 1 WHERE b = 'n';
\set VERBOSITY default
UPDATE g_mv SET c = c + 1 WHERE b = 'w';
SELECT tableoid::regclass, a, b, c::bigint FROM g_mv ORDER BY b;
DELETE FROM g_mv WHERE b = 'x';
BEGIN;
UPDATE g_mv SET c = c + 1 WHERE b = 'w';
DELETE FROM g_mv WHERE b = 'w';
COMMIT;
-- Each part of the note in turn: an UPDATE that a trigger skips leaves the
-- row where it was, and a DELETE of another row at the same place of another
-- partition (relid), of another row of the partition (tid), in another
-- subtransaction (subxact), in another statement (stmt) and in another
-- transaction of the same CALL (lxid) is a delete.  The one false refusal:
-- the same row, in the same statement and subtransaction.
CREATE FUNCTION g_skip_delete(upd_a int, upd_b text, del_a int, del_b text, sub bool)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF sub THEN
    BEGIN
      UPDATE g_mv SET c = c + 1 WHERE a = upd_a AND b = upd_b;
    EXCEPTION WHEN division_by_zero THEN NULL;
    END;
  ELSE
    UPDATE g_mv SET c = c + 1 WHERE a = upd_a AND b = upd_b;
  END IF;
  DELETE FROM g_mv WHERE a = del_a AND b = del_b;
END $$;
CREATE PROCEDURE g_skip_commit_delete() LANGUAGE plpgsql AS $$
BEGIN
  UPDATE g_mv SET c = c + 1 WHERE a = 1 AND b = 's';
  COMMIT;
  DELETE FROM g_mv WHERE a = 1 AND b = 's';
END $$;
SELECT g_skip_delete(1, 's', 2, 'u', false);
SELECT g_skip_delete(1, 's', 1, 'd', false);
\set VERBOSITY sqlstate
SELECT g_skip_delete(1, 's', 1, 's', false);
\set VERBOSITY default
SELECT b, c FROM g_mv WHERE b = 's';
BEGIN;
UPDATE g_mv SET c = c + 1 WHERE b = 's';
DELETE FROM g_mv WHERE b = 's';
SELECT b, c FROM g_mv WHERE b = 's';
ROLLBACK;
BEGIN;
SELECT g_skip_delete(1, 's', 1, 's', true);
SELECT b, c FROM g_mv WHERE b = 's';
ROLLBACK;
CALL g_skip_commit_delete();
SELECT tableoid::regclass, a, b, c FROM g_mv ORDER BY b;
RESET ROLE;
-- A partitioned table whose key guard fires only for UPDATEs of the key (set
-- up under 1.5): health reports it, the set-up function makes it again.
SET client_min_messages = error;
CREATE PUBLICATION g_pub FOR TABLE g_mv WITH (publish = 'insert, update, delete', publish_via_partition_root = true);
RESET client_min_messages;
SET ROLE regress_glue_user;
SELECT "check", object FROM counter_crdt_health();
DROP TRIGGER counter_crdt_key_guard ON g_mv;
CREATE TRIGGER counter_crdt_key_guard BEFORE UPDATE OF a, b ON g_mv
  FOR EACH ROW EXECUTE FUNCTION counter_crdt_local_guard();
SELECT "check", object, problem FROM counter_crdt_health();
SELECT counter_crdt_enable_replica_merge('g_mv');
SELECT "check", object FROM counter_crdt_health();
SELECT tgrelid::regclass, pg_get_triggerdef(oid) FROM pg_trigger
 WHERE tgname = 'counter_crdt_key_guard' AND tgrelid IN ('g_mv'::regclass, 'g_mv2'::regclass) ORDER BY 1;
RESET ROLE;
DROP PUBLICATION g_pub;
DROP TABLE g_mv;
DROP FUNCTION g_move();
DROP FUNCTION g_skip_delete(int, text, int, text, bool);
DROP PROCEDURE g_skip_commit_delete();
SET ROLE regress_glue_user;

--
-- Another BEFORE UPDATE trigger that skips the update, and row security that
-- hides the row from UPDATE: a local DELETE cannot write its tombstones, and
-- says so with its own SQLSTATE; the row is left as it was.
--
CREATE TABLE g_d (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('g_d');
INSERT INTO g_d VALUES (1, '{00000000-0000-0000-0000-00000000000a:1:1}'), (2, '{00000000-0000-0000-0000-00000000000a:1:2}');
CREATE FUNCTION g_skip() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER g_skip BEFORE UPDATE ON g_d FOR EACH ROW WHEN (OLD.k = 1) EXECUTE FUNCTION g_skip();
\set VERBOSITY sqlstate
DELETE FROM g_d WHERE k = 1;
\set VERBOSITY default
DELETE FROM g_d WHERE k = 1;
DROP TRIGGER g_skip ON g_d;
ALTER TABLE g_d ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY g_sel ON g_d FOR SELECT USING (true);
CREATE POLICY g_del ON g_d FOR DELETE USING (true);
CREATE POLICY g_upd ON g_d FOR UPDATE USING (k <> 2);
\set VERBOSITY sqlstate
DELETE FROM g_d WHERE k = 2;
\set VERBOSITY default
SELECT k, c FROM g_d ORDER BY k;
DELETE FROM g_d WHERE k = 1;
SELECT k, c FROM g_d ORDER BY k;
RESET ROLE;

--
-- ENABLE TRIGGER ALL: the merge trigger becomes an ordinary one.  Local
-- increments of this server's own shard are not replicated rows: no
-- warning, no conflict recorded, and health reports only the trigger.
--
SET ROLE regress_glue_user;
ALTER TABLE g_d DISABLE ROW LEVEL SECURITY;
ALTER TABLE g_d ENABLE TRIGGER ALL;
UPDATE g_d SET c = c + 1 WHERE k = 2;
UPDATE g_d SET c = c + 1 WHERE k = 2;
SELECT k, c::bigint FROM g_d WHERE k = 2;
RESET ROLE;
SELECT count(*) AS conflicts FROM counter_crdt_writer_conflicts;
SET client_min_messages = error;
CREATE PUBLICATION g_pub FOR TABLE g_d WITH (publish = 'insert, update, delete');
RESET client_min_messages;
SELECT "check", object FROM counter_crdt_health();

--
-- A delete trigger enabled ALWAYS fires for local deletes: health does not
-- call it missing, and the set-up function leaves it as it is.
--
SET ROLE regress_glue_user;
SELECT counter_crdt_enable_replica_merge('g_d');
ALTER TABLE g_d ENABLE ALWAYS TRIGGER counter_crdt_delete_as_tombstone;
SELECT counter_crdt_enable_replica_merge('g_d');
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'g_d'::regclass AND NOT tgisinternal ORDER BY tgname;
RESET ROLE;
SELECT "check", object FROM counter_crdt_health();
-- A disabled one is missing, and is enabled again.
ALTER TABLE g_d DISABLE TRIGGER counter_crdt_delete_as_tombstone;
SELECT "check", object FROM counter_crdt_health();
DROP PUBLICATION g_pub;
DROP TABLE g_d;
DROP FUNCTION g_skip();

--
-- A clock near the end of its range cannot come from increments: a role
-- with UPDATE on the column wrote it by hand (here for writer bb, on
-- another server), and once it is 2^63 - 1 bb's increments of that counter
-- fail.  Apply warns and records it when it brings such a shard, once;
-- health reports it apart from own-id conflicts.
--
CREATE TABLE g_clock (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('g_clock');
INSERT INTO g_clock VALUES (1, '{00000000-0000-4000-8000-0000000000bb:3:3}'), (2, '{}');
SET client_min_messages = error;
CREATE PUBLICATION g_pub FOR TABLE g_clock WITH (publish = 'insert, update, delete');
RESET client_min_messages;
SET session_replication_role = replica;
-- just below 2^62: not reported
UPDATE g_clock SET c = '{00000000-0000-4000-8000-0000000000bb:4611686018427387903:3}' WHERE k = 1;
-- 2^63 - 1: reported, once
UPDATE g_clock SET c = '{00000000-0000-4000-8000-0000000000bb:9223372036854775807:3}' WHERE k = 1;
UPDATE g_clock SET c = '{00000000-0000-4000-8000-0000000000bb:9223372036854775807:3}' WHERE k = 1;
-- in an applied INSERT of a new key too, at exactly 2^62
INSERT INTO g_clock VALUES (3, '{00000000-0000-4000-8000-0000000000cc:4611686018427387904:1}');
RESET session_replication_role;
SELECT table_name, key, writer_id, local_clock, incoming_clock FROM counter_crdt_writer_conflicts ORDER BY key;
SELECT "check", object, regexp_replace(problem, 'the last at .*: ', 'the last at ...: ') AS problem
  FROM counter_crdt_health();
-- bb's increments of that counter now fail, wherever it is merged
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000bb';
UPDATE g_clock SET c = c + 1 WHERE k = 1;
UPDATE g_clock SET c = c + 1 WHERE k = 2;
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000aa';
SET ROLE regress_glue_owner;
DELETE FROM counter_crdt_writer_conflicts WHERE table_name = 'g_clock'::regclass;
RESET ROLE;
SELECT count(*) FROM counter_crdt_health();
DROP PUBLICATION g_pub;
DROP TABLE g_clock;

-- Clean up: the extension as the other tests have it.
RESET counter_crdt.node_id;
SET client_min_messages = warning;
DROP EXTENSION counter_crdt CASCADE;
SELECT format('REVOKE CREATE ON DATABASE %I FROM regress_glue_owner', current_database()) \gexec
REVOKE CREATE ON SCHEMA public FROM regress_glue_owner, regress_glue_user;
DROP ROLE regress_glue_owner;
DROP ROLE regress_glue_user;
CREATE EXTENSION counter_crdt;
RESET client_min_messages;
