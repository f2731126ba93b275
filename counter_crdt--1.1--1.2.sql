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
