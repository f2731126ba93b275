--
-- counter_crdt_node_id() and the setting counter_crdt.node_id: contract section 2.
-- Never prints the default id: it differs for every initdb.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- The default (contract 7.1), derived in SQL apart from the C code: the MD5 of
-- 'counter_crdt:<system identifier>:<timeline>:<database oid>' in decimal
-- (the system identifier unsigned), as a version 3 uuid.  The timeline is
-- the one WAL is written on now: the first 8 hex digits of the name of the
-- current WAL file.
CREATE FUNCTION node_id_name() RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT 'counter_crdt:' ||
         CASE WHEN system_identifier < 0
              THEN (system_identifier::numeric + 18446744073709551616)::text
              ELSE system_identifier::text END || ':' ||
         ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint || ':' ||
         (SELECT oid FROM pg_database WHERE datname = current_database())
  FROM pg_control_system()
$$;
CREATE FUNCTION node_id_reference() RETURNS uuid
LANGUAGE sql STABLE AS $$
  SELECT encode(set_byte(set_byte(h, 6, (get_byte(h, 6) & 15) | 48),
                         8, (get_byte(h, 8) & 63) | 128), 'hex')::uuid
  FROM (SELECT decode(md5(node_id_name()), 'hex') AS h) s
$$;
-- The name has the three numbers, and the timeline is the checkpoint's too.
SELECT node_id_name() ~ '^counter_crdt:[0-9]+:[0-9]+:[0-9]+$' AS name_shape,
       split_part(node_id_name(), ':', 3)::int = (SELECT timeline_id FROM pg_control_checkpoint()) AS checkpoint_timeline;

RESET counter_crdt.node_id;
SHOW counter_crdt.node_id;
SELECT counter_crdt_node_id() = node_id_reference() AS default_is_derived;
SELECT counter_crdt_node_id() = counter_crdt_node_id() AS same_twice;
SELECT counter_crdt_node_id() IS NOT NULL AS not_null,
       substr(counter_crdt_node_id()::text, 15, 1) = '3' AS version_3,
       substr(counter_crdt_node_id()::text, 20, 1) IN ('8', '9', 'a', 'b') AS ietf_variant;
-- c + d uses the default when nothing is set.
SELECT ('{}'::counter_crdt + 7) = counter_crdt_increment('{}', 7, node_id_reference()) AS plus_uses_default,
       (NULL::counter_crdt - 7) = counter_crdt_increment(NULL, -7, node_id_reference()) AS minus_uses_default;
SELECT id = node_id_reference() AS shard_is_default, clock, value
FROM counter_crdt_shards('{}'::counter_crdt + 7);
-- Keep it for after the reconnect.
CREATE TABLE nid_default AS SELECT counter_crdt_node_id() AS id;

-- Set: the function and c + d use the setting.
SET counter_crdt.node_id = '0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90';
SHOW counter_crdt.node_id;
SELECT counter_crdt_node_id();
SELECT '{}'::counter_crdt + 1 AS plus, NULL::counter_crdt - 2 AS minus;
SELECT '{7f0cab51-fb72-3e98-bdb4-0404a982865d:4:10}'::counter_crdt + 5 AS with_other_writer;
-- Any letter case; the id is stored in canonical form.
SET counter_crdt.node_id = '0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E9F';
SELECT counter_crdt_node_id();
SELECT '{}'::counter_crdt + 1 AS upper_case_setting;
-- Another writer: a second shard.
SET counter_crdt.node_id = '7f0cab51-fb72-3e98-bdb4-0404a982865d';
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e9f:1:1}'::counter_crdt + 1 AS second_writer;

-- An invalid uuid is rejected (22023) and the setting stays as it was.
SET counter_crdt.node_id = 'not-a-uuid';
\set VERBOSITY sqlstate
SET counter_crdt.node_id = '7f0cab51-fb72-3e98-bdb4-0404a982865';
SET counter_crdt.node_id = '7f0cab51-fb72-3e98-bdb4-0404a982865dd';
-- longer by two, by sixteen and by 64 hex digits: never cut to 16 bytes
SET counter_crdt.node_id = '7f0cab51-fb72-3e98-bdb4-0404a982865d00';
SET counter_crdt.node_id = '7f0cab51-fb72-3e98-bdb4-0404a982865d0123456789abcdef';
SET counter_crdt.node_id = '7f0cab51-fb72-3e98-bdb4-0404a982865d0000000000000000000000000000000000000000000000000000000000000000';
SET counter_crdt.node_id = '7f0cab51-fb72-3e98-bdb4-0404a98286zz';
SET counter_crdt.node_id = '7f0cab51:fb72:3e98:bdb4:0404a982865d';
SET counter_crdt.node_id = 'tombstone';
SELECT set_config('counter_crdt.node_id', 'garbage', false);
\set VERBOSITY default
SELECT counter_crdt_node_id() = '7f0cab51-fb72-3e98-bdb4-0404a982865d' AS unchanged;
SHOW counter_crdt.node_id;

