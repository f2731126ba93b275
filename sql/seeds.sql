--
-- The seed documents (ScyllaDB counters) replayed in SQL.  A table holds the
-- key and the counter; reads show the value, c::bigint.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- This server's writer id, pinned.
SET counter_crdt.node_id = 'c0ffee00-0000-4000-8000-000000000001';

-- "CREATE TABLE cf (pk int PRIMARY KEY, my_counter counter);"
CREATE TABLE cf (pk int PRIMARY KEY, my_counter counter_crdt);
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;

-- "UPDATE cf SET my_counter = my_counter + 0 WHERE pk = 20;" creates the row
-- with value 0: in SQL an upsert, counting from NULL.
INSERT INTO cf VALUES (20, NULL::counter_crdt + 0)
  ON CONFLICT (pk) DO UPDATE SET my_counter = cf.my_counter + 0;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
-- "UPDATE cf SET my_counter = my_counter + 6 WHERE pk = 0;"
INSERT INTO cf VALUES (0, NULL::counter_crdt + 6)
  ON CONFLICT (pk) DO UPDATE SET my_counter = cf.my_counter + 6;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
-- The row holds one shard: this server's, clock 1.
SELECT pk, my_counter FROM cf ORDER BY pk;
-- The same upsert again: the row exists, so the counter is incremented.
INSERT INTO cf VALUES (20, NULL::counter_crdt + 0)
  ON CONFLICT (pk) DO UPDATE SET my_counter = cf.my_counter + 0;
SELECT pk, my_counter FROM cf ORDER BY pk;
-- A row that exists with a NULL counter counts from 0 too.
INSERT INTO cf VALUES (7, NULL);
UPDATE cf SET my_counter = my_counter + 0 WHERE pk = 7;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
DELETE FROM cf;

-- Seed 000, example: + 3, - 1, delete the row.
INSERT INTO cf VALUES (0, NULL) ON CONFLICT (pk) DO NOTHING;
UPDATE cf SET my_counter = my_counter + 3 WHERE pk = 0;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
UPDATE cf SET my_counter = my_counter - 1 WHERE pk = 0;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
DELETE FROM cf WHERE pk = 0;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;

-- Seeds 001, 002 and 004: + 6 gives 6, - 1 gives 5.
INSERT INTO cf VALUES (0, NULL::counter_crdt + 6)
  ON CONFLICT (pk) DO UPDATE SET my_counter = cf.my_counter + 6;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
UPDATE cf SET my_counter = my_counter - 1 WHERE pk = 0;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
SELECT * FROM counter_crdt_shards((SELECT my_counter FROM cf WHERE pk = 0));

-- Seed 002, as a row delete: "DELETE ... FROM cf WHERE pk = 0;" then
-- "UPDATE cf SET my_counter = my_counter + 3 WHERE pk = 0" touches nothing.
DELETE FROM cf WHERE pk = 0;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
WITH u AS (UPDATE cf SET my_counter = my_counter + 3 WHERE pk = 0 RETURNING 1)
SELECT count(*) AS rows_updated FROM u;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;

-- Seed 002, as a column delete: "DELETE my_counter FROM cf WHERE pk = 0;"
-- writes a tombstone.  "Once deleted, counter column values cannot be used
-- again": + 3 keeps the tombstone, and the value reads NULL.
INSERT INTO cf VALUES (0, NULL::counter_crdt + 6)
  ON CONFLICT (pk) DO UPDATE SET my_counter = cf.my_counter + 6;
UPDATE cf SET my_counter = my_counter - 1 WHERE pk = 0;
SELECT pk, my_counter::bigint AS my_counter FROM cf ORDER BY pk;
UPDATE cf SET my_counter = 'tombstone' WHERE pk = 0;
SELECT pk, my_counter::bigint AS my_counter FROM cf WHERE my_counter::bigint IS NOT NULL ORDER BY pk;
WITH u AS (UPDATE cf SET my_counter = my_counter + 3 WHERE pk = 0 RETURNING my_counter)
SELECT count(*) AS rows_updated, min(my_counter::text) AS new_state FROM u;
INSERT INTO cf VALUES (0, NULL::counter_crdt + 3)
  ON CONFLICT (pk) DO UPDATE SET my_counter = cf.my_counter + 3;
UPDATE cf SET my_counter = counter_crdt_increment(my_counter, 3, 'c0ffee00-0000-4000-8000-000000000002') WHERE pk = 0;
SELECT pk, my_counter, my_counter::bigint AS value FROM cf ORDER BY pk;
SELECT pk, my_counter::bigint AS my_counter FROM cf WHERE my_counter::bigint IS NOT NULL ORDER BY pk;
-- Another replica still has the live state: merging keeps the tombstone,
-- "tombstones win with live counter cell regardless of their timestamps".
SELECT counter_crdt_merge(my_counter, '{c0ffee00-0000-4000-8000-000000000001:9:500}') AS merge_left,
       counter_crdt_merge('{c0ffee00-0000-4000-8000-000000000001:9:500}', my_counter) AS merge_right
