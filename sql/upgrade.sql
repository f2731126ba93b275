--
-- Upgrades: 1.0 updated to the default version gives the objects of a fresh install,
-- and stored values read the same before and after.
--
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS counter_crdt CASCADE;
RESET client_min_messages;

CREATE EXTENSION counter_crdt VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'counter_crdt';

CREATE TABLE up (k int PRIMARY KEY, c counter_crdt);
INSERT INTO up VALUES
  (1, '{00000000-0000-0000-0000-00000000000a:3:30, ffffffff-ffff-ffff-ffff-ffffffffffff:1:-4}'),
  (2, 'tombstone'),
  (3, '{}'),
  (4, NULL);
CREATE TEMP TABLE before AS
  SELECT k, c::text AS t, c::bigint AS v, counter_crdt_digest(c) AS d FROM up;

-- The objects of an extension, described, with their comments.
CREATE FUNCTION pg_temp.ext_objects() RETURNS TABLE (object text, comment text)
LANGUAGE sql AS $$
  SELECT pg_describe_object(classid, objid, objsubid),
         obj_description(objid, (SELECT relname FROM pg_class WHERE oid = classid))
    FROM pg_depend
   WHERE refclassid = 'pg_extension'::regclass
     AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt')
     AND deptype = 'e'
$$;
-- Function signatures and markings, compared as well.
CREATE FUNCTION pg_temp.ext_functions() RETURNS TABLE (f text, vol "char", strict bool, par "char", secdef bool)
LANGUAGE sql AS $$
  SELECT p.oid::regprocedure::text, p.provolatile, p.proisstrict, p.proparallel, p.prosecdef
    FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
   WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
     AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'counter_crdt')
$$;

ALTER EXTENSION counter_crdt UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'counter_crdt';
CREATE TEMP TABLE updated_objects AS SELECT * FROM pg_temp.ext_objects();
CREATE TEMP TABLE updated_functions AS SELECT * FROM pg_temp.ext_functions();

-- Stored values read the same.
SELECT count(*) AS rows, count(*) FILTER (WHERE b.t IS NOT DISTINCT FROM up.c::text
                                            AND b.v IS NOT DISTINCT FROM up.c::bigint
                                            AND b.d IS NOT DISTINCT FROM counter_crdt_digest(up.c)) AS same
  FROM before b JOIN up USING (k);

-- A fresh install of the default version.
ALTER TABLE up ALTER COLUMN c TYPE text USING c::text;
DROP EXTENSION counter_crdt;
CREATE EXTENSION counter_crdt;
SELECT extversion FROM pg_extension WHERE extname = 'counter_crdt';
ALTER TABLE up ALTER COLUMN c TYPE counter_crdt USING c::counter_crdt;

-- Every object, comment and marking the same both ways; none missing a comment.
SELECT count(*) AS objects FROM pg_temp.ext_objects();
(SELECT 'only after update' AS side, * FROM updated_objects EXCEPT SELECT 'only after update', * FROM pg_temp.ext_objects())
UNION ALL
(SELECT 'only in fresh install', * FROM pg_temp.ext_objects() EXCEPT SELECT 'only in fresh install', * FROM updated_objects);
(SELECT 'only after update' AS side, * FROM updated_functions EXCEPT SELECT 'only after update', * FROM pg_temp.ext_functions())
UNION ALL
(SELECT 'only in fresh install', * FROM pg_temp.ext_functions() EXCEPT SELECT 'only in fresh install', * FROM updated_functions);
SELECT object FROM pg_temp.ext_objects() WHERE comment IS NULL ORDER BY object;

-- The objects that 1.1 adds.
SELECT object FROM updated_objects
 WHERE object LIKE '%replica%' OR object LIKE '%tombstone%' ORDER BY object;

SELECT count(*) FILTER (WHERE b.t IS NOT DISTINCT FROM up.c::text) AS same_after_reinstall
  FROM before b JOIN up USING (k);
DROP TABLE up;
