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