-- Transactions: SET LOCAL ends with the transaction, a rolled back SET is undone.
BEGIN;
SET LOCAL counter_crdt.node_id = '11111111-1111-1111-1111-111111111111';
SELECT counter_crdt_node_id() AS in_transaction;
SELECT '{}'::counter_crdt + 1 AS in_transaction_plus;
COMMIT;
SELECT counter_crdt_node_id() = '7f0cab51-fb72-3e98-bdb4-0404a982865d' AS after_set_local;
BEGIN;
SET counter_crdt.node_id = '22222222-2222-2222-2222-222222222222';
SELECT counter_crdt_node_id() AS before_rollback;
ROLLBACK;
SELECT counter_crdt_node_id() = '7f0cab51-fb72-3e98-bdb4-0404a982865d' AS after_rollback;
SELECT ('{}'::counter_crdt + 1) = '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:1}'::counter_crdt AS plus_after_rollback;
-- set_config works as SET does.
SELECT set_config('counter_crdt.node_id', '33333333-3333-3333-3333-333333333333', false) AS set_config;
SELECT counter_crdt_node_id() AS after_set_config;

-- RESET and the empty string give the default back.
RESET counter_crdt.node_id;
SELECT counter_crdt_node_id() = node_id_reference() AS reset_gives_default,
       counter_crdt_node_id() = (SELECT id FROM nid_default) AS same_as_before;
SELECT ('{}'::counter_crdt + 1) = counter_crdt_increment('{}', 1, node_id_reference()) AS plus_after_reset;
SET counter_crdt.node_id = '44444444-4444-4444-4444-444444444444';
SET counter_crdt.node_id = '';
SELECT counter_crdt_node_id() = node_id_reference() AS empty_gives_default;

-- A new session: the session setting is gone, the default is the same.
CREATE ROLE regress_counter_crdt_user;
SET counter_crdt.node_id = '55555555-5555-5555-5555-555555555555';
\c -
SELECT counter_crdt_node_id() = (SELECT id FROM nid_default) AS same_after_reconnect,
       counter_crdt_node_id() = node_id_reference() AS still_derived;

-- In a session that has not loaded the library yet, a role that is not a
-- superuser can SET the name (a placeholder), but the value is refused
-- when the library loads.
\c -
SET ROLE regress_counter_crdt_user;
SET counter_crdt.node_id = '88888888-8888-8888-8888-888888888888';
RESET ROLE;
SELECT counter_crdt_node_id() = (SELECT id FROM nid_default) AS placeholder_refused;
SHOW counter_crdt.node_id;
-- A superuser's placeholder value is checked as well.
\c -
SET counter_crdt.node_id = 'garbage';
SELECT counter_crdt_node_id() = (SELECT id FROM nid_default) AS bad_placeholder_refused;
\c -
SET counter_crdt.node_id = '99999999-9999-9999-9999-999999999999';
SELECT counter_crdt_node_id() AS good_placeholder_kept;

-- A role that is not a superuser can use counters, but not set the id.
SET counter_crdt.node_id = '66666666-6666-6666-6666-666666666666';
CREATE TABLE nid_t (k int PRIMARY KEY, c counter_crdt);
INSERT INTO nid_t VALUES (1, NULL), (2, '{7f0cab51-fb72-3e98-bdb4-0404a982865d:2:10}');
GRANT SELECT, INSERT, UPDATE, DELETE ON nid_t TO regress_counter_crdt_user;
SET ROLE regress_counter_crdt_user;
SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS is_superuser;
UPDATE nid_t SET c = c + 5;
UPDATE nid_t SET c = counter_crdt_increment(c, 1, '77777777-7777-7777-7777-777777777777') WHERE k = 2;
INSERT INTO nid_t VALUES (3, '{}'::counter_crdt - 1);
SELECT k, c, c::bigint AS value FROM nid_t ORDER BY k;
SELECT counter_crdt_merge_agg(c) AS merged, counter_crdt_merge(NULL, (SELECT c FROM nid_t WHERE k = 2)) AS merge_fn,
       counter_crdt_node_id() AS node_id, counter_crdt_rack_id('dc1', 'rack1') AS rack_id
FROM nid_t;
SET counter_crdt.node_id = '88888888-8888-8888-8888-888888888888';
\set VERBOSITY sqlstate
SET counter_crdt.node_id = '88888888-8888-8888-8888-888888888888';
BEGIN;
SET LOCAL counter_crdt.node_id = '88888888-8888-8888-8888-888888888888';
ROLLBACK;
SELECT set_config('counter_crdt.node_id', '88888888-8888-8888-8888-888888888888', false);
SELECT set_config('counter_crdt.node_id', '88888888-8888-8888-8888-888888888888', true);
RESET counter_crdt.node_id;
SET counter_crdt.node_id = '';
SET counter_crdt.node_id TO DEFAULT;
\set VERBOSITY default
SELECT counter_crdt_node_id() AS unchanged_node_id;
SELECT ('{}'::counter_crdt + 1) AS still_writes_as;
RESET ROLE;
SELECT current_user <> 'regress_counter_crdt_user' AS role_reset;
DROP TABLE nid_t;
DROP ROLE regress_counter_crdt_user;

RESET counter_crdt.node_id;
DROP TABLE nid_default;
DROP FUNCTION node_id_reference();
DROP FUNCTION node_id_name();
