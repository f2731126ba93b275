/* counter_crdt--1.10--1.11.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.11'" to load this file. \quit

--
-- Version 1.11: the write guard (issue 46).  Values of 1.0 to 1.10 are read
-- and merged as they are; no stored value is rewritten, no table changes
-- until its owner calls counter_crdt_guard_writes() on it.
--
-- counter_crdt_write_guard(): a local UPDATE that writes into a counter
-- column a state lacking what the row holds (a state read and written back,
-- which undoes the increments made since; NULL over a counter) is refused
-- with 23000.  counter_crdt_guard_writes(tbl) puts it on a table.
--
CREATE FUNCTION @extschema@.counter_crdt_write_guard()
RETURNS trigger
AS 'MODULE_PATHNAME', 'counter_crdt_write_guard'
LANGUAGE C;

CREATE FUNCTION @extschema@.counter_crdt_guard_writes(tbl regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'counter_crdt_guard_writes'
LANGUAGE C VOLATILE;

COMMENT ON FUNCTION @extschema@.counter_crdt_write_guard() IS
'trigger: BEFORE UPDATE FOR EACH ROW; refuses a local write of a counter state that lacks what the row holds (23000)';
COMMENT ON FUNCTION @extschema@.counter_crdt_guard_writes(regclass) IS
'puts the write guard (trigger counter_crdt_write_guard) on a table with counter columns, and its partitions';
