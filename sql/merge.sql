--
-- counter_crdt_merge(a, b): contract section 1, "Merge", rules 1-3 and the laws.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- Rule 1: NULL is the identity, on either side.
SELECT counter_crdt_merge(NULL, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:5}') AS null_left,
       counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:5}', NULL) AS null_right;
SELECT counter_crdt_merge(NULL, '{}') AS null_empty, counter_crdt_merge('{}', NULL) AS empty_null;
SELECT counter_crdt_merge(NULL, 'tombstone') AS null_tomb, counter_crdt_merge('tombstone', NULL) AS tomb_null;
SELECT counter_crdt_merge(NULL, NULL) IS NULL AS both_null_is_null;
SELECT counter_crdt_merge(NULL::counter_crdt, NULL::counter_crdt) IS NULL AS both_null_is_null_typed;

-- Rule 2: a tombstone absorbs everything, on either side.
SELECT counter_crdt_merge('tombstone', '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:9223372036854775807:5}') AS tomb_left,
       counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:9223372036854775807:5}', 'tombstone') AS tomb_right;
SELECT counter_crdt_merge('tombstone', '{}') AS tomb_empty, counter_crdt_merge('{}', 'tombstone') AS empty_tomb,
       counter_crdt_merge('tombstone', 'tombstone') AS tomb_tomb;
SELECT counter_crdt_merge('tombstone', '{}') = 'tombstone'::counter_crdt AS is_tombstone,
       counter_crdt_merge('{}', 'tombstone')::bigint IS NULL AS value_is_null;

-- Rule 3: union of ids, in ascending unsigned byte order.
SELECT counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:1, cccccccc-cccc-cccc-cccc-cccccccccccc:2:3}',
                          '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:4:5, dddddddd-dddd-dddd-dddd-dddddddddddd:6:7}') AS union_interleaved;
SELECT counter_crdt_merge('{cccccccc-cccc-cccc-cccc-cccccccccccc:2:3, dddddddd-dddd-dddd-dddd-dddddddddddd:6:7}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:1, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:4:5}') AS union_disjoint_ranges;
-- Ids whose bytes differ at 0x7f/0x80: unsigned order puts 7f... first.
SELECT counter_crdt_merge('{80000000-0000-0000-0000-000000000000:1:1}',
                          '{7fffffff-ffff-ffff-ffff-ffffffffffff:1:2}') AS high_bit_first_byte;
SELECT counter_crdt_merge('{00000000-0000-0000-0000-000000000080:1:1}',
                          '{00000000-0000-0000-0000-00000000007f:1:2}') AS high_bit_last_byte;
SELECT counter_crdt_merge('{}', '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:1}') AS empty_left,
       counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:1}', '{}') AS empty_right,
       counter_crdt_merge('{}', '{}') AS empty_empty;

-- Rule 3: for a shared id the higher clock wins, whatever the values.
SELECT counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:3:100}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:4:-100}') AS higher_clock_right,
       counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:4:-100}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:3:100}') AS higher_clock_left;
SELECT counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:9:1, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:50}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:70, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:8:-3}') AS per_id_winner;

-- Rule 3: on equal clocks the higher value wins (signed comparison).
SELECT counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:10}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:11}') AS tie_right,
       counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:11}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:10}') AS tie_left;
SELECT counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:-1}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:-9223372036854775808}') AS tie_negative,
       counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:-9223372036854775808}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:9223372036854775807}') AS tie_extremes;

-- One side already contains the other: the result is that side, as a state.
SELECT counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:7, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3:-4}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:5}') AS left_contains,
       counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:5}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:7, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3:-4}') AS right_contains;
SELECT counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:7, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3:-4}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:7, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3:-4}') AS equal_sides;
-- Same ids, each side winning one shard: a new state.
SELECT counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:7, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3:-4}',
                          '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:5, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:4:-6}') AS each_wins_one;
