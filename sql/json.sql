--
-- JSON both ways (contract 8.2): counter_crdt::jsonb, jsonb::counter_crdt, and
-- the same with json.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- Output: shards in ascending id order (unsigned bytes), ids lower case.
SELECT '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5, 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'::counter_crdt::jsonb AS spec_example;
SELECT '{80000000-0000-0000-0000-000000000000:1:1, 7FFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF:2:2}'::counter_crdt::jsonb AS unsigned_order;
SELECT '{}'::counter_crdt::jsonb AS empty, 'tombstone'::counter_crdt::jsonb AS tombstone;
SELECT '{00000000-0000-0000-0000-000000000001:9223372036854775807:-9223372036854775808}'::counter_crdt::jsonb AS edges;
-- json prints the same text as jsonb
SELECT '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5, 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'::counter_crdt::json AS as_json;
SELECT NULL::counter_crdt::jsonb AS null_jsonb, NULL::jsonb::counter_crdt AS null_counter;

-- Input: shards and keys in any order, ids in any letter case, white space.
SELECT '{"shards": [{"value": -5, "id": "7F0CAB51-FB72-3E98-BDB4-0404A982865D", "clock": 1},
                    {"id": "0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90", "clock": 3, "value": 42}]}'::jsonb::counter_crdt AS any_order;
SELECT '{"shards": []}'::jsonb::counter_crdt AS empty, '{"tombstone": true}'::jsonb::counter_crdt AS tombstone;
SELECT '{"shards":[{"id":"00000000-0000-0000-0000-000000000001","clock":9223372036854775807,"value":-9223372036854775808}]}'::json::counter_crdt AS edges;
-- JSON escapes are undone before keys and ids are compared; -0 is 0.
SELECT '{"sh\u0061rds": [{"\u0069d": "7f0cab51-fb72-3e98-bdb4-0404a982865\u0064", "clock": 1, "value": -0}]}'::json::counter_crdt AS escapes;
-- Escapes whose hex digits are upper case: '\u002D' is '-', '\u006C' 'l',
-- '\u006F' 'o', '\u0046' 'F'; each the same as its lower-case spelling.
SELECT '{"shards": [{"id": "7f0cab51\u002Dfb72-3e98-bdb4-0404a982865\u0046", "c\u006C\u006Fck": 2, "value": 3}]}'::json::counter_crdt AS upper_escapes,
       '{"shards": [{"id": "7f0cab51\u002Dfb72-3e98-bdb4-0404a982865\u0046", "c\u006C\u006Fck": 2, "value": 3}]}'::json::counter_crdt
     = '{"shards": [{"id": "7f0cab51\u002dfb72-3e98-bdb4-0404a982865\u0066", "c\u006c\u006fck": 2, "value": 3}]}'::json::counter_crdt AS same_as_lower;
-- jsonb has normalised its input before the cast sees it: 1e2 is stored as
-- 100, and of duplicate keys the last one stays.  json keeps the text.
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1e2, "value": 5}]}'::jsonb::counter_crdt AS jsonb_exponent;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "clock": 2, "value": 5}]}'::jsonb::counter_crdt AS jsonb_duplicate_key;

-- Round trips of random states: through jsonb and json, equal as states,
-- and json and jsonb print the same text.  Ids from a small pool on the
-- signed/unsigned edges, so that ties and ordering matter; values and clocks
-- with the bigint edges.
SELECT setseed(0.5);
CREATE TEMP TABLE pool AS
  SELECT i, id::uuid
    FROM unnest(ARRAY['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000001',
                      '7fffffff-ffff-ffff-ffff-ffffffffffff', '80000000-0000-0000-0000-000000000000',
                      'ffffffff-ffff-ffff-ffff-ffffffffffff', '0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90',
                      '7f0cab51-fb72-3e98-bdb4-0404a982865d', 'abcdef00-1234-5678-9abc-def012345678'])
         WITH ORDINALITY AS t(id, i);
CREATE TEMP TABLE states AS
  SELECT s, CASE WHEN s % 17 = 0 THEN 'tombstone'::counter_crdt
                 ELSE coalesce(('{' || string_agg(p.id || ':' || clock || ':' || value, ', ') || '}')::counter_crdt, '{}')
            END AS c
    FROM generate_series(1, 600) s
    LEFT JOIN LATERAL (
      SELECT DISTINCT ON (p.i) p.id,
             (ARRAY[1, 2, 3, 9223372036854775807, (random() * 9e18)::bigint + 1])[1 + floor(random() * 5)::int] AS clock,
             (ARRAY[0, 1, -1, 9223372036854775807, -9223372036854775808, (random() * 1e9)::bigint - 500000000])[1 + floor(random() * 6)::int] AS value
        FROM pool p
       WHERE random() < 0.4 + s * 0
    ) p ON true
   GROUP BY s;
