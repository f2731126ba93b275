--
-- difference: counter_crdt_difference(a, b), what a repair ships (contract 7.5):
-- NULL when merge(a, b) = b, else the shards of a that win over b's, or a
-- tombstone; NULL a gives NULL, NULL b gives a; the law
-- merge(b, difference(a, b)) = merge(a, b).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

SELECT p.oid::regprocedure AS function, p.provolatile, p.proisstrict, p.proparallel
FROM pg_proc p WHERE p.proname = 'counter_crdt_difference';

-- Ids: A < B < C < D as unsigned bytes (B and C straddle the signed boundary).
CREATE TEMP TABLE ids AS SELECT
  '00000000-0000-0000-0000-000000000001'::text AS a, '7fffffff-ffff-ffff-ffff-ffffffffffff'::text AS b,
  '80000000-0000-0000-0000-000000000000'::text AS c, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::text AS d;

CREATE TEMP TABLE cases (n int, what text, x counter_crdt, y counter_crdt);
INSERT INTO cases
SELECT n, what, replace(replace(replace(replace(x, 'A', a), 'B', b), 'C', c), 'D', d)::counter_crdt,
               replace(replace(replace(replace(y, 'A', a), 'B', b), 'C', c), 'D', d)::counter_crdt
FROM ids, (VALUES
  (1, 'both empty', '{}', '{}'),
  (2, 'equal', '{A:3:5, D:1:1}', '{A:3:5, D:1:1}'),
  (3, 'a below b', '{A:1:100}', '{A:2:1, D:1:1}'),
  (4, 'an id b lacks', '{A:1:5}', '{}'),
  (5, 'an id b lacks, after b''s', '{D:1:1}', '{A:1:1, B:1:1}'),
  (6, 'higher clock, lower value', '{A:2:1}', '{A:1:100}'),
  (7, 'equal clock, higher value', '{A:3:5}', '{A:3:4}'),
  (8, 'equal clock, lower value', '{A:3:4}', '{A:3:5}'),
  (9, 'only the winners', '{A:1:1, B:5:5, C:1:1, D:2:2}', '{B:5:5, C:2:0, D:1:9}'),
  (10, 'across the boundary', '{B:2:0, C:1:0}', '{B:1:0, C:2:0}'),
  (11, 'bigint edges', '{A:9223372036854775807:9223372036854775807}', '{A:9223372036854775807:-9223372036854775808}'),
  (12, 'tombstone over live', 'tombstone', '{A:1:1}'),
  (13, 'tombstone over {}', 'tombstone', '{}'),
  (14, 'tombstone over tombstone', 'tombstone', 'tombstone'),
  (15, 'live over tombstone', '{A:1:1}', 'tombstone'),
  (16, '{} over live', '{}', '{A:1:1}'),
  (17, 'a NULL', NULL, '{A:1:1}'),
  (18, 'b NULL', '{A:1:1}', NULL),
  (19, 'b NULL, a {}', '{}', NULL),
  (20, 'b NULL, a tombstone', 'tombstone', NULL),
  (21, 'both NULL', NULL, NULL)
) v(n, what, x, y);

\pset null NULL
SELECT n, what, counter_crdt_difference(x, y) AS difference,
       counter_crdt_merge(y, counter_crdt_difference(x, y)) IS NOT DISTINCT FROM counter_crdt_merge(x, y) AS law,
       (counter_crdt_difference(x, y) IS NULL) = (counter_crdt_merge(x, y) IS NOT DISTINCT FROM y) AS null_iff_nothing_new
FROM cases ORDER BY n;
\pset null ''

-- The law on many pairs of replica states that share writers, with every
-- kind of state, in both directions.
CREATE TEMP TABLE states AS
SELECT g,
       CASE
         WHEN g % 41 = 0 THEN NULL
         WHEN g % 37 = 0 THEN 'tombstone'::counter_crdt
         WHEN g % 31 = 0 THEN '{}'::counter_crdt
         ELSE (SELECT counter_crdt_merge_agg(
                        ('{' || md5('w' || w)::uuid || ':' || ((g * w * 7919) % 3 + 1) || ':' || ((g * w * 104729) % 5 - 2) || '}')::counter_crdt)
               FROM generate_series(1, 1 + g % 5) w
               WHERE (g + w) % 3 <> 0)
       END AS c
FROM generate_series(1, 300) g;
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE counter_crdt_merge(y.c, counter_crdt_difference(x.c, y.c))
                              IS DISTINCT FROM counter_crdt_merge(x.c, y.c)) AS law_broken,
       count(*) FILTER (WHERE (counter_crdt_difference(x.c, y.c) IS NULL)
                              <> (counter_crdt_merge(x.c, y.c) IS NOT DISTINCT FROM y.c)) AS null_rule_broken,
       count(*) FILTER (WHERE counter_crdt_difference(x.c, y.c) IS NOT NULL) AS non_null,
       count(*) FILTER (WHERE counter_crdt_difference(x.c, y.c) IS NULL) AS null
FROM states x, states y;

-- The difference holds only shards of a, each winning over b's.
SELECT count(*) AS shards_shipped,
       count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM counter_crdt_shards(x.c) s WHERE s = d)) AS not_from_a,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM counter_crdt_shards(y.c) s
                                      WHERE s.id = d.id AND (s.clock, s.value) >= (d.clock, d.value))) AS not_winning
FROM states x, states y, counter_crdt_shards(counter_crdt_difference(x.c, y.c)) d
WHERE x.g <= 60 AND y.g <= 60;

-- Large stored values (compressed in the table): one writer of 3000 moved on
-- in b, another in a; the difference is a's one shard, and the stored values
-- read the same afterwards.
CREATE TEMP TABLE big (k int, c counter_crdt);
INSERT INTO big
SELECT 1, counter_crdt_merge_agg(counter_crdt_increment(NULL, w, md5('big' || w)::uuid))
FROM generate_series(1, 3000) w;
INSERT INTO big
SELECT 2, counter_crdt_increment(c, 7, md5('big' || 10)::uuid) FROM big WHERE k = 1;
UPDATE big SET c = counter_crdt_increment(c, 5, md5('big' || 20)::uuid) WHERE k = 1;
CREATE TEMP TABLE big_before AS SELECT k, counter_crdt_digest(c) AS d FROM big;
SELECT (SELECT count(*) FROM counter_crdt_shards(counter_crdt_difference(a.c, b.c))) AS a_to_b_shards,
       (SELECT s.id = md5('big' || 20)::uuid AND (s.clock, s.value) = (2, 25)
        FROM counter_crdt_shards(counter_crdt_difference(a.c, b.c)) s) AS a_to_b_is_writer_20,
       (SELECT s.id = md5('big' || 10)::uuid AND (s.clock, s.value) = (2, 17)
        FROM counter_crdt_shards(counter_crdt_difference(b.c, a.c)) s) AS b_to_a_is_writer_10,
       counter_crdt_merge(b.c, counter_crdt_difference(a.c, b.c)) = counter_crdt_merge(a.c, b.c) AS law
FROM big a, big b WHERE a.k = 1 AND b.k = 2;
SELECT count(*) FILTER (WHERE counter_crdt_digest(big.c) = big_before.d) AS unchanged FROM big JOIN big_before USING (k);
DROP TABLE ids, cases, states, big, big_before;
