--
-- fold_forms: values with fold records (src/core/cc_fold.h) in the text,
-- JSON and binary forms; their total (c::bigint).  Values without records
-- keep their forms (type_io, json, binary_io).
--
-- Ids below: T = 7fffffff-ffff-ffff-ffff-ffffffffffff (a live target),
-- R = 80000000-0000-0000-0000-000000000000 and C = ffffffff-ffff-ffff-ffff-
-- ffffffffffff (retired writers).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- try() returns the SQLSTATE with the message's DETAIL, or the value read.
CREATE FUNCTION pg_temp.try(input text, form text DEFAULT 'text') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  d text;
  c counter_crdt;
BEGIN
  IF form = 'text' THEN
    c := input::counter_crdt;
  ELSIF form = 'jsonb' THEN
    c := input::jsonb::counter_crdt;
  ELSE
    c := input::json::counter_crdt;
  END IF;
  RETURN 'accepted: ' || c::text;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || d;
END $$;

-- run() returns the SQLSTATE, message and DETAIL of a statement's error.
CREATE FUNCTION pg_temp.run(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  m text;
  d text;
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || m || ': ' || d;
END $$;

CREATE TABLE ff (k int PRIMARY KEY, c counter_crdt);
INSERT INTO ff VALUES
  -- the example: R folded into T
  (1, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}'),
  -- two retired writers, records given out of order
  (2, '{7fffffff-ffff-ffff-ffff-ffffffffffff:5:300} folded {ffffffff-ffff-ffff-ffff-ffffffffffff>7fffffff-ffff-ffff-ffff-ffffffffffff:5:2:200:200, 80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}'),
  -- a fold not finished: T holds 50 of R's 100, the total counts all 100
  (3, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:50} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:50}'),
  -- R wrote again after the fold (clock 6 > aclock 5): it adds 3
  (4, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110, 80000000-0000-0000-0000-000000000000:6:103} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}'),
  -- the shards' sum leaves bigint, the total does not
  (5, '{7fffffff-ffff-ffff-ffff-ffffffffffff:1:9223372036854775807, ffffffff-ffff-ffff-ffff-ffffffffffff:1:10} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:1:1:-20:0}'),
  -- a total out of bigint
  (6, '{7fffffff-ffff-ffff-ffff-ffffffffffff:1:9223372036854775807} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:1:1:9223372036854775807:0}'),
  -- without records: the forms of before
  (7, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110}'),
  (8, 'tombstone'),
  (9, NULL);
-- 3000 retired writers folded into T: stored out of line
INSERT INTO ff SELECT 10, ('{7fffffff-ffff-ffff-ffff-ffffffffffff:3000:5} folded {'
    || string_agg(format('%s>7fffffff-ffff-ffff-ffff-ffffffffffff:%s:1:%s:%s', md5(i::text)::uuid, i, i, i), ', ')
    || '}')::counter_crdt
  FROM generate_series(1, 3000) AS i;

-- Text: canonical output, records in (retired, target) order.
SELECT k, c FROM ff WHERE k < 10 ORDER BY k;
SELECT length(c::text) AS chars, left(c::text, 60) AS starts, right(c::text, 40) AS ends
FROM ff WHERE k = 10;
-- White space around every token, any letter case, records in any order.
SELECT ' { 7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF : 4 : 110 } FOLDED { 80000000-0000-0000-0000-000000000000 > 7fffffff-ffff-ffff-ffff-ffffffffffff : +4 : 05 : 100 : 100 } '::counter_crdt AS spelled;
-- input(output(c)) = c, compared as text (the state equality does not take
-- values with records).
SELECT k, c::text::counter_crdt::text = c::text AS text_round_trip FROM ff ORDER BY k;

-- The total: cc_fold_total(), not the shards' sum; 22003 outside bigint.
SELECT k, c::bigint AS total, counter_crdt_value(c) AS value FROM ff WHERE k <> 6 ORDER BY k;
SELECT pg_temp.run('SELECT c::bigint FROM ff WHERE k = 6') AS out_of_range;
SELECT c::bigint FROM ff WHERE k = 6;
SELECT pg_column_size(c) > 8000 AS large, c::bigint AS total FROM ff WHERE k = 10;

-- JSON: "folds" with each record in jsonb's key order; both ways.
SELECT k, c::jsonb AS jsonb FROM ff WHERE k IN (1, 2, 7, 8) ORDER BY k;
SELECT k, (c::jsonb)::counter_crdt::text = c::text AS jsonb_round_trip,
       (c::json)::counter_crdt::text = c::text AS json_round_trip,
       c::json::text = c::jsonb::text AS same_text
