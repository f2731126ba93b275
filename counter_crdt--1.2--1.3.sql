/* counter_crdt--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.3'" to load this file. \quit

--
-- Version 1.3: counters with many writers (issue 14: a second stored layout,
-- read by the library whatever the extension version, so nothing here
-- rewrites data) and scaling out with postgres_fdw (issue 15).  Each part
-- below keeps to its section.
--


--
-- 1.3 section: many writers
--
-- Values are written in the second stored layout by the library itself,
-- whatever the extension's version; values of the first stay as they lie.
-- What changes here is where new columns keep large values: writer ids are
-- random and do not compress, so compressing a value of many writers fails
-- and only costs time, and moving it out of line makes every read a TOAST
-- fetch.  MAIN keeps a value inline up to about 8 kB, compressing it only
-- when the row does not fit otherwise.  Existing columns keep theirs
-- (ALTER TABLE ... ALTER COLUMN c SET STORAGE MAIN changes one).

ALTER TYPE @extschema@.counter_crdt SET (STORAGE = main);


--
-- 1.3 section: many writers (counting writers)
--

-- A tombstone keeps no shards: 0 writers.
CREATE FUNCTION @extschema@.counter_crdt_writers(c @extschema@.counter_crdt)
RETURNS integer
AS 'MODULE_PATHNAME', 'counter_crdt_writers'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.counter_crdt_writers(@extschema@.counter_crdt) IS
'number of writers a counter carries: its shards, one per writer id that ever incremented it; 0 for a tombstone';


--
-- 1.3 section: scaling out
--
