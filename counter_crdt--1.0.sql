/* counter_crdt--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION counter_crdt" to load this file. \quit

--
-- The type
--

CREATE TYPE @extschema@.counter_crdt;

CREATE FUNCTION @extschema@.counter_crdt_in(cstring)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_out(@extschema@.counter_crdt)
RETURNS cstring
AS 'MODULE_PATHNAME', 'counter_crdt_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_recv(internal)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_send(@extschema@.counter_crdt)
RETURNS bytea
AS 'MODULE_PATHNAME', 'counter_crdt_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.counter_crdt (
	INPUT = @extschema@.counter_crdt_in,
	OUTPUT = @extschema@.counter_crdt_out,
	RECEIVE = @extschema@.counter_crdt_recv,
	SEND = @extschema@.counter_crdt_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = extended
);

COMMENT ON TYPE @extschema@.counter_crdt IS
'convergent counter (CRDT): a set of shards (writer id, clock, value), or a tombstone';
COMMENT ON FUNCTION @extschema@.counter_crdt_in(cstring) IS
'text input of counter_crdt';
COMMENT ON FUNCTION @extschema@.counter_crdt_out(@extschema@.counter_crdt) IS
'canonical text output of counter_crdt';
COMMENT ON FUNCTION @extschema@.counter_crdt_recv(internal) IS
'binary input of counter_crdt (validated)';
COMMENT ON FUNCTION @extschema@.counter_crdt_send(@extschema@.counter_crdt) IS
'binary output of counter_crdt';

--
-- Writer ids
--

-- Reads the setting counter_crdt.node_id: stable within a statement.
CREATE FUNCTION @extschema@.counter_crdt_node_id()
RETURNS uuid
AS 'MODULE_PATHNAME', 'counter_crdt_node_id'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_rack_id(dc text, rack text)
RETURNS uuid
AS 'MODULE_PATHNAME', 'counter_crdt_rack_id'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_pending_id(id uuid)
RETURNS uuid
AS 'MODULE_PATHNAME', 'counter_crdt_pending_id'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.counter_crdt_node_id() IS
'writer id of this server: counter_crdt.node_id, or a default derived from the system identifier';
COMMENT ON FUNCTION @extschema@.counter_crdt_rack_id(text, text) IS
'ScyllaDB rack-based counter id: version 3 uuid of dc:rack';
COMMENT ON FUNCTION @extschema@.counter_crdt_pending_id(uuid) IS
'ScyllaDB pending-replica counter id: clock sequence bits inverted';

--
-- Leader increments
--

-- Not strict: a NULL counter counts from {}.  Stable: uses the node id.
CREATE FUNCTION @extschema@.counter_crdt_add(@extschema@.counter_crdt, bigint)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_add'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_sub(@extschema@.counter_crdt, bigint)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_sub'
LANGUAGE C STABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_increment(c @extschema@.counter_crdt, delta bigint, writer uuid)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_increment'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OPERATOR @extschema@.+ (
	LEFTARG = @extschema@.counter_crdt,
	RIGHTARG = bigint,
	FUNCTION = @extschema@.counter_crdt_add
);

CREATE OPERATOR @extschema@.- (
	LEFTARG = @extschema@.counter_crdt,
	RIGHTARG = bigint,
	FUNCTION = @extschema@.counter_crdt_sub
);

COMMENT ON FUNCTION @extschema@.counter_crdt_add(@extschema@.counter_crdt, bigint) IS
'leader increment by this server''s writer id';
COMMENT ON FUNCTION @extschema@.counter_crdt_sub(@extschema@.counter_crdt, bigint) IS
'leader decrement by this server''s writer id';
COMMENT ON FUNCTION @extschema@.counter_crdt_increment(@extschema@.counter_crdt, bigint, uuid) IS
'leader increment of the shard of the given writer';
COMMENT ON OPERATOR @extschema@.+ (@extschema@.counter_crdt, bigint) IS
'leader increment by this server''s writer id';
COMMENT ON OPERATOR @extschema@.- (@extschema@.counter_crdt, bigint) IS
'leader decrement by this server''s writer id';

--
-- Reading and merging
--

CREATE FUNCTION @extschema@.counter_crdt_value(@extschema@.counter_crdt)
RETURNS bigint
AS 'MODULE_PATHNAME', 'counter_crdt_value'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (@extschema@.counter_crdt AS bigint)
	WITH FUNCTION @extschema@.counter_crdt_value(@extschema@.counter_crdt);

-- Not strict: NULL is the identity of merge.
CREATE FUNCTION @extschema@.counter_crdt_merge(a @extschema@.counter_crdt, b @extschema@.counter_crdt)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_merge'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_shards(c @extschema@.counter_crdt,
	OUT id uuid, OUT clock bigint, OUT value bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'counter_crdt_shards'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 3;

CREATE FUNCTION @extschema@.counter_crdt_digest(@extschema@.counter_crdt)
RETURNS bytea
AS 'MODULE_PATHNAME', 'counter_crdt_digest'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.counter_crdt_value(@extschema@.counter_crdt) IS
'value of a counter: the exact sum of its shards, NULL for a tombstone';
COMMENT ON CAST (@extschema@.counter_crdt AS bigint) IS
'value of a counter: the exact sum of its shards, NULL for a tombstone';
COMMENT ON FUNCTION @extschema@.counter_crdt_merge(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'merge of two replica states: per writer the higher clock wins, a tombstone wins everything';
COMMENT ON FUNCTION @extschema@.counter_crdt_shards(@extschema@.counter_crdt) IS
'shards of a counter as rows (id, clock, value) in ascending id order';
COMMENT ON FUNCTION @extschema@.counter_crdt_digest(@extschema@.counter_crdt) IS
'SHA-256 digest of a counter state, for checking that replicas agree';

--
-- The merge aggregate
--

CREATE FUNCTION @extschema@.counter_crdt_merge_agg_trans(internal, @extschema@.counter_crdt)
RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_merge_agg_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_merge_agg_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_merge_agg_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_merge_agg_final(internal)
RETURNS @extschema@.counter_crdt
AS 'MODULE_PATHNAME', 'counter_crdt_merge_agg_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_merge_agg_serial(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'counter_crdt_merge_agg_serial'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_merge_agg_deserial(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'counter_crdt_merge_agg_deserial'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE @extschema@.counter_crdt_merge_agg(@extschema@.counter_crdt) (
	SFUNC = @extschema@.counter_crdt_merge_agg_trans,
	STYPE = internal,
	FINALFUNC = @extschema@.counter_crdt_merge_agg_final,
	COMBINEFUNC = @extschema@.counter_crdt_merge_agg_combine,
	SERIALFUNC = @extschema@.counter_crdt_merge_agg_serial,
	DESERIALFUNC = @extschema@.counter_crdt_merge_agg_deserial,
	PARALLEL = SAFE
);

COMMENT ON FUNCTION @extschema@.counter_crdt_merge_agg_trans(internal, @extschema@.counter_crdt) IS
'transition function of counter_crdt_merge_agg';
COMMENT ON FUNCTION @extschema@.counter_crdt_merge_agg_combine(internal, internal) IS
'combine function of counter_crdt_merge_agg';
COMMENT ON FUNCTION @extschema@.counter_crdt_merge_agg_final(internal) IS
'final function of counter_crdt_merge_agg';
COMMENT ON FUNCTION @extschema@.counter_crdt_merge_agg_serial(internal) IS
'serialize function of counter_crdt_merge_agg';
COMMENT ON FUNCTION @extschema@.counter_crdt_merge_agg_deserial(bytea, internal) IS
'deserialize function of counter_crdt_merge_agg';
COMMENT ON AGGREGATE @extschema@.counter_crdt_merge_agg(@extschema@.counter_crdt) IS
'merge of any number of replica states; ignores NULLs, NULL for no rows';

--
-- State equality, with a hash operator class
--

CREATE FUNCTION @extschema@.counter_crdt_eq(@extschema@.counter_crdt, @extschema@.counter_crdt)
RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_eq'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_ne(@extschema@.counter_crdt, @extschema@.counter_crdt)
RETURNS boolean
AS 'MODULE_PATHNAME', 'counter_crdt_ne'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_hash(@extschema@.counter_crdt)
RETURNS integer
AS 'MODULE_PATHNAME', 'counter_crdt_hash'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@.counter_crdt_hash_extended(@extschema@.counter_crdt, bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'counter_crdt_hash_extended'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.counter_crdt,
	RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_eq,
	COMMUTATOR = OPERATOR(@extschema@.=),
	NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = pg_catalog.eqsel,
	JOIN = pg_catalog.eqjoinsel,
	HASHES
);

CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.counter_crdt,
	RIGHTARG = @extschema@.counter_crdt,
	FUNCTION = @extschema@.counter_crdt_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>),
	NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = pg_catalog.neqsel,
	JOIN = pg_catalog.neqjoinsel
);

CREATE OPERATOR CLASS @extschema@.counter_crdt_ops
	DEFAULT FOR TYPE @extschema@.counter_crdt USING hash AS
	OPERATOR 1 @extschema@.= (@extschema@.counter_crdt, @extschema@.counter_crdt),
	FUNCTION 1 @extschema@.counter_crdt_hash(@extschema@.counter_crdt),
	FUNCTION 2 @extschema@.counter_crdt_hash_extended(@extschema@.counter_crdt, bigint);

COMMENT ON FUNCTION @extschema@.counter_crdt_eq(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'state equality of counters';
COMMENT ON FUNCTION @extschema@.counter_crdt_ne(@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'state inequality of counters';
COMMENT ON FUNCTION @extschema@.counter_crdt_hash(@extschema@.counter_crdt) IS
'hash of a counter state';
COMMENT ON FUNCTION @extschema@.counter_crdt_hash_extended(@extschema@.counter_crdt, bigint) IS
'seeded 64-bit hash of a counter state';
COMMENT ON OPERATOR @extschema@.= (@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'state equality of counters';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.counter_crdt, @extschema@.counter_crdt) IS
'state inequality of counters';
COMMENT ON OPERATOR CLASS @extschema@.counter_crdt_ops USING hash IS
'hash operator class of counter_crdt (DISTINCT, GROUP BY, hash joins)';
COMMENT ON OPERATOR FAMILY @extschema@.counter_crdt_ops USING hash IS
'hash operator family of counter_crdt';
