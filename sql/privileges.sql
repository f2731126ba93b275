--
-- Privileges: who can do what.
--
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS counter_crdt CASCADE;
DROP ROLE IF EXISTS regress_cc_owner;
DROP ROLE IF EXISTS regress_cc_user;
RESET client_min_messages;

-- The extension is trusted: a database owner (here, a role with CREATE on
-- the database) installs it without being superuser.
SELECT trusted FROM pg_available_extension_versions
 WHERE name = 'counter_crdt' AND version = '1.1';
CREATE ROLE regress_cc_owner;
CREATE ROLE regress_cc_user;
SELECT format('GRANT CREATE ON DATABASE %I TO regress_cc_owner', current_database()) \gexec
GRANT CREATE ON SCHEMA public TO regress_cc_owner, regress_cc_user;
SET ROLE regress_cc_owner;
CREATE EXTENSION counter_crdt;
RESET ROLE;
SELECT extowner::regrole FROM pg_extension WHERE extname = 'counter_crdt';

-- No function runs with another role's rights.
SELECT count(*) AS functions, count(*) FILTER (WHERE p.prosecdef) AS security_definer
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt');

-- An unprivileged role uses counters fully: tables, increments, merges, the
-- aggregate, the replication triggers on its own table.
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000aa';
SET ROLE regress_cc_user;
CREATE TABLE priv_t (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('priv_t');
INSERT INTO priv_t VALUES (1, NULL::counter_crdt + 5)
  ON CONFLICT (k) DO UPDATE SET c = priv_t.c + 5;
UPDATE priv_t SET c = c - 2 WHERE k = 1;
INSERT INTO priv_t VALUES (2, counter_crdt_increment(NULL, 7, counter_crdt_rack_id('dc1', 'rack1')));
SELECT k, c, c::bigint FROM priv_t ORDER BY k;
SELECT counter_crdt_merge_agg(c)::bigint AS total FROM priv_t;
DELETE FROM priv_t WHERE k = 2;
SELECT k, c FROM priv_t ORDER BY k;

-- It cannot choose the writer id under which the server counts its
-- increments (c + n): that stays with the superuser.  What UPDATE on the
-- column allows is writing any state there, another writer's shard
-- included: here writer bb's, with the highest clock, which stops every
-- later increment of bb on this value (22003) wherever it is merged.
INSERT INTO priv_t VALUES (3, '{00000000-0000-4000-8000-0000000000bb:9223372036854775807:1}');
RESET ROLE;
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000bb';
SET ROLE regress_cc_user;
UPDATE priv_t SET c = c + 1 WHERE k = 3;
RESET ROLE;
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000aa';
SET ROLE regress_cc_user;
DELETE FROM priv_t WHERE k = 3;
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000bb';
SELECT set_config('counter_crdt.node_id', '00000000-0000-4000-8000-0000000000bb', false);
ALTER ROLE regress_cc_user SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000bb';
SELECT counter_crdt_node_id();
RESET ROLE;

-- A superuser may delegate it (PostgreSQL 15: GRANT SET ON PARAMETER).
GRANT SET ON PARAMETER counter_crdt.node_id TO regress_cc_user;
SET ROLE regress_cc_user;
SET counter_crdt.node_id = '00000000-0000-4000-8000-0000000000bb';
SELECT counter_crdt_node_id();
RESET counter_crdt.node_id;
RESET ROLE;
REVOKE SET ON PARAMETER counter_crdt.node_id FROM regress_cc_user;

-- The extension's owner (a database owner, not superuser) keeps this
-- server's list of retired writers: its fold adds the id without a warning,
-- and it removes rows by hand.  Every role reads the list, no other role
-- writes it, and an increment under a listed id fails for every role.
SET ROLE regress_cc_owner;
CREATE TABLE priv_fold (k int PRIMARY KEY, c counter_crdt);
INSERT INTO priv_fold VALUES (1, '{00000000-0000-4000-8000-0000000000cc:2:7}');
SELECT * FROM counter_crdt_fold_writer('00000000-0000-4000-8000-0000000000cc', 'priv_fold');
SELECT c::bigint AS kept FROM priv_fold;
RESET ROLE;
SET ROLE regress_cc_user;
SELECT writer, forgotten_at IS NULL AS not_forgotten FROM counter_crdt_retired_writers;
\set VERBOSITY sqlstate
SELECT counter_crdt_increment(NULL, 1, '00000000-0000-4000-8000-0000000000cc');
DELETE FROM counter_crdt_retired_writers;
\set VERBOSITY default
RESET ROLE;
SET ROLE regress_cc_owner;
DELETE FROM counter_crdt_retired_writers;
RESET ROLE;
SET ROLE regress_cc_user;
SELECT counter_crdt_increment(NULL, 1, '00000000-0000-4000-8000-0000000000cc')::bigint AS writes_again;
RESET ROLE;
DROP TABLE priv_fold;

-- Clean up.
DROP TABLE priv_t;
SET client_min_messages = warning;
DROP EXTENSION counter_crdt CASCADE;
SELECT format('REVOKE CREATE ON DATABASE %I FROM regress_cc_owner', current_database()) \gexec
REVOKE CREATE ON SCHEMA public FROM regress_cc_owner, regress_cc_user;
DROP ROLE regress_cc_owner;
DROP ROLE regress_cc_user;
CREATE EXTENSION counter_crdt;
RESET client_min_messages;
