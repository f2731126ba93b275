/* counter_crdt--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.6'" to load this file. \quit

--
-- Version 1.6: retiring writers hardened (issue 28).  Values of 1.0 to 1.5
-- are read and merged as they are; no stored value is rewritten.
--
