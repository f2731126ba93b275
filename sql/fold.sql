--
-- Retiring writers (issue 24): folds, their records, forgetting.
-- A = 8000..., B = 7fff... (this server's id below), C = ff...
--
SET counter_crdt.node_id = '7fffffff-ffff-ffff-ffff-ffffffffffff';
\set A '80000000-0000-0000-0000-000000000000'
\set B '7fffffff-ffff-ffff-ffff-ffffffffffff'
\set C 'ffffffff-ffff-ffff-ffff-ffffffffffff'
CREATE TEMP TABLE v (name text PRIMARY KEY, c counter_crdt);
INSERT INTO v VALUES
  ('before', '{80000000-0000-0000-0000-000000000000:5:100, 7fffffff-ffff-ffff-ffff-ffffffffffff:3:10}'),
  ('late', '{80000000-0000-0000-0000-000000000000:6:107, 7fffffff-ffff-ffff-ffff-ffffffffffff:3:10}');
INSERT INTO v SELECT 'folded', counter_crdt_fold(c, :'A') FROM v WHERE name = 'before';

-- A's 100 now in B's shard (clock 3 -> 4); one writer, one record; 110 kept
SELECT c::bigint, counter_crdt_writers(c) FROM v WHERE name = 'folded';
SELECT s.* FROM v, counter_crdt_shards(v.c) s WHERE name = 'folded';
SELECT f.* FROM v, counter_crdt_folds(v.c) f WHERE name = 'folded';
SELECT count(*) FROM v, counter_crdt_folds(v.c) f WHERE name = 'before';

-- run twice: nothing changes
SELECT counter_crdt_fold(c, :'A') = c AS same FROM v WHERE name = 'folded';

-- a copy from before the fold merges into the same total, either way round
SELECT counter_crdt_merge(f.c, b.c)::bigint AS fb, counter_crdt_merge(b.c, f.c)::bigint AS bf,
       counter_crdt_merge(f.c, b.c) = counter_crdt_merge(b.c, f.c) AS same_state,
       counter_crdt_merge(f.c, b.c) = f.c AS adds_nothing
  FROM v f, v b WHERE f.name = 'folded' AND b.name = 'before';
SELECT counter_crdt_merge_agg(c)::bigint
  FROM (SELECT c FROM v WHERE name IN ('folded', 'before') UNION ALL
        SELECT c FROM v WHERE name = 'folded') s;
SELECT counter_crdt_merge_agg(c ORDER BY name DESC)::bigint AS agg_other_order
  FROM v WHERE name IN ('folded', 'before');

-- A wrote 7 more before it heard of the fold: counted once; folding again takes it
SELECT counter_crdt_merge(f.c, l.c)::bigint AS with_late,
       counter_crdt_fold_pending(counter_crdt_merge(f.c, l.c), :'A') AS pending,
       counter_crdt_fold(counter_crdt_merge(f.c, l.c), :'A')::bigint AS refolded,
       counter_crdt_fold_pending(counter_crdt_fold(counter_crdt_merge(f.c, l.c), :'A'), :'A') AS still_pending
  FROM v f, v l WHERE f.name = 'folded' AND l.name = 'late';
SELECT s.* FROM v f, v l,
       counter_crdt_shards(counter_crdt_fold(counter_crdt_merge(f.c, l.c), :'A')) s
 WHERE f.name = 'folded' AND l.name = 'late';

-- a folded writer cannot write again; others can, and the records stay
\set VERBOSITY sqlstate
SELECT counter_crdt_increment(c, 1, :'A') FROM v WHERE name = 'folded';
SELECT counter_crdt_increment(c, 1, :'A', 9) FROM v WHERE name = 'folded';
SELECT counter_crdt_increment(c, 1, :'C', 0) FROM v WHERE name = 'folded';
SELECT c + 9223372036854775807 FROM v WHERE name = 'folded';
\set VERBOSITY default
SELECT counter_crdt_increment(c, 1, :'A') FROM v WHERE name = 'folded';
SELECT (c + 5)::bigint AS plus, (c - 5)::bigint AS minus,
       (SELECT count(*) FROM counter_crdt_folds(c + 5)) AS records,
       counter_crdt_increment(c, 2, :'C', 1)::bigint AS exactly_once,
       counter_crdt_increment(counter_crdt_increment(c, 2, :'C', 1), 2, :'C', 1)::bigint AS replayed
  FROM v WHERE name = 'folded';

-- difference ships the records: merging it into the old copy gives the fold
SELECT counter_crdt_merge(b.c, counter_crdt_difference(f.c, b.c)) = counter_crdt_merge(f.c, b.c) AS law,
       counter_crdt_difference(b.c, f.c) IS NULL AS old_adds_nothing,
       (SELECT count(*) FROM counter_crdt_folds(counter_crdt_difference(f.c, b.c))) AS records_shipped
  FROM v f, v b WHERE f.name = 'folded' AND b.name = 'before';

-- with tombstones on either side, as without records
SELECT counter_crdt_difference('tombstone', c) = 'tombstone' AS tombstone_is_new,
       counter_crdt_difference(c, 'tombstone') IS NULL AS tombstone_holds_all,
       counter_crdt_merge(c, 'tombstone') = 'tombstone' AS merge_tombstone,
       counter_crdt_merge_agg(x)::text AS agg_tombstone,
       counter_crdt_merge_agg(x) FILTER (WHERE x <> 'tombstone') = c AS agg_folded
  FROM v, LATERAL (VALUES (v.c), ('tombstone'::counter_crdt), (v.c)) t(x)
 WHERE name = 'folded' GROUP BY c;

-- equality, hashing and order see the records
SELECT count(DISTINCT c) AS distinct_states,
       count(DISTINCT c::bigint) AS distinct_totals
  FROM (SELECT c FROM v WHERE name = 'folded' UNION ALL
        SELECT counter_crdt_forget(c, :'A') FROM v WHERE name = 'folded' UNION ALL
        SELECT c FROM v WHERE name = 'folded') s;
SELECT name, c::bigint FROM v ORDER BY c, name;
SELECT counter_crdt_digest(c) <> counter_crdt_digest(counter_crdt_forget(c, :'A')) AS digest_sees_records
  FROM v WHERE name = 'folded';

-- forgetting a finished fold: the total stays, the records go
SELECT counter_crdt_forget(c, :'A')::bigint AS total,
       (SELECT count(*) FROM counter_crdt_folds(counter_crdt_forget(c, :'A'))) AS records,
       counter_crdt_forget(c, :'A') = counter_crdt_forget(counter_crdt_forget(c, :'A'), :'A') AS idempotent
  FROM v WHERE name = 'folded';
-- an unfinished one cannot be forgotten
\set VERBOSITY sqlstate
SELECT counter_crdt_forget(counter_crdt_merge(f.c, l.c), :'A')
  FROM v f, v l WHERE f.name = 'folded' AND l.name = 'late';
\set VERBOSITY default
SELECT counter_crdt_forget(counter_crdt_merge(f.c, l.c), :'A')
  FROM v f, v l WHERE f.name = 'folded' AND l.name = 'late';
-- after forgetting, an old copy counts A again unless stripped first
SELECT counter_crdt_merge(counter_crdt_forget(f.c, :'A'), b.c)::bigint AS unstripped,
       counter_crdt_merge(counter_crdt_forget(f.c, :'A'), counter_crdt_strip(b.c, :'A'))::bigint AS stripped
  FROM v f, v b WHERE f.name = 'folded' AND b.name = 'before';

-- two servers fold A at once (into B and into C): the total stays exact;
-- C, not the holder (B has the lower id), gives back when it runs again
CREATE TEMP TABLE two AS
  SELECT counter_crdt_merge(counter_crdt_fold(c, :'A'),
                            counter_crdt_fold(c, :'A', :'C')) AS c
    FROM v WHERE name = 'before';
SELECT c::bigint, counter_crdt_fold_pending(c, :'A') AS pending,
       (SELECT count(*) FROM counter_crdt_folds(c)) AS records FROM two;
SELECT counter_crdt_fold(c, :'A', :'C')::bigint AS given_back,
       counter_crdt_fold_pending(counter_crdt_fold(c, :'A', :'C'), :'A') AS pending,
       counter_crdt_fold(c, :'A') = c AS holder_has_nothing_to_do
  FROM two;

DROP TABLE two;

-- many writers at once: one value for them all; forgetting in any order
CREATE TEMP TABLE many AS
  SELECT format('{%s:3:30, %s:2:10, %s:4:-5}', :'A', :'B', :'C')::counter_crdt AS c;
SELECT counter_crdt_fold_many(c, ARRAY[:'A', :'C']::uuid[])::bigint AS total,
       counter_crdt_writers(counter_crdt_fold_many(c, ARRAY[:'A', :'C']::uuid[])) AS writers,
       (SELECT count(*) FROM counter_crdt_folds(counter_crdt_fold_many(c, ARRAY[:'A', :'C']::uuid[]))) AS records,
       counter_crdt_fold_many(c, ARRAY[:'A', :'C']::uuid[]) =
         counter_crdt_fold(counter_crdt_fold(c, :'A'), :'C') AS same_as_one_by_one,
       counter_crdt_fold_many(c, '{}') = c AS none_is_nothing
  FROM many;
-- a chain: A folded into C, then C into B (this server); C holds A's fold
UPDATE many SET c = counter_crdt_fold(counter_crdt_fold(c, :'A', :'C'), :'C');
SELECT c::bigint AS total, counter_crdt_writers(c) AS writers,
       (SELECT count(*) FROM counter_crdt_folds(c)) AS records,
       counter_crdt_forget_many(c, ARRAY[:'C', :'A']::uuid[])::bigint AS forgotten_total,
       (SELECT count(*) FROM counter_crdt_folds(counter_crdt_forget_many(c, ARRAY[:'C', :'A']::uuid[]))) AS records_left
  FROM many;
\set VERBOSITY sqlstate
SELECT counter_crdt_forget(c, :'C') FROM many;
SELECT counter_crdt_forget_many(c, ARRAY[:'C']::uuid[]) FROM many;
SELECT counter_crdt_fold_many(c, ARRAY[:'A', NULL]::uuid[]) FROM many;
\set VERBOSITY default
SELECT counter_crdt_forget_many(c, ARRAY[:'C']::uuid[]) FROM many;
DROP TABLE many;

-- arguments
\set VERBOSITY sqlstate
SELECT counter_crdt_fold(c, :'A', :'A') FROM v WHERE name = 'before';
SELECT counter_crdt_fold(c, :'B', :'A') FROM v WHERE name = 'folded';
SELECT counter_crdt_fold(c, NULL) FROM v WHERE name = 'before';
SELECT counter_crdt_fold(c, :'A', NULL) FROM v WHERE name = 'before';
\set VERBOSITY default
SELECT counter_crdt_fold(c, :'A', :'A') FROM v WHERE name = 'before';
SELECT counter_crdt_fold(c, :'B', :'A') FROM v WHERE name = 'folded';
SELECT counter_crdt_fold(NULL, :'A') IS NULL AS null_stays,
       counter_crdt_fold('tombstone', :'A') = 'tombstone' AS tombstone_stays,
       counter_crdt_fold('{}', :'A') = '{}' AS unknown_writer,
       counter_crdt_forget(NULL, :'A') IS NULL AS forget_null,
       counter_crdt_strip('tombstone', :'A') = 'tombstone' AS strip_tombstone,
       counter_crdt_fold_pending(NULL, :'A') AS pending_null;

-- whole tables: a plain one with an identity key, a partitioned one
CREATE TABLE fold_plain (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, hits counter_crdt, misses counter_crdt);
INSERT INTO fold_plain (hits, misses)
  SELECT format('{%s:%s:%s, %s:1:1}', :'A', g, g * 10, :'B')::counter_crdt,
         CASE WHEN g % 2 = 0 THEN format('{%s:1:%s}', :'A', g)::counter_crdt END
    FROM generate_series(1, 6) g;
CREATE TABLE fold_parts (id int PRIMARY KEY, c counter_crdt) PARTITION BY RANGE (id);
CREATE TABLE fold_parts_1 PARTITION OF fold_parts FOR VALUES FROM (0) TO (10);
CREATE TABLE fold_parts_2 PARTITION OF fold_parts FOR VALUES FROM (10) TO (20);
INSERT INTO fold_parts SELECT g, format('{%s:2:%s}', :'A', g)::counter_crdt FROM generate_series(5, 14) g;
CREATE TEMP TABLE sums AS
  SELECT (SELECT sum(hits::bigint) FROM fold_plain) AS hits,
         (SELECT sum(misses::bigint) FROM fold_plain) AS misses,
         (SELECT sum(c::bigint) FROM fold_parts) AS parts;
SELECT * FROM counter_crdt_columns(NULL) WHERE table_name::text LIKE 'fold_%';
SELECT * FROM counter_crdt_writer_report('fold_plain');
SELECT * FROM counter_crdt_fold_writers(ARRAY[:'A', :'C']::uuid[]) WHERE table_name::text LIKE 'fold_%';
SELECT * FROM counter_crdt_fold_writer(:'A') WHERE table_name::text LIKE 'fold_%';
SELECT (SELECT sum(hits::bigint) FROM fold_plain) = hits AS hits_kept,
       (SELECT sum(misses::bigint) FROM fold_plain) = misses AS misses_kept,
       (SELECT sum(c::bigint) FROM fold_parts) = parts AS parts_kept,
       (SELECT max(counter_crdt_writers(hits)) FROM fold_plain) AS hit_writers
  FROM sums;
SELECT * FROM counter_crdt_writer_report(NULL) WHERE table_name::text LIKE 'fold_%';
SELECT * FROM counter_crdt_forget_writer(:'A', 'fold_parts');
SELECT * FROM counter_crdt_forget_writers(ARRAY[:'A', :'C']::uuid[]) WHERE table_name::text LIKE 'fold_%';
SELECT * FROM counter_crdt_writer_report(NULL) WHERE table_name::text LIKE 'fold_%';
SELECT (SELECT sum(hits::bigint) FROM fold_plain) = hits AS hits_kept,
       (SELECT sum(c::bigint) FROM fold_parts) = parts AS parts_kept
  FROM sums;
\set VERBOSITY sqlstate
SELECT * FROM counter_crdt_fold_writer(:'B');
SELECT * FROM counter_crdt_fold_writer(NULL);
SELECT * FROM counter_crdt_fold_writers(ARRAY[:'A', :'B']::uuid[]);
SELECT * FROM counter_crdt_forget_writer(NULL);
SELECT * FROM counter_crdt_rewrite_counters('drop', ARRAY[:'A']::uuid[], NULL);
\set VERBOSITY default
SELECT * FROM counter_crdt_fold_writer(:'B');

-- as a role without UPDATE on the table: refused, nothing changed
CREATE ROLE fold_reader;
GRANT SELECT ON fold_plain TO fold_reader;
INSERT INTO fold_plain (hits) VALUES (format('{%s:1:5}', :'C')::counter_crdt);
SET ROLE fold_reader;
\set VERBOSITY sqlstate
SELECT * FROM counter_crdt_fold_writer(:'C', 'fold_plain');
\set VERBOSITY default
RESET ROLE;
SELECT count(*) AS still_with_c FROM fold_plain WHERE counter_crdt_fold_pending(hits, :'C') OR hits::text LIKE '%ffffffff-ffff%';
DROP TABLE fold_plain, fold_parts;
DROP ROLE fold_reader;
RESET counter_crdt.node_id;
-- the default ids of this cluster's timelines: one, today's
SELECT count(*) AS timelines, max(timeline) AS current,
       bool_and(writer = counter_crdt_node_id()) AS is_the_default_id
  FROM counter_crdt_node_id_history();

-- This server's list of retired writers: the folds and forgets above put
-- A and C on it, both forgotten (B, this server's own id, was refused)
SET counter_crdt.node_id = :'B';
\set D 'dddddddd-0000-0000-0000-000000000000'
\set E 'eeeeeeee-0000-0000-0000-000000000000'
SELECT writer, retired_at <= now() AS retired, forgotten_at IS NOT NULL AS forgotten
  FROM counter_crdt_retired_writers ORDER BY writer;
-- increments under a listed id are refused: this server's id, a given one,
-- an exactly-once one, also on a NULL counter and on a tombstone
SET counter_crdt.node_id = :'A';
SELECT '{}'::counter_crdt + 1;
\set VERBOSITY sqlstate
SELECT 'tombstone'::counter_crdt - 1;
SET counter_crdt.node_id = :'B';
SELECT counter_crdt_increment('{}', 1, :'C');
SELECT counter_crdt_increment(NULL, 1, :'C', 1);
SELECT counter_crdt_increment(format('{%s:1:1}', :'C')::counter_crdt, 1, :'C', 2);
\set VERBOSITY default
SELECT ('{}'::counter_crdt + 1)::bigint AS live_id_counts,
       counter_crdt_increment('{}', 2, :'D', 1)::bigint AS unlisted_id_counts;
-- a row added by hand counts from the next statement, and so does its removal
INSERT INTO counter_crdt_retired_writers (writer) VALUES (:'D');
\set VERBOSITY sqlstate
SELECT counter_crdt_increment('{}', 1, :'D', 1);
\set VERBOSITY default
DELETE FROM counter_crdt_retired_writers WHERE writer = :'D';
SELECT counter_crdt_increment('{}', 1, :'D', 1)::bigint AS removed_id_counts;
-- a row added in a transaction that rolls back goes with it
BEGIN;
INSERT INTO counter_crdt_retired_writers (writer) VALUES (:'D');
\set VERBOSITY sqlstate
SELECT counter_crdt_increment('{}', 1, :'D', 1);
\set VERBOSITY default
ROLLBACK;
SELECT counter_crdt_increment('{}', 1, :'D', 1)::bigint AS rolled_back_id_counts;

-- In replication apply, a late copy loses what it holds of the writers whose
-- folds were forgotten here (A, C), with a warning; an id only retired (D,
-- whose fold may still be going on) is kept.
\set F '11111111-0000-0000-0000-000000000000'
INSERT INTO counter_crdt_retired_writers (writer) VALUES (:'D');
CREATE TABLE fold_apply (k int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('fold_apply');
INSERT INTO fold_apply (c) SELECT format('{%s:4:40}', :'F')::counter_crdt FROM generate_series(1, 2);
SET session_replication_role = replica;
UPDATE fold_apply SET c = format('{%s:5:100, %s:3:30}', :'A', :'F')::counter_crdt WHERE k = 1;
UPDATE fold_apply SET c = format('{%s:7:70, %s:3:30}', :'D', :'F')::counter_crdt WHERE k = 2;
INSERT INTO fold_apply (k, c) OVERRIDING SYSTEM VALUE
  VALUES (3, format('{%s:2:9, %s:1:1}', :'C', :'F')::counter_crdt),
         (1, format('{%s:6:120, %s:5:50}', :'A', :'F')::counter_crdt);
RESET session_replication_role;
SELECT k, c, c::bigint AS total FROM fold_apply ORDER BY k;
-- The rows whose shards of A and C were dropped are recorded (not the ids'
-- records alone), with the apply's replication origin: none here, then one
-- of another kind (not a subscription's); health reports
-- them per table and origin.
SELECT table_name, column_name, key, writers, origin, subscription
  FROM counter_crdt_dropped_writers ORDER BY recorded_at, key;
SELECT pg_replication_origin_create('late_peer') > 0 AS origin_made;
SELECT pg_replication_origin_session_setup('late_peer');
SET session_replication_role = replica;
UPDATE fold_apply SET c = format('{%s:8:80}', :'C')::counter_crdt WHERE k = 2;
UPDATE fold_apply SET c = counter_crdt_fold(format('{%s:2:9, %s:9:90}', :'C', :'F')::counter_crdt, :'C', :'F') WHERE k = 2;
RESET session_replication_role;
SELECT pg_replication_origin_session_reset();
SELECT pg_replication_origin_drop('late_peer');
SELECT table_name, key, writers, origin, subscription
  FROM counter_crdt_dropped_writers ORDER BY recorded_at, key;
SELECT "check", object, regexp_replace(problem, '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[-+]\d\d', 'TIME', 'g') AS problem, hint
  FROM counter_crdt_health() WHERE "check" = 'forgotten_writer_dropped';
-- a role that owns nothing of the extension may read what health reports,
-- not the keys
CREATE ROLE fold_reader;
SET ROLE fold_reader;
SELECT count(*) AS health_rows FROM counter_crdt_health() WHERE "check" = 'forgotten_writer_dropped';
\set VERBOSITY sqlstate
SELECT key FROM counter_crdt_dropped_writers;
DELETE FROM counter_crdt_dropped_writers;
\set VERBOSITY default
RESET ROLE;
DROP ROLE fold_reader;
DELETE FROM counter_crdt_dropped_writers;
SELECT count(*) AS health_rows FROM counter_crdt_health() WHERE "check" = 'forgotten_writer_dropped';

-- A table owner who may not write the list: the fold runs, the list stays,
-- and a warning says so.
CREATE ROLE fold_owner;
CREATE SCHEMA fold_own AUTHORIZATION fold_owner;
SET ROLE fold_owner;
CREATE TABLE fold_own.t (k int PRIMARY KEY, c counter_crdt);
INSERT INTO fold_own.t VALUES (1, format('{%s:1:5}', :'E')::counter_crdt);
SELECT * FROM counter_crdt_fold_writer(:'E', 'fold_own.t');
SELECT count(*) AS e_listed FROM counter_crdt_retired_writers WHERE writer = :'E';
\set VERBOSITY sqlstate
INSERT INTO counter_crdt_retired_writers (writer) VALUES (:'E');
\set VERBOSITY default
RESET ROLE;
DROP SCHEMA fold_own CASCADE;
DROP ROLE fold_owner;
DROP TABLE fold_apply;

-- emptied: every id writes again
DELETE FROM counter_crdt_retired_writers;
SELECT counter_crdt_increment('{}', 1, :'A', 1)::bigint AS a_counts_again;
RESET counter_crdt.node_id;

-- Issue 28: forget only what is finished, strip to a value input accepts,
-- cycles as two servers' folds into each other make them, long chains.
SET counter_crdt.node_id = '7fffffff-ffff-ffff-ffff-ffffffffffff';
\set D 'dddddddd-0000-4000-8000-000000000000'
-- a shard and no record: its fold never ran here (22023), alone or in a set
\set VERBOSITY sqlstate
SELECT counter_crdt_forget(format('{%s:1:10, %s:3:30}', :'A', :'B')::counter_crdt, :'A');
SELECT counter_crdt_forget_many(format('{%s:1:10, %s:3:30}', :'A', :'B')::counter_crdt, ARRAY[:'A']::uuid[]);
\set VERBOSITY default
SELECT counter_crdt_forget(format('{%s:1:10, %s:3:30}', :'A', :'B')::counter_crdt, :'A');
SELECT counter_crdt_forget(format('{%s:3:30}', :'B')::counter_crdt, :'A') = format('{%s:3:30}', :'B')::counter_crdt AS unknown_unchanged;
-- A folded into C, C into B: stripping C takes the record A>C as well,
-- and the value it gives reads back through text
CREATE TEMP TABLE chain AS
  SELECT counter_crdt_fold(counter_crdt_fold(format('{%s:1:10, %s:3:30, %s:2:20}', :'A', :'B', :'C')::counter_crdt,
                                             :'A', :'C'), :'C') AS c;
SELECT counter_crdt_strip(c, :'C') AS stripped,
       counter_crdt_strip(c, :'C')::text::counter_crdt = counter_crdt_strip(c, :'C') AS round_trip,
       counter_crdt_strip(c, :'A')::text::counter_crdt = counter_crdt_strip(c, :'A') AS round_trip_a,
       (SELECT count(*) FROM counter_crdt_folds(counter_crdt_strip(c, :'A'))) AS records_left_a
  FROM chain;
DROP TABLE chain;
-- A folded into D on D's server while D is folded into A on A's: merged,
-- a cycle, which input accepts; once B folds both, they go together
CREATE TEMP TABLE mutual AS
  SELECT counter_crdt_merge(counter_crdt_fold(c, :'A', :'D'), counter_crdt_fold(c, :'D', :'A')) AS c
    FROM (SELECT format('{%s:1:10, %s:3:30, %s:2:40}', :'A', :'B', :'D')::counter_crdt AS c) s;
SELECT c::bigint AS total, c::text::counter_crdt = c AS round_trip,
       (SELECT string_agg(format('%s>%s', left(retired::text, 2), left(target::text, 2)), ', ' ORDER BY retired)
          FROM counter_crdt_folds(c)) AS records
  FROM mutual;
UPDATE mutual SET c = counter_crdt_fold_many(c, ARRAY[:'A', :'D']::uuid[]);
\set VERBOSITY sqlstate
SELECT counter_crdt_forget(c, :'A') FROM mutual;
\set VERBOSITY default
SELECT counter_crdt_forget_many(c, ARRAY[:'D', :'A']::uuid[]) AS forgotten,
       counter_crdt_forget_many(c, ARRAY[:'D', :'A']::uuid[])::bigint AS total
  FROM mutual;
DROP TABLE mutual;
-- a literal with a record into B newer than B's shard is refused (22P02)
\set VERBOSITY sqlstate
SELECT format('{%s:3:30} folded {%s>%s:4:1:10:10}', :'B', :'A', :'B')::counter_crdt;
\set VERBOSITY default
-- a chain of 5,000 records, forgotten given in the worst order, in one pass
CREATE TEMP TABLE long_chain AS
  SELECT format('{%s:1:1} folded {%s}', :'B',
                string_agg(format('%s>%s:1:1:1:1',
                                  '00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'),
                                  CASE WHEN g = 5000 THEN :'B'
                                       ELSE '00000000-0000-4000-8000-' || lpad(to_hex(g + 1), 12, '0') END),
                           ', '))::counter_crdt AS c,
         array_agg(('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid ORDER BY g DESC) AS ids
    FROM generate_series(1, 5000) g;
SELECT (SELECT count(*) FROM counter_crdt_folds(c)) AS records,
       counter_crdt_forget_many(c, ids)::text AS forgotten,
       counter_crdt_strip(c, :'B')::text AS stripped_target
  FROM long_chain;
DROP TABLE long_chain;
RESET counter_crdt.node_id;
