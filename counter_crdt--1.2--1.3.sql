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


--
-- 1.3 section: scaling out
--
