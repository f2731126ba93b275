/* counter_crdt--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.2'" to load this file. \quit

--
-- Version 1.2: operations (SPEC 7), beyond ScyllaDB (SPEC 8), and the set-up
-- checks and ordering of issue 13.  Each part below keeps to its section.
--


--
-- 1.2 section: ordering (btree operator class)
--



--
-- 1.2 section: writer ids, own-id conflicts, health, set-up checks
--



--
-- 1.2 section: table digests and differences
--



--
-- 1.2 section: exactly-once increments and JSON
--

-- Exactly-once increments (SPEC 8.1).  Not strict: a NULL counter counts from
-- {}, and a NULL delta, writer or clock is an error (22004), not a NULL
-- counter.  Immutable: the writer is an argument, not the setting.
CREATE FUNCTION @extschema@.counter_crdt_increment(c @extschema@.counter_crdt, delta bigint, writer uuid, clock bigint)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_increment_at'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.counter_crdt_increment(@extschema@.counter_crdt, bigint, uuid, bigint) IS
'exactly-once increment: the writer''s shard becomes (clock, value + delta) if its clock is below clock, else nothing changes (a replay)';

-- JSON both ways (SPEC 8.2): explicit casts only.  Strict: a NULL is a NULL.
CREATE FUNCTION @extschema@.counter_crdt_to_jsonb(c @extschema@.counter_crdt)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'counter_crdt_to_jsonb'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_from_jsonb(j jsonb)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_from_jsonb'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_to_json(c @extschema@.counter_crdt)
RETURNS json
AS 'MODULE_PATHNAME', 'counter_crdt_to_json'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_from_json(j json)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_from_json'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (@extschema@.counter_crdt AS jsonb)
	WITH FUNCTION @extschema@.counter_crdt_to_jsonb(@extschema@.counter_crdt);
CREATE CAST (jsonb AS @extschema@.counter_crdt)
	WITH FUNCTION @extschema@.counter_crdt_from_jsonb(jsonb);
CREATE CAST (@extschema@.counter_crdt AS json)
	WITH FUNCTION @extschema@.counter_crdt_to_json(@extschema@.counter_crdt);
CREATE CAST (json AS @extschema@.counter_crdt)
	WITH FUNCTION @extschema@.counter_crdt_from_json(json);

COMMENT ON FUNCTION @extschema@.counter_crdt_to_jsonb(@extschema@.counter_crdt) IS
'JSON form: {"shards": [{"id": ..., "clock": ..., "value": ...}, ...]} or {"tombstone": true}';
COMMENT ON FUNCTION @extschema@.counter_crdt_from_jsonb(jsonb) IS
'counter from its JSON form; anything else is rejected (22P02)';
COMMENT ON FUNCTION @extschema@.counter_crdt_to_json(@extschema@.counter_crdt) IS
'JSON form, as json text (the same text as the jsonb cast prints)';
COMMENT ON FUNCTION @extschema@.counter_crdt_from_json(json) IS
'counter from its JSON form as written: also rejects duplicate keys and exponents (22P02)';
COMMENT ON CAST (@extschema@.counter_crdt AS jsonb) IS 'JSON form of a counter';
COMMENT ON CAST (jsonb AS @extschema@.counter_crdt) IS 'counter from its JSON form';
COMMENT ON CAST (@extschema@.counter_crdt AS json) IS 'JSON form of a counter';
COMMENT ON CAST (json AS @extschema@.counter_crdt) IS 'counter from its JSON form';
