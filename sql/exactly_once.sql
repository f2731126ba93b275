--
-- Exactly-once increments, counter_crdt_increment(c, delta, writer, clock)
-- (contract 8.1), and the observed reset c - c::bigint.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

SET counter_crdt.node_id = '11111111-1111-1111-1111-111111111111';

-- A NULL counter counts from {}: the shard is (writer, clock, delta); the
-- clock is the one given, not 1.
SELECT counter_crdt_increment(NULL, 5, '22222222-2222-2222-2222-222222222222', 7) AS from_null;
SELECT counter_crdt_increment('{}', 0, '22222222-2222-2222-2222-222222222222', 1) AS zero_creates_shard;

-- Clock above the shard's: applied, the clock jumps to the given one.
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:7:5}', 3,
                              '22222222-2222-2222-2222-222222222222', 8) AS next_clock;
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:7:5}', -3,
                              '22222222-2222-2222-2222-222222222222', 1000) AS jump;

-- Clock equal to or below the shard's: a replay, the state comes back as it
-- was (also with another delta: a replay is recognised by its clock alone).
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:7:5}', 3,
                              '22222222-2222-2222-2222-222222222222', 7) AS replay_equal;
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:7:5}', 99,
                              '22222222-2222-2222-2222-222222222222', 6) AS replay_below;
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:7:5}', 99,
                              '22222222-2222-2222-2222-222222222222', 1) AS replay_first;
SELECT c = counter_crdt_increment(c, 4, '22222222-2222-2222-2222-222222222222', 7) AS replay_is_same_state
  FROM (VALUES ('{22222222-2222-2222-2222-222222222222:7:5, 33333333-3333-3333-3333-333333333333:2:1}'::counter_crdt)) v(c);

-- Lower offsets after higher ones are replays: apply in order per writer.
SELECT counter_crdt_increment(counter_crdt_increment(NULL, 1, '22222222-2222-2222-2222-222222222222', 9),
                              1, '22222222-2222-2222-2222-222222222222', 8) AS out_of_order_lost;
SELECT counter_crdt_increment(counter_crdt_increment(NULL, 1, '22222222-2222-2222-2222-222222222222', 8),
                              1, '22222222-2222-2222-2222-222222222222', 9) AS in_order;

-- Other shards are untouched; a new writer goes in id order (first, middle,
-- last; unsigned byte order, so 8000... sorts after 7fff...).
SELECT counter_crdt_increment('{11111111-1111-1111-1111-111111111111:3:30, 33333333-3333-3333-3333-333333333333:2:20}',
                              4, '00000000-0000-0000-0000-000000000000', 1) AS new_first;
SELECT counter_crdt_increment('{11111111-1111-1111-1111-111111111111:3:30, 33333333-3333-3333-3333-333333333333:2:20}',
                              4, '22222222-2222-2222-2222-222222222222', 1) AS new_middle;
SELECT counter_crdt_increment('{11111111-1111-1111-1111-111111111111:3:30, 7fffffff-ffff-ffff-ffff-ffffffffffff:2:20}',
                              4, '80000000-0000-0000-0000-000000000000', 1) AS new_last;
SELECT counter_crdt_increment('{11111111-1111-1111-1111-111111111111:3:30, 22222222-2222-2222-2222-222222222222:5:-1, 33333333-3333-3333-3333-333333333333:2:20}',
                              4, '22222222-2222-2222-2222-222222222222', 6) AS existing_middle;

-- The bigint edges: clock 9223372036854775807 is a clock like any other.
SELECT counter_crdt_increment(NULL, -9223372036854775808, '22222222-2222-2222-2222-222222222222',
                              9223372036854775807) AS edges;
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:1:9223372036854775806}', 1,
                              '22222222-2222-2222-2222-222222222222', 2) AS value_max;

-- A tombstone stays a tombstone.
SELECT counter_crdt_increment('tombstone', 5, '22222222-2222-2222-2222-222222222222', 7) AS tombstone;

