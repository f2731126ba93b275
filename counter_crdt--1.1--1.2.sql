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
-- The order: live counters by their exact value (also one outside bigint),
-- tombstones after them all, counters of equal value by their shards in id
-- order, each as (id, clock, value), a prefix first.  Equal in it exactly
-- when = says so, so that the btree and hash classes agree.

CREATE FUNCTION @extschema@.counter_crdt_cmp(@extschema@.counter_crdt, @extschema@.counter_crdt)
RETURNS integer
AS 'MODULE_PATHNAME', 'counter_crdt_cmp'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_lt(@extschema@.counter_crdt, @extschema@.counter_crdt)
RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_lt'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_le(@extschema@.counter_crdt, @extschema@.counter_crdt)
RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_le'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_gt(@extschema@.counter_crdt, @extschema@.counter_crdt)
RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_gt'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_ge(@extschema@.counter_crdt, @extschema@.counter_crdt)
RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_ge'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_sortsupport(internal)
RETURNS void
AS 'MODULE_PATHNAME', 'counter_crdt_sortsupport'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.counter_crdt,
	RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_lt,
	COMMUTATOR = OPERATOR(@extschema@.>),
	NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = pg_catalog.scalarltsel,
	JOIN = pg_catalog.scalarltjoinsel
);

CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.counter_crdt,
	RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_le,
	COMMUTATOR = OPERATOR(@extschema@.>=),
	NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = pg_catalog.scalarlesel,
	JOIN = pg_catalog.scalarlejoinsel
);

CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.counter_crdt,
	RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_gt,
	COMMUTATOR = OPERATOR(@extschema@.<),
	NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = pg_catalog.scalargtsel,
	JOIN = pg_catalog.scalargtjoinsel
);

CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.counter_crdt,
	RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=),
	NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = pg_catalog.scalargesel,
	JOIN = pg_catalog.scalargejoinsel
);

-- Merge joins need = marked MERGES.  ALTER OPERATOR ... SET (MERGES) exists
-- only from PostgreSQL 17 on; the catalog update does the same on 13 to 17.
UPDATE pg_catalog.pg_operator SET oprcanmerge = true
 WHERE oid = '@extschema@.=(@extschema@.counter_crdt,@extschema@.counter_crdt)'::pg_catalog.regoperator;

CREATE OPERATOR CLASS @extschema@.counter_crdt_ops
	DEFAULT FOR TYPE @extschema@.counter_crdt USING btree AS
	OPERATOR 1 @extschema@.< (@extschema@.counter_crdt, @extschema@.counter_crdt),
	OPERATOR 2 @extschema@.<= (@extschema@.counter_crdt, @extschema@.counter_crdt),
	OPERATOR 3 @extschema@.= (@extschema@.counter_crdt, @extschema@.counter_crdt),
	OPERATOR 4 @extschema@.>= (@extschema@.counter_crdt, @extschema@.counter_crdt),
	OPERATOR 5 @extschema@.> (@extschema@.counter_crdt, @extschema@.counter_crdt),
	FUNCTION 1 @extschema@.counter_crdt_cmp(@extschema@.counter_crdt, @extschema@.counter_crdt),
	FUNCTION 2 @extschema@.counter_crdt_sortsupport(internal);

COMMENT ON FUNCTION @extschema@.counter_crdt_cmp(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'order of counters: -1, 0 or 1 (by value, tombstones last, then by state)';
COMMENT ON FUNCTION @extschema@.counter_crdt_lt(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'implementation of < on counters';
COMMENT ON FUNCTION @extschema@.counter_crdt_le(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'implementation of <= on counters';
COMMENT ON FUNCTION @extschema@.counter_crdt_gt(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'implementation of > on counters';
COMMENT ON FUNCTION @extschema@.counter_crdt_ge(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'implementation of >= on counters';
COMMENT ON FUNCTION @extschema@.counter_crdt_sortsupport(internal) IS
'sort support of the btree operator class of counter_crdt';
COMMENT ON OPERATOR @extschema@.< (@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'less than: by value, tombstones last, then by state';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'less than or equal: by value, tombstones last, then by state';
COMMENT ON OPERATOR @extschema@.> (@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'greater than: by value, tombstones last, then by state';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'greater than or equal: by value, tombstones last, then by state';
COMMENT ON OPERATOR CLASS @extschema@.counter_crdt_ops USING btree IS
'btree operator class of counter_crdt (ORDER BY, sorted DISTINCT, merge joins, btree indexes)';
COMMENT ON OPERATOR FAMILY @extschema@.counter_crdt_ops USING btree IS
'btree operator family of counter_crdt';



--
-- 1.2 section: writer ids, own-id conflicts, health, set-up checks
--

COMMENT ON FUNCTION @extschema@.counter_crdt_node_id() IS
'writer id of this server: counter_crdt.node_id, or a default derived from the system identifier, the current timeline and the database';

-- Own-id conflicts (SPEC 7.2), written by counter_crdt_replica_merge() with a
-- direct heap insert, so that the subscription's owner needs no privilege on
-- it; written by nobody else.  Everyone may read when, in which table and
-- column, and under which writer id (what counter_crdt_health() reports);
-- the key and the shards are data of the table, for its owner (and whom the
-- owner grants them).  Not marked for pg_dump: a row tells that this
-- server's writer id, which a restore into a new cluster does not keep, was
-- used by another server.
CREATE TABLE @extschema@.counter_crdt_writer_conflicts (
	recorded_at timestamptz NOT NULL,
	table_name regclass NOT NULL,
	key text NOT NULL,
	column_name name NOT NULL,
	writer_id uuid NOT NULL,
	local_clock bigint,
	local_value bigint,
	incoming_clock bigint NOT NULL,
	incoming_value bigint NOT NULL
);
REVOKE ALL ON @extschema@.counter_crdt_writer_conflicts FROM PUBLIC;
GRANT SELECT (recorded_at, table_name, column_name, writer_id)
  ON @extschema@.counter_crdt_writer_conflicts TO PUBLIC;

COMMENT ON TABLE @extschema@.counter_crdt_writer_conflicts IS
'replicated rows that held a newer shard of this server''s own writer id than the local row (another server writes under the same id, or this server went back in time)';

-- Stable: it reads the catalogs and the conflicts.  Parallel restricted, so
-- that it stays in the leader: it runs queries of its own through SPI.
CREATE FUNCTION @extschema@.counter_crdt_health()
RETURNS TABLE ("check" text, object text, problem text, hint text)
AS 'MODULE_PATHNAME', 'counter_crdt_health'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 10;

COMMENT ON FUNCTION @extschema@.counter_crdt_health() IS
'one row per problem of the replication set-up of counter_crdt tables, and per table with recorded own-id conflicts; no rows when healthy';

-- Now in C: checks the table as the merge trigger does, creates what is
-- missing, and enables the merge trigger as REPLICA again where ENABLE
-- TRIGGER ALL made it an ordinary one.  Signature and markings as in 1.1.
CREATE OR REPLACE FUNCTION @extschema@.counter_crdt_enable_replica_merge(tbl regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'counter_crdt_enable_replica_merge'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.counter_crdt_enable_replica_merge(regclass) IS
'sets a table up for multi-server replication (merge on apply, local deletes as tombstones) after checking that it can be merged; idempotent, and the repair of a merge trigger that ENABLE TRIGGER ALL turned into an ordinary one';



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