FROM ff ORDER BY k;
-- Any key order, records in any order, ids in any case.
SELECT '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 5, "value": 300}],
         "folds": [{"retired": "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff",
                    "tclock": 5, "aclock": 2, "avalue": 200, "absorbed": 200},
                   {"absorbed": 100, "avalue": 100, "aclock": 5, "tclock": 4,
                    "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "retired": "80000000-0000-0000-0000-000000000000"}]}'::json::counter_crdt AS any_order;
SELECT jsonb_pretty(c::jsonb)::json::counter_crdt::text = c::text AS pretty_round_trip FROM ff WHERE k = 2;

-- Binary: version 2 with the records; version 1 without them, as before.
SELECT k, counter_crdt_send(c) AS sent FROM ff WHERE k IN (1, 7, 8) ORDER BY k;
SELECT counter_crdt_send(c) = decode('02' || '00' || '00000001'
         || '7fffffffffffffffffffffffffffffff' || '0000000000000004' || '000000000000006e'
         || '00000001'
         || '80000000000000000000000000000000' || '7fffffffffffffffffffffffffffffff'
         || '0000000000000004' || '0000000000000005' || '0000000000000064' || '0000000000000064', 'hex') AS example_layout
FROM ff WHERE k = 1;
SELECT length(counter_crdt_send(c)) = 6 + 32 + 4 + 64 * 3000 AS size_ok FROM ff WHERE k = 10;
-- Binary COPY round trip of the whole table, through a server file.
SELECT current_setting('data_directory') || '/counter_crdt_regress_fold_forms.bin' AS binfile \gset
COPY ff TO :'binfile' (FORMAT binary);
CREATE TABLE ff_back (k int PRIMARY KEY, c counter_crdt);
COPY ff_back FROM :'binfile' (FORMAT binary);
SELECT s.k, s.c::text = b.c::text AS same_text, s.c IS NULL AND b.c IS NULL AS both_null,
       counter_crdt_send(s.c) = counter_crdt_send(b.c) AS same_bytes
FROM ff s JOIN ff_back b USING (k) ORDER BY s.k;
SELECT k, c::bigint AS total FROM ff_back WHERE k IN (1, 3, 4, 5, 10) ORDER BY k;
-- Text COPY as well.
COPY ff TO :'binfile';
TRUNCATE ff_back;
COPY ff_back FROM :'binfile';
SELECT count(*) FILTER (WHERE s.c::text IS NOT DISTINCT FROM b.c::text) AS same_text, count(*) AS rows
FROM ff s JOIN ff_back b USING (k);

-- Text refusals: 22P02 with a DETAIL that names the part at fault.
SELECT n, pg_temp.try(t) AS result FROM (VALUES
  (1, 'tombstone folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}'),
  (2, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {}'),
  (3, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded'),
  (4, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100, 80000000-0000-0000-0000-000000000000>7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF:3:5:100:90}'),
  (5, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:0:5:100:100}'),
  (6, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:9223372036854775808}'),
  (7, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000:7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}'),
  (8, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100}'),
  (9, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {7fffffff-ffff-ffff-ffff-ffffffffffff>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}'),
  (10, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>ffffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}'),
  (11, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:5:5:100:100}'),
  (12, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110, 80000000-0000-0000-0000-000000000000:5:100} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}'),
  (13, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100} x'),
  (14, '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-00000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}')
) AS v(n, t) ORDER BY n;
-- One in full.
SELECT '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {}'::counter_crdt;

-- JSON refusals: 22P02 as well.
SELECT n, pg_temp.try(t, 'jsonb') AS result FROM (VALUES
  (1, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": []}'),
  (2, '{"tombstone": true, "folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 5, "avalue": 100, "absorbed": 100}]}'),
  (3, '{"folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 5, "avalue": 100, "absorbed": 100}]}'),
  (4, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 5, "avalue": 100}]}'),
  (5, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 5, "avalue": 100, "absorbed": 100, "id": 1}]}'),
  (6, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 5, "avalue": 100.5, "absorbed": 100}]}'),
  (7, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 0, "avalue": 100, "absorbed": 100}]}'),
  (8, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 5, "avalue": 100, "absorbed": 100}, {"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 5, "avalue": 100, "absorbed": 100}]}'),
  (9, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 9, "aclock": 5, "avalue": 100, "absorbed": 100}]}'),
  (10, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": {}}'),
  (11, '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": [{"retired": "x", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "aclock": 5, "avalue": 100, "absorbed": 100}]}')
) AS v(n, t) ORDER BY n;
SELECT '{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": []}'::jsonb::counter_crdt;
-- json sees the text as written: a repeated key in a record is refused.
SELECT pg_temp.try('{"shards": [{"id": "7fffffff-ffff-ffff-ffff-ffffffffffff", "clock": 4, "value": 110}], "folds": [{"retired": "80000000-0000-0000-0000-000000000000", "target": "7fffffff-ffff-ffff-ffff-ffffffffffff", "tclock": 4, "tclock": 4, "aclock": 5, "avalue": 100, "absorbed": 100}]}', 'json') AS repeated_key;