\set VERBOSITY sqlstate
-- NULL delta, writer or clock: 22004, also for a NULL counter or a tombstone.
SELECT counter_crdt_increment('{}', NULL, '22222222-2222-2222-2222-222222222222', 1);
SELECT counter_crdt_increment('{}', 1, NULL, 1);
SELECT counter_crdt_increment('{}', 1, '22222222-2222-2222-2222-222222222222', NULL);
SELECT counter_crdt_increment(NULL, 1, '22222222-2222-2222-2222-222222222222', NULL);
SELECT counter_crdt_increment('tombstone', NULL, '22222222-2222-2222-2222-222222222222', 1);
-- clock below 1: 22023, also where it would be a replay, and for a tombstone.
SELECT counter_crdt_increment('{}', 1, '22222222-2222-2222-2222-222222222222', 0);
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:7:5}', 1, '22222222-2222-2222-2222-222222222222', -1);
SELECT counter_crdt_increment(NULL, 1, '22222222-2222-2222-2222-222222222222', -9223372036854775808);
SELECT counter_crdt_increment('tombstone', 1, '22222222-2222-2222-2222-222222222222', 0);
-- value overflow: 22003, in both directions.
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:1:9223372036854775807}', 1,
                              '22222222-2222-2222-2222-222222222222', 2);
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:1:-9223372036854775808}', -1,
                              '22222222-2222-2222-2222-222222222222', 2);
\set VERBOSITY default
SELECT counter_crdt_increment('{}', 1, '22222222-2222-2222-2222-222222222222', 0);
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:1:9223372036854775807}', 1,
                              '22222222-2222-2222-2222-222222222222', 2);
-- ... but a replay never overflows: nothing is added.
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:5:9223372036854775807}', 1,
                              '22222222-2222-2222-2222-222222222222', 5) AS replay_no_overflow;

-- Markings: immutable, parallel safe, not strict; a comment.
SELECT p.provolatile, p.proparallel, p.proisstrict, p.prosecdef,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS has_comment
  FROM pg_proc p
 WHERE p.oid = 'counter_crdt_increment(counter_crdt, bigint, uuid, bigint)'::regprocedure;

--
-- In a table: two stream partitions count events into the same pages, each
-- under its own writer id, with the event offset + 1 as the clock (offsets
-- start at 0, clocks at 1).  A batch is applied, then applied again (a
-- replay after a crash before the consumer recorded its offsets): nothing
-- counts twice.
--
CREATE TABLE page_views (page text PRIMARY KEY, views counter_crdt);
CREATE TABLE events (part int, event_offset bigint, page text);
INSERT INTO events VALUES
  (0, 0, '/a'), (0, 1, '/b'), (0, 2, '/a'), (0, 3, '/a'),
  (1, 0, '/a'), (1, 1, '/c'), (1, 2, '/b');