FROM cf WHERE pk = 0;
SELECT counter_crdt_merge_agg(c) AS merge_agg, counter_crdt_merge_agg(c)::bigint AS value
FROM (SELECT my_counter FROM cf WHERE pk = 0
      UNION ALL
      SELECT '{c0ffee00-0000-4000-8000-000000000001:2:5}'
      UNION ALL
      SELECT '{c0ffee00-0000-4000-8000-000000000001:9:500, c0ffee00-0000-4000-8000-000000000003:1:7}') r(c);
DROP TABLE cf;

-- Seed 002, tablets: the counter id of a rack is counter_crdt_rack_id(dc,
-- rack).  Three racks each hold a copy of the row and increment their own
-- copy as leader; replicas exchange states and merge them.
CREATE TABLE cf_replicas (rack text, pk int, my_counter counter_crdt, PRIMARY KEY (rack, pk));
INSERT INTO cf_replicas VALUES ('rack1', 0, NULL), ('rack2', 0, NULL), ('rack3', 0, NULL);
-- rack1 is the leader of two updates: + 6, - 1.
SELECT set_config('counter_crdt.node_id', counter_crdt_rack_id('dc1', 'rack1')::text, false) AS rack1_node_id;
UPDATE cf_replicas SET my_counter = my_counter + 6 WHERE rack = 'rack1' AND pk = 0;
-- Keep the state rack1 had after its first update: a late replica message.
CREATE TABLE cf_stale AS SELECT my_counter FROM cf_replicas WHERE rack = 'rack1';
UPDATE cf_replicas SET my_counter = my_counter - 1 WHERE rack = 'rack1' AND pk = 0;
-- rack2: + 10, with the writer given explicitly.
UPDATE cf_replicas SET my_counter = counter_crdt_increment(my_counter, 10, counter_crdt_rack_id('dc1', 'rack2'))
WHERE rack = 'rack2' AND pk = 0;
-- rack3: + 0, - 4.
SELECT set_config('counter_crdt.node_id', counter_crdt_rack_id('dc1', 'rack3')::text, false) AS rack3_node_id;
UPDATE cf_replicas SET my_counter = my_counter + 0 WHERE rack = 'rack3' AND pk = 0;
UPDATE cf_replicas SET my_counter = my_counter - 4 WHERE rack = 'rack3' AND pk = 0;
SELECT rack, my_counter, my_counter::bigint AS value FROM cf_replicas ORDER BY rack;
-- The merge of all copies: 5 + 10 - 4 = 11.
SELECT counter_crdt_merge_agg(my_counter) AS merged, counter_crdt_merge_agg(my_counter)::bigint AS value
FROM cf_replicas WHERE pk = 0;
SELECT * FROM counter_crdt_shards((SELECT counter_crdt_merge_agg(my_counter) FROM cf_replicas));
-- Replication is idempotent: repeated and stale messages change nothing.
SELECT counter_crdt_merge_agg(c)::bigint AS value_with_repeats,
       counter_crdt_merge_agg(c) = (SELECT counter_crdt_merge_agg(my_counter) FROM cf_replicas) AS same_state
FROM (SELECT my_counter FROM cf_replicas
      UNION ALL SELECT my_counter FROM cf_replicas
      UNION ALL SELECT my_counter FROM cf_stale
      UNION ALL SELECT my_counter FROM cf_replicas WHERE rack = 'rack1') r(c);
-- Every replica merges what the others sent: all converge to one state.
UPDATE cf_replicas r SET my_counter = counter_crdt_merge(r.my_counter, o.m)
FROM (SELECT counter_crdt_merge_agg(my_counter) AS m FROM cf_replicas) o;
SELECT count(DISTINCT my_counter::text) AS distinct_states, count(DISTINCT counter_crdt_digest(my_counter)) AS distinct_digests,
       min(my_counter::bigint) AS min_value, max(my_counter::bigint) AS max_value
FROM cf_replicas;
-- During a tablet migration the pending replica of rack1 writes as the
-- pending id: a shard of its own, + 2.
UPDATE cf_replicas SET my_counter = counter_crdt_increment(my_counter, 2, counter_crdt_pending_id(counter_crdt_rack_id('dc1', 'rack1')))
WHERE rack = 'rack1';
SELECT counter_crdt_merge_agg(my_counter)::bigint AS value,
       (SELECT count(*) FROM counter_crdt_shards(counter_crdt_merge_agg(my_counter))) AS shards
FROM cf_replicas;
-- rack2 deletes the counter: after merging, it is gone everywhere.
UPDATE cf_replicas SET my_counter = 'tombstone' WHERE rack = 'rack2';
UPDATE cf_replicas SET my_counter = my_counter + 100 WHERE rack = 'rack3';
SELECT counter_crdt_merge_agg(my_counter) AS merged, counter_crdt_merge_agg(my_counter)::bigint AS value
FROM cf_replicas;

DROP TABLE cf_replicas, cf_stale;
RESET counter_crdt.node_id;