-- (how varied they are depends on random(): checked, not printed)
SELECT count(*) AS states, count(DISTINCT c::text) > 400 AS varied,
       count(*) FILTER (WHERE (SELECT count(*) FROM counter_crdt_shards(c)) >= 3) > 200 AS many_with_3_or_more_shards,
       count(*) FILTER (WHERE c::text = 'tombstone') AS tombstones,
       count(*) FILTER (WHERE (c::jsonb)::counter_crdt = c) AS jsonb_round_trips,
       count(*) FILTER (WHERE (c::json)::counter_crdt = c) AS json_round_trips,
       count(*) FILTER (WHERE c::json::text = c::jsonb::text) AS same_text,
       count(*) FILTER (WHERE (c::jsonb)::counter_crdt::text = c::text) AS same_canonical_text
  FROM states;
-- and through jsonb_pretty (other white space) and with the shards reversed
SELECT count(*) FILTER (WHERE jsonb_pretty(c::jsonb)::json::counter_crdt = c) AS pretty_round_trips,
       count(*) FILTER (WHERE NOT c::jsonb ? 'shards'
                           OR jsonb_build_object('shards',
                                (SELECT coalesce(jsonb_agg(e ORDER BY o DESC), '[]')
                                   FROM jsonb_array_elements(c::jsonb -> 'shards') WITH ORDINALITY a(e, o)))::counter_crdt = c)
         AS reversed_round_trips
  FROM states;

-- Rejected, all with 22P02.
\set VERBOSITY sqlstate
SELECT 'null'::jsonb::counter_crdt;
SELECT '[]'::jsonb::counter_crdt;
SELECT '"tombstone"'::jsonb::counter_crdt;
SELECT '{}'::jsonb::counter_crdt;
SELECT '{"shards": [], "tombstone": true}'::jsonb::counter_crdt;
SELECT '{"tombstone": false}'::jsonb::counter_crdt;
SELECT '{"tombstone": "true"}'::jsonb::counter_crdt;
SELECT '{"tombstone": 1}'::jsonb::counter_crdt;
SELECT '{"Shards": []}'::jsonb::counter_crdt;
SELECT '{"shards": [], "extra": 1}'::jsonb::counter_crdt;
SELECT '{"shards": {}}'::jsonb::counter_crdt;
SELECT '{"shards": null}'::jsonb::counter_crdt;
SELECT '{"shards": [null]}'::jsonb::counter_crdt;
SELECT '{"shards": [["7f0cab51-fb72-3e98-bdb4-0404a982865d", 1, 5]]}'::jsonb::counter_crdt;
SELECT '{"shards": [{}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"clock": 1, "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 5, "node": 1}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": 1, "clock": 1, "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51fb723e98bdb40404a982865d", "clock": 1, "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865", "clock": 1, "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": "1", "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": null}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": true}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 1.5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 1.0}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 9223372036854775808}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": -9223372036854775809}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 9223372036854775808, "value": 1}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 0, "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": -1, "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 5},
                    {"id": "7F0CAB51-FB72-3E98-BDB4-0404A982865D", "clock": 2, "value": 6}]}'::jsonb::counter_crdt;
-- what jsonb normalises away, json rejects: exponents, duplicate keys
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1e2, "value": 5}]}'::json::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 5E0}]}'::json::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "clock": 2, "value": 5}]}'::json::counter_crdt;
SELECT '{"shards": [], "shards": []}'::json::counter_crdt;
SELECT '{"tombstone": true, "tombstone": true}'::json::counter_crdt;
\set VERBOSITY default

-- The details name the offending part.
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 1.5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": "1", "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 5, "node": 1}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 5},
                    {"id": "7F0CAB51-FB72-3E98-BDB4-0404A982865D", "clock": 2, "value": 6}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 0, "value": 5}]}'::jsonb::counter_crdt;
SELECT '{"shards": [{"id": "7f0cab51-fb72-3e98-bdb4-0404a982865d", "clock": 1, "value": 99999999999999999999}]}'::jsonb::counter_crdt;
SELECT '{"shards": [], "shards": []}'::json::counter_crdt;
SELECT '{"tombstone": false}'::jsonb::counter_crdt;

-- Casts are explicit only; the functions are immutable, strict, parallel
-- safe, and have comments.
SELECT c.castsource::regtype, c.casttarget::regtype, c.castcontext, c.castmethod,
       p.proname, p.provolatile, p.proparallel, p.proisstrict,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS fn_comment,
       obj_description(c.oid, 'pg_cast') IS NOT NULL AS cast_comment
  FROM pg_cast c JOIN pg_proc p ON p.oid = c.castfunc
 WHERE 'counter_crdt'::regtype IN (c.castsource, c.casttarget)
   AND ('jsonb'::regtype IN (c.castsource, c.casttarget) OR 'json'::regtype IN (c.castsource, c.casttarget))
 ORDER BY p.proname;
-- no implicit or assignment cast: a jsonb column does not take a counter
CREATE TEMP TABLE j (x jsonb);
INSERT INTO j VALUES ('{}'::counter_crdt);
INSERT INTO j VALUES ('{}'::counter_crdt::jsonb);
SELECT x FROM j;