-- A batch applied as one increment per page: the count of its events and
-- the highest offset + 1 as the clock.  With "filtered", only the events
-- above what the row already counted for this partition (its shard's clock)
-- are aggregated; without, all of them.
CREATE FUNCTION apply_batch(p int, first_offset bigint, last_offset bigint, filtered bool) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO page_views (page)
  SELECT DISTINCT page FROM events
   WHERE part = p AND event_offset BETWEEN first_offset AND last_offset
  ON CONFLICT (page) DO NOTHING;
  UPDATE page_views t
     SET views = counter_crdt_increment(t.views, e.n, e.writer, e.last + 1)
    FROM (SELECT ev.page, w.writer, count(*) AS n, max(ev.event_offset) AS last
            FROM events ev
            CROSS JOIN LATERAL (VALUES (counter_crdt_rack_id('clicks', 'partition-' || p))) w(writer)
            JOIN page_views pv ON pv.page = ev.page
           WHERE ev.part = p AND ev.event_offset BETWEEN first_offset AND last_offset
             AND (NOT filtered OR ev.event_offset + 1 >
                  coalesce((SELECT s.clock FROM counter_crdt_shards(pv.views) s WHERE s.id = w.writer), 0))
           GROUP BY ev.page, w.writer) e
   WHERE t.page = e.page;
$$;

SELECT apply_batch(0, 0, 3, true), apply_batch(1, 0, 2, true);
SELECT page, views::bigint FROM page_views ORDER BY page;
CREATE TABLE after_first AS SELECT * FROM page_views;
-- the same batches again, in the other order, and parts of them
SELECT apply_batch(1, 0, 2, true), apply_batch(0, 0, 3, true),
       apply_batch(0, 2, 3, true), apply_batch(0, 0, 1, true);
SELECT count(*) AS changed_rows
  FROM page_views p JOIN after_first f USING (page) WHERE p.views <> f.views;
SELECT page, s.id = counter_crdt_rack_id('clicks', 'partition-0') AS partition_0, s.clock, s.value
  FROM page_views, counter_crdt_shards(views) s ORDER BY page, partition_0;

-- A replay that overlaps what was committed: offsets 0..1 of partition 0
-- committed, then 0..3 replayed.  Filtered, the totals are exact
-- (/a 3, /b 1); aggregated blindly, /a counts offset 0 twice (4).
TRUNCATE page_views;
SELECT apply_batch(0, 0, 1, true), apply_batch(0, 0, 3, true);
SELECT page, views::bigint AS filtered FROM page_views ORDER BY page;
TRUNCATE page_views;
SELECT apply_batch(0, 0, 1, false), apply_batch(0, 0, 3, false);
SELECT page, views::bigint AS blind FROM page_views ORDER BY page;

--
-- Observed reset: UPDATE t SET c = c - c::bigint subtracts, under this
-- server's writer id, what this server has seen.  An increment made on
-- another server meanwhile (here writer 3333..., merged in afterwards, as
-- replication would) still counts.  A tombstone would instead absorb it and
-- end the counter for good.
--
CREATE TABLE resets (k int PRIMARY KEY, c counter_crdt);
INSERT INTO resets VALUES (1, counter_crdt_increment(NULL, 10, '33333333-3333-3333-3333-333333333333') + 5);
SELECT c, c::bigint AS value FROM resets;
-- the other server's state, with an increment of 7 we have not seen yet
CREATE TABLE other_server AS
  SELECT counter_crdt_increment(c, 7, '33333333-3333-3333-3333-333333333333') AS c FROM resets;
-- the reset, here
UPDATE resets SET c = c - c::bigint;
SELECT c, c::bigint AS value_after_reset FROM resets;
-- replication brings the other server's increment: it counts, 7
UPDATE resets SET c = counter_crdt_merge(resets.c, o.c) FROM other_server o;
SELECT c, c::bigint AS value_after_merge FROM resets;
-- and counting goes on
UPDATE resets SET c = c + 1;
SELECT c::bigint AS value_after_increment FROM resets;
-- The other server's state merged with ours gives the same: convergence.
SELECT counter_crdt_merge(o.c, r.c)::bigint = r.c::bigint AS converged
  FROM other_server o, resets r;

-- A tombstone, by contrast, absorbs the other server's increment.
SELECT counter_crdt_merge('tombstone', o.c) AS tombstone_merge,
       counter_crdt_merge('tombstone', o.c)::bigint AS value
  FROM other_server o;

-- Two servers resetting the same counter at once each subtract what they
-- have seen: the merge subtracts both.  Reset on one server only.
SELECT (a.c - a.c::bigint) AS reset_here,
       counter_crdt_increment(b.c, -b.c::bigint, '33333333-3333-3333-3333-333333333333') AS reset_there,
       counter_crdt_merge(a.c - a.c::bigint,
                          counter_crdt_increment(b.c, -b.c::bigint, '33333333-3333-3333-3333-333333333333'))::bigint
         AS both_reset
  FROM (VALUES ('{11111111-1111-1111-1111-111111111111:1:5, 33333333-3333-3333-3333-333333333333:1:10}'::counter_crdt)) a(c),
       (VALUES ('{11111111-1111-1111-1111-111111111111:1:5, 33333333-3333-3333-3333-333333333333:1:10}'::counter_crdt)) b(c);

DROP TABLE page_views, events, after_first, resets, other_server;
DROP FUNCTION apply_batch(int, bigint, bigint, bool);