-- The merged state stays usable: increment, value, merge again.
SELECT counter_crdt_increment(
         counter_crdt_merge('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:7}', '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3:-4}'),
         10, 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa') AS incremented_merge;

-- The laws, as states, over a table of sample values (NULL included):
-- {}, a tombstone, overlapping ids, clock ties with different values,
-- extreme clocks and values.
CREATE TABLE merge_samples (i int PRIMARY KEY, c counter_crdt);
INSERT INTO merge_samples VALUES
  (1, NULL),
  (2, '{}'),
  (3, 'tombstone'),
  (4, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:5}'),
  (5, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:3}'),
  (6, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:7}'),
  (7, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:5, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3:-4}'),
  (8, '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:3:-5, cccccccc-cccc-cccc-cccc-cccccccccccc:1:10}'),
  (9, '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:4:-10, cccccccc-cccc-cccc-cccc-cccccccccccc:1:11}'),
  (10, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:2:3, cccccccc-cccc-cccc-cccc-cccccccccccc:1:10, 7fffffff-ffff-ffff-ffff-ffffffffffff:2:2}'),
  (11, '{80000000-0000-0000-0000-000000000000:9223372036854775807:-9223372036854775808, aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:9223372036854775807:9223372036854775807}'),
  (12, '{80000000-0000-0000-0000-000000000000:9223372036854775807:9223372036854775807, 7fffffff-ffff-ffff-ffff-ffffffffffff:1:1}');

-- Commutativity: merge(a, b) = merge(b, a).
SELECT count(*) AS pairs_checked,
       count(*) FILTER (WHERE counter_crdt_merge(x.c, y.c) IS DISTINCT FROM counter_crdt_merge(y.c, x.c)) AS not_commutative,
       count(*) FILTER (WHERE counter_crdt_digest(counter_crdt_merge(x.c, y.c)) IS DISTINCT FROM
                              counter_crdt_digest(counter_crdt_merge(y.c, x.c))) AS digest_differs,
       count(*) FILTER (WHERE counter_crdt_merge(x.c, y.c)::text IS DISTINCT FROM counter_crdt_merge(y.c, x.c)::text) AS text_differs
FROM merge_samples x CROSS JOIN merge_samples y;

-- Idempotence: merge(a, a) = a, and merge(a, merge(a, b)) = merge(a, b).
SELECT count(*) AS values_checked,
       count(*) FILTER (WHERE counter_crdt_merge(c, c) IS DISTINCT FROM c) AS not_idempotent
FROM merge_samples;
SELECT count(*) AS pairs_checked,
       count(*) FILTER (WHERE counter_crdt_merge(x.c, counter_crdt_merge(x.c, y.c))
                              IS DISTINCT FROM counter_crdt_merge(x.c, y.c)) AS not_absorbing
FROM merge_samples x CROSS JOIN merge_samples y;

-- Associativity: merge(merge(a, b), c) = merge(a, merge(b, c)).
SELECT count(*) AS triples_checked,
       count(*) FILTER (WHERE counter_crdt_merge(counter_crdt_merge(x.c, y.c), z.c)
                              IS DISTINCT FROM counter_crdt_merge(x.c, counter_crdt_merge(y.c, z.c))) AS not_associative
FROM merge_samples x CROSS JOIN merge_samples y CROSS JOIN merge_samples z;

-- The rules themselves, checked pair by pair against a reference merge
-- written in SQL: per id the shard with the highest (clock, value).
CREATE FUNCTION merge_reference(a counter_crdt, b counter_crdt) RETURNS counter_crdt
LANGUAGE sql AS $$
  SELECT CASE
    WHEN a IS NULL THEN b
    WHEN b IS NULL THEN a
    WHEN a = 'tombstone' OR b = 'tombstone' THEN 'tombstone'::counter_crdt
    ELSE (SELECT ('{' || coalesce(string_agg(id || ':' || clock || ':' || value, ', ' ORDER BY id), '') || '}')::counter_crdt
          FROM (SELECT DISTINCT ON (id) id, clock, value
                FROM (SELECT * FROM counter_crdt_shards(a)
                      UNION ALL
                      SELECT * FROM counter_crdt_shards(b)) u
                ORDER BY id, clock DESC, value DESC) w)
  END
$$;
SELECT count(*) AS pairs_checked,
       count(*) FILTER (WHERE counter_crdt_merge(x.c, y.c) IS DISTINCT FROM merge_reference(x.c, y.c)) AS differ_from_reference
FROM merge_samples x CROSS JOIN merge_samples y;
-- The reference is not trivial: the samples give many different results.
SELECT count(DISTINCT merge_reference(x.c, y.c)::text) AS distinct_results,
       count(*) FILTER (WHERE merge_reference(x.c, y.c) IS NULL) AS null_results
FROM merge_samples x CROSS JOIN merge_samples y;

-- A few results of the table, in full.
SELECT x.i, y.i AS j, counter_crdt_merge(x.c, y.c) AS merged
FROM merge_samples x CROSS JOIN merge_samples y
WHERE (x.i, y.i) IN ((5, 6), (7, 8), (8, 9), (9, 10), (10, 12), (11, 12), (2, 7), (3, 9), (1, 1), (1, 3))
ORDER BY x.i, y.i;

DROP FUNCTION merge_reference(counter_crdt, counter_crdt);
DROP TABLE merge_samples;