-- Binary refusals: 22P03, nothing loaded.  pgcopy() builds a one-column
-- binary COPY stream around each field (as in binary_io).
CREATE FUNCTION pg_temp.pgcopy(fields bytea[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT '\x5047434f50590aff0d0a00'::bytea || '\x00000000'::bytea || '\x00000000'::bytea
      || coalesce((SELECT string_agg(CASE WHEN f IS NULL THEN '\x0001ffffffff'::bytea
                                          ELSE '\x0001'::bytea || int4send(length(f)) || f END,
                                     ''::bytea ORDER BY i)
                   FROM unnest(fields) WITH ORDINALITY AS u(f, i)), ''::bytea)
      || '\xffff'::bytea
$$;
CREATE TABLE ff_bad (c counter_crdt);
CREATE FUNCTION pg_temp.copy_in(field bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
  o oid;
  path text := current_setting('data_directory') || '/counter_crdt_regress_fold_forms_case.bin';
BEGIN
  o := lo_from_bytea(0, pg_temp.pgcopy(ARRAY[field]));
  PERFORM lo_export(o, path);
  PERFORM lo_unlink(o);
  EXECUTE format('COPY ff_bad FROM %L (FORMAT binary)', path);
  RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || d;
END $$;
-- S = shard T:4:110; F = record R>T:4:5:100:100; G = record C>T:1:1:0:0
\set S '7fffffffffffffffffffffffffffffff0000000000000004000000000000006e'
\set F '800000000000000000000000000000007fffffffffffffffffffffffffffffff0000000000000004000000000000000500000000000000640000000000000064'
\set G 'ffffffffffffffffffffffffffffffff7fffffffffffffffffffffffffffffff0000000000000001000000000000000100000000000000000000000000000000'
SELECT n, what, pg_temp.copy_in(decode(hex, 'hex')) AS result FROM (VALUES
  (1, 'the example', '0200' || '00000001' || :'S' || '00000001' || :'F'),
  (2, 'two records', '0200' || '00000001' || :'S' || '00000002' || :'F' || :'G'),
  (3, 'version 1 of the same shard', '0100' || '00000001' || :'S'),
  (4, 'version 4', '0400' || '00000001' || :'S' || '00000001' || :'F'),
  (5, 'version 2 tombstone', '0201' || '00000000' || '00000001' || :'F'),
  (6, 'version 2, unknown flag', '0202' || '00000001' || :'S' || '00000001' || :'F'),
  (7, 'version 2, header only', '0200' || '00000000'),
  (8, 'record count 0', '0200' || '00000001' || :'S' || '00000000'),
  (9, 'record count 2, one record', '0200' || '00000001' || :'S' || '00000002' || :'F'),
  (10, 'record count 2^32-1', '0200' || '00000001' || :'S' || 'ffffffff' || :'F'),
  (11, 'record count 2^26+1 (x64 wraps to 64)', '0200' || '00000001' || :'S' || '04000001' || :'F'),
  (12, 'shard count 2^32-1', '0200' || 'ffffffff' || :'S' || '00000001' || :'F'),
  (13, 'record short by a byte', '0200' || '00000001' || :'S' || '00000001' || left(:'F', 126)),
  (14, 'record and a byte', '0200' || '00000001' || :'S' || '00000001' || :'F' || '00'),
  (15, 'records out of order', '0200' || '00000001' || :'S' || '00000002' || :'G' || :'F'),
  (16, 'record repeated', '0200' || '00000001' || :'S' || '00000002' || :'F' || :'F'),
  (17, 'tclock 0', '0200' || '00000001' || :'S' || '00000001' || left(:'F', 64) || '0000000000000000' || right(:'F', 48)),
  (18, 'tclock above the target''s shard', '0200' || '00000001' || :'S' || '00000001' || left(:'F', 64) || '0000000000000005' || right(:'F', 48)),
  (19, 'target without a shard', '0200' || '00000001' || :'S' || '00000001' || left(:'F', 32) || repeat('ee', 16) || right(:'F', 64)),
  (20, 'retired = target', '0200' || '00000001' || :'S' || '00000001' || left(:'F', 32) || left(:'F', 32) || right(:'F', 64)),
  (21, 'retired writer''s shard seen', '0200' || '00000002' || :'S' || '80000000000000000000000000000000' || '0000000000000005' || '0000000000000064' || '00000001' || :'F')
) AS v(n, what, hex) ORDER BY n;
SELECT c FROM ff_bad;
-- One in full, with the line of the COPY.
SELECT lo_from_bytea(0, pg_temp.pgcopy(ARRAY[counter_crdt_send(c),
         decode('0200' || '00000001' || :'S' || '00000002' || :'F' || :'F', 'hex')])) AS lo
FROM ff WHERE k = 1 \gset
SELECT lo_export(:lo, :'binfile') AS exported, lo_unlink(:lo) AS unlinked;
SELECT pg_temp.run(format('COPY ff_bad FROM %L (FORMAT binary)', :'binfile')) AS copy_error;
COPY ff_bad FROM :'binfile' (FORMAT binary);
SELECT count(*) AS loaded FROM ff_bad;

DROP TABLE ff, ff_back, ff_bad;
