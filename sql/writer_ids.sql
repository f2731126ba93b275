--
-- Writer ids: counter_crdt_rack_id(dc, rack) and counter_crdt_pending_id(id).
-- contract section 2.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- The contract example.
SELECT counter_crdt_rack_id('dc1', 'rack1');
SELECT counter_crdt_rack_id('dc1', 'rack1') = '7f0cab51-fb72-3e98-bdb4-0404a982865d' AS spec_example;

-- A reference in SQL: MD5 of the UTF-8 bytes of dc || ':' || rack, then
-- version 3 (byte 6 high nibble = 3) and the IETF variant (byte 8 top bits 10).
CREATE FUNCTION rack_id_reference(dc text, rack text) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT encode(set_byte(set_byte(h, 6, (get_byte(h, 6) & 15) | 48),
                         8, (get_byte(h, 8) & 63) | 128), 'hex')::uuid
  FROM (SELECT decode(md5(convert_to(dc || ':' || rack, 'UTF8')), 'hex') AS h) s
$$;
-- Values computed outside PostgreSQL (Java's UUID.nameUUIDFromBytes rule),
-- including empty strings, non-ASCII (UTF-8) names, and the ambiguity of
-- ':' inside a name.
CREATE TABLE wid_pairs (dc text, rack text, expected uuid);
INSERT INTO wid_pairs VALUES
  ('dc1', 'rack1', '7f0cab51-fb72-3e98-bdb4-0404a982865d'),
  ('dc1', 'rack2', '026aeda5-e9ae-31f1-8466-eb7fe1e2b559'),
  ('dc2', 'rack1', '938cc371-5451-37fb-9a83-60c291814b43'),
  ('', '', '853ae90f-0351-324b-973e-a615e6487517'),
  ('dc1', '', 'd64058dc-d853-32e0-affb-842066784bfa'),
  ('', 'rack1', 'f40f1243-4442-3106-8fef-a11ebd284f1c'),
  ('Zürich', 'étage-3', '2066b36d-0c75-3be9-9e50-31a33353803b'),
  ('東京', 'ラック1', 'b3ab7e1c-5cc6-33bd-9587-411b02c1d5e5'),
  ('🚀', 'a b', '9e9abc83-5d66-3582-b8d9-d394c1be604b'),
  ('dc:1', 'rack', 'eb0aee1b-69a6-331f-83f2-1abcf976df02'),
  ('dc', '1:rack', 'eb0aee1b-69a6-331f-83f2-1abcf976df02');
SELECT dc, rack, counter_crdt_rack_id(dc, rack) AS rack_id,
       counter_crdt_rack_id(dc, rack) = expected AS matches_expected,
       counter_crdt_rack_id(dc, rack) = rack_id_reference(dc, rack) AS matches_reference,
       substr(counter_crdt_rack_id(dc, rack)::text, 15, 1) AS version,
       substr(counter_crdt_rack_id(dc, rack)::text, 20, 1) AS variant_digit
FROM wid_pairs ORDER BY expected, dc;
-- Many more names against the reference, with multi-byte characters.
SELECT count(*) AS pairs_checked,
       count(DISTINCT counter_crdt_rack_id(dc, rack)) AS distinct_ids,
       count(*) FILTER (WHERE counter_crdt_rack_id(dc, rack) <> rack_id_reference(dc, rack)) AS mismatches
FROM (SELECT 'dc-' || i || repeat('é', i % 4) AS dc, 'rack' || j || repeat('✓', j % 3) AS rack
      FROM generate_series(1, 20) i, generate_series(1, 25) j) s;
-- Long names.
SELECT counter_crdt_rack_id(repeat('d', 10000), repeat('r', 5000)) = rack_id_reference(repeat('d', 10000), repeat('r', 5000)) AS long_names;

-- NULL arguments give NULL.
SELECT counter_crdt_rack_id(NULL, 'rack1') IS NULL AS null_dc,
       counter_crdt_rack_id('dc1', NULL) IS NULL AS null_rack,
       counter_crdt_rack_id(NULL, NULL) IS NULL AS null_both,
       counter_crdt_pending_id(NULL) IS NULL AS null_pending;

-- The pending id inverts the clock sequence: byte 8 XOR 0x3F, byte 9 XOR 0xFF.
-- By hand: bd b4 -> 82 4b.
SELECT counter_crdt_pending_id('7f0cab51-fb72-3e98-bdb4-0404a982865d');
SELECT counter_crdt_pending_id('7f0cab51-fb72-3e98-bdb4-0404a982865d') = '7f0cab51-fb72-3e98-824b-0404a982865d' AS by_hand;
SELECT counter_crdt_pending_id('00000000-0000-0000-0000-000000000000') AS zero,
       counter_crdt_pending_id('ffffffff-ffff-ffff-ffff-ffffffffffff') AS ones,
       counter_crdt_pending_id('01234567-89ab-cdef-0123-456789abcdef') AS mixed;
-- Applying it twice gives the id back; it never gives the id itself; the
-- variant bits and the version stay.
CREATE FUNCTION pending_id_reference(id uuid) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT encode(set_byte(set_byte(b, 8, get_byte(b, 8) # 63), 9, get_byte(b, 9) # 255), 'hex')::uuid
  FROM (SELECT decode(replace(id::text, '-', ''), 'hex') AS b) s
$$;
SELECT count(*) AS ids_checked,
       count(*) FILTER (WHERE counter_crdt_pending_id(counter_crdt_pending_id(id)) <> id) AS not_involution,
       count(*) FILTER (WHERE counter_crdt_pending_id(id) = id) AS fixed_points,
       count(*) FILTER (WHERE counter_crdt_pending_id(id) <> pending_id_reference(id)) AS mismatches,
       count(*) FILTER (WHERE get_byte(decode(replace(counter_crdt_pending_id(id)::text, '-', ''), 'hex'), 8) >> 6
                              <> get_byte(decode(replace(id::text, '-', ''), 'hex'), 8) >> 6) AS variant_bits_changed,
       count(*) FILTER (WHERE substr(counter_crdt_pending_id(id)::text, 15, 1) <> substr(id::text, 15, 1)) AS version_changed
FROM (SELECT counter_crdt_rack_id('dc' || i, 'rack' || i) AS id FROM generate_series(1, 300) i
      UNION ALL
      SELECT md5(i::text)::uuid FROM generate_series(1, 300) i) s;
SELECT dc, rack, counter_crdt_pending_id(counter_crdt_rack_id(dc, rack)) AS pending
FROM wid_pairs ORDER BY expected, dc;

-- A rack id and its pending id are two writers of one counter.
SELECT counter_crdt_increment(
         counter_crdt_increment(NULL, 5, counter_crdt_rack_id('dc1', 'rack1')),
         3, counter_crdt_pending_id(counter_crdt_rack_id('dc1', 'rack1'))) AS rack_and_pending;

DROP FUNCTION rack_id_reference(text, text);
DROP FUNCTION pending_id_reference(uuid);
DROP TABLE wid_pairs;
