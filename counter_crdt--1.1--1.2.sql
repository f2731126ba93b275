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

-- counter_crdt_digest_agg(key, c): SPEC 7.4.  The state is the sum modulo
-- 2^256 of one SHA-256 per row; the transition function is not strict, as a
-- NULL c is a state of its own and a NULL key must be an error, and the final
-- function is not strict, as no rows give 32 zero bytes.
CREATE FUNCTION @extschema@.counter_crdt_digest_agg_trans(internal, text, @extschema@.counter_crdt)
RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_digest_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_digest_agg_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_digest_agg_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_digest_agg_final(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'counter_crdt_digest_agg_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_digest_agg_serial(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'counter_crdt_digest_agg_serial'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_digest_agg_deserial(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_digest_agg_deserial'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE @extschema@.counter_crdt_digest_agg(key text, c @extschema@.counter_crdt) (
	SFUNC = @extschema@.counter_crdt_digest_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.counter_crdt_digest_agg_final,
	COMBINEFUNC = @extschema@.counter_crdt_digest_agg_combine,
	SERIALFUNC = @extschema@.counter_crdt_digest_agg_serial,
	DESERIALFUNC = @extschema@.counter_crdt_digest_agg_deserial,
	PARALLEL = SAFE
);

COMMENT ON FUNCTION @extschema@.counter_crdt_digest_agg_trans(internal, text, @extschema@.counter_crdt) IS
'transition function of counter_crdt_digest_agg';
COMMENT ON FUNCTION @extschema@.counter_crdt_digest_agg_combine(internal, internal) IS
'combine function of counter_crdt_digest_agg';
COMMENT ON FUNCTION @extschema@.counter_crdt_digest_agg_final(internal) IS
'final function of counter_crdt_digest_agg';
COMMENT ON FUNCTION @extschema@.counter_crdt_digest_agg_serial(internal) IS
'serialize function of counter_crdt_digest_agg';
COMMENT ON FUNCTION @extschema@.counter_crdt_digest_agg_deserial(bytea, internal) IS
'deserialize function of counter_crdt_digest_agg';
COMMENT ON AGGREGATE @extschema@.counter_crdt_digest_agg(text, @extschema@.counter_crdt) IS
'32-byte digest of the set of (key, state) rows, independent of row order; for comparing a table between servers';

-- counter_crdt_difference(a, b): SPEC 7.5.  Not strict: a NULL b gives a.
CREATE FUNCTION @extschema@.counter_crdt_difference(a @extschema@.counter_crdt, b @extschema@.counter_crdt)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_difference'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.counter_crdt_difference(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'what a adds to b, for a repair to ship: NULL when merge(a, b) = b, else the shards of a that win over b''s, or a tombstone';



--
-- 1.2 section: exactly-once increments and JSON
--

