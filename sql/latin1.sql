--
-- latin1: a database whose encoding is not UTF-8.  Text that the extension
-- hashes (the keys of counter_crdt_digest_agg, the names of
-- counter_crdt_rack_id) is hashed as its UTF-8 bytes, so a LATIN1 database
-- gives the digests and ids of a UTF-8 one for the same characters.
--
SET client_encoding = 'UTF8';
SELECT getdatabaseencoding() AS here;
CREATE TEMP TABLE l_rows (k text, c counter_crdt);
INSERT INTO l_rows VALUES
  ('café', '{7f0cab51-fb72-3e98-bdb4-0404a982865d:2:5}'),
  ('Größe', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:-3}'),
  ('naïve', 'tombstone'),
  ('plain', NULL);
SELECT encode(counter_crdt_digest_agg(k, c), 'hex') AS utf8_digest FROM l_rows \gset
SELECT counter_crdt_rack_id('dç1', 'räck1') AS utf8_rack \gset

SET client_min_messages = warning;
DROP DATABASE IF EXISTS regress_cc_latin1;
RESET client_min_messages;
CREATE DATABASE regress_cc_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c regress_cc_latin1
SET client_encoding = 'UTF8';
SELECT getdatabaseencoding() AS there;
SET client_min_messages = warning;
CREATE EXTENSION counter_crdt;
RESET client_min_messages;
CREATE TEMP TABLE l_rows (k text, c counter_crdt);
INSERT INTO l_rows VALUES
  ('café', '{7f0cab51-fb72-3e98-bdb4-0404a982865d:2:5}'),
  ('Größe', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:-3}'),
  ('naïve', 'tombstone'),
  ('plain', NULL);
-- The keys are stored as one byte a character here, two in UTF-8 ...
SELECT octet_length(k) AS bytes FROM l_rows ORDER BY k;
-- ... and hashed as UTF-8 all the same.
SELECT encode(counter_crdt_digest_agg(k, c), 'hex') = :'utf8_digest' AS digest_as_utf8 FROM l_rows;
SELECT counter_crdt_rack_id('dç1', 'räck1') = :'utf8_rack' AS rack_id_as_utf8;
-- A key with one character changed is another digest.
SELECT encode(counter_crdt_digest_agg(CASE WHEN k = 'café' THEN 'cafe' ELSE k END, c), 'hex') = :'utf8_digest' AS changed_key_same
  FROM l_rows;
\c contrib_regression
DROP DATABASE regress_cc_latin1;
