/* counter_crdt--1.11--1.12.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.12'" to load this file. \quit

--
-- Version 1.12: stored layout version 3, written by the library, and the
-- compact binary form, sent when counter_crdt.binary_format says so.  A live value without fold records whose total fits
-- bigint is written as version 3: version 3, a layout byte giving the width
-- of every clock and value (1, 2, 4 or 8 bytes, the narrowest that holds
-- them all), the total only past 16 shards, then records of id, clock and
-- value without padding; three writers of small numbers take 57 bytes in a
-- table, 85 in version 2.  Tombstones, totals outside bigint and values with
-- fold records are still written as version 2.
--
-- No stored value is rewritten: versions 1 and 2 are read where they lie,
-- forever, and a value is written as version 3 when it next changes.  A
-- library older than 1.12 cannot read version 3 values: once the 1.12
-- library has written one, the package cannot go back to an earlier one.
-- The text form is unchanged; recv reads binary format versions 1, 2 and 3,
-- and send writes version 1 or 2 as before unless counter_crdt.binary_format
-- is 'compact' (version 3: the same layout, big-endian).  Its output now
-- depends on that setting, so send is STABLE, as PostgreSQL marks its own
-- output functions that read settings.
--

ALTER FUNCTION @extschema@.counter_crdt_send(@extschema@.counter_crdt) STABLE;
