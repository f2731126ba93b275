# Dump and restore of databases that use counter_crdt: pg_dump -Fc restored
# with pg_restore, and pg_dump -Fp restored with psql -f, each into a fresh
# database.  Two sources: the extension in public, and the extension in a
# schema of its own (crdt) that is in nobody's search_path, so that the
# restore cannot lean on search_path.  The sources hold NULLs, '{}',
# tombstones, extreme values, values of hundreds and thousands of shards,
# arrays, a domain, hash and expression indexes, views and a materialized
# view over the functions, operators and the aggregate, and a table set up
# with counter_crdt_enable_replica_merge.
#
# The restored databases must hold identical states (digests, text form,
# binary COPY), identical views, triggers with the same enabled state, the
# same extension version and members, dump again to the same text, and work
# under search_path = '' for queries that schema-qualify names.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Compare ();
use Time::HiRes qw(time);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;

my $t_start = time();

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
# One writer id for the cluster: the default one (contract 7.1) differs per
# database, and the restored copies are other databases, where c + 1 must
# give what it gives in the source.
$node->append_conf('postgresql.conf',
	"log_statement = none\ncounter_crdt.node_id = '5c0e4f6a-3b1d-4e2a-9f87-6d5c4b3a2918'\n");
$node->start;
my $tmp = $node->basedir;

# The objects of a source database.  $ext: the schema of the extension; the
# script runs with it in search_path, the stored objects refer to it by oid.
sub setup_sql
{
	my ($ext) = @_;
	my $create = $ext eq 'public'
	  ? 'CREATE EXTENSION counter_crdt;'
	  : "CREATE SCHEMA $ext; CREATE EXTENSION counter_crdt SCHEMA $ext;";
	return $create . qq{
SET search_path = public, $ext;

-- Every kind of value.
CREATE TABLE t (k int PRIMARY KEY, c counter_crdt DEFAULT '{}');
INSERT INTO t VALUES
  (1, NULL),
  (2, '{}'),
  (3, 'tombstone'),
  (4, '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:42}'),
  (5, '{00000000-0000-0000-0000-000000000000:9223372036854775807:9223372036854775807}'),
  (6, '{ffffffff-ffff-ffff-ffff-ffffffffffff:1:-9223372036854775808}'),
  (7, '{00000000-0000-0000-0000-000000000001:9223372036854775807:9223372036854775807,
        FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF:9223372036854775807:-9223372036854775808}'),
  (8, (SELECT counter_crdt_merge_agg(
               counter_crdt_increment(NULL, i * 1000003 - 250000000, counter_crdt_rack_id('dc' || (i % 7), 'rack' || i)))
       FROM generate_series(1, 500) i)),
  (9, (SELECT counter_crdt_merge_agg(
               counter_crdt_increment(NULL, -i, counter_crdt_pending_id(counter_crdt_rack_id('dc', 'r' || i))))
       FROM generate_series(1, 5000) i));
INSERT INTO t (k) VALUES (12);                       -- the column default
INSERT INTO t VALUES (11, NULL::counter_crdt + 0);   -- this server's writer
UPDATE t SET c = c + 5 WHERE k IN (2, 4, 8);
UPDATE t SET c = c - 7 WHERE k IN (3, 4, 12);        -- 3 stays a tombstone
DO \$\$
DECLARE x counter_crdt;
BEGIN
	-- 300 writers, incremented once or twice each
	FOR i IN 1 .. 500 LOOP
		x := counter_crdt_increment(x, i - 250, counter_crdt_rack_id('dc' || (i % 3), 'rack' || (i % 100)));
	END LOOP;
	INSERT INTO t VALUES (10, x);
END
\$\$;
CREATE INDEX t_c_hash ON t USING hash (c);
CREATE INDEX t_value ON t ((counter_crdt_value(c)));

-- Replica states of counters, merged by a view.
CREATE TABLE r (k int, replica text, c counter_crdt);
INSERT INTO r
  SELECT k, 'rack' || j,
         counter_crdt_increment(counter_crdt_increment(NULL, k * j, counter_crdt_rack_id('dc1', 'rack' || j)),
                                k - j, counter_crdt_rack_id('dc1', 'rack' || j))
  FROM generate_series(1, 20) k, generate_series(1, 3) j;
INSERT INTO r SELECT k, 'stale', counter_crdt_increment(NULL, 1000, counter_crdt_rack_id('dc1', 'rack1'))
  FROM generate_series(1, 20, 4) k;
INSERT INTO r VALUES (5, 'none', NULL), (21, 'none', NULL), (22, 'empty', '{}'),
  (20, 'deleted', 'tombstone');

CREATE VIEW v AS
  SELECT k, counter_crdt_merge_agg(c) AS m, counter_crdt_merge_agg(c)::bigint AS total
  FROM r GROUP BY k;
CREATE VIEW v2 AS
  SELECT k, counter_crdt_value(c) AS val, c::bigint AS val2,
         encode(counter_crdt_digest(c), 'hex') AS dig,
         (SELECT count(*) FROM counter_crdt_shards(t.c)) AS nshards,
         (SELECT max(s.clock) FROM counter_crdt_shards(t.c) s) AS maxclock,
         counter_crdt_merge(c, '{}'::counter_crdt) AS merged,
         c = c AS self_eq, c <> '{}'::counter_crdt AS ne_empty,
         counter_crdt_increment(c, 1, counter_crdt_pending_id(counter_crdt_rack_id('dc9', 'r9'))) AS inc,
         c + 1 AS plus_one, c - 1 AS minus_one
  FROM t;
CREATE MATERIALIZED VIEW mv AS SELECT k, m, total FROM v;

-- A domain, arrays.
CREATE DOMAIN nonneg_counter AS counter_crdt
  CHECK (counter_crdt_value(VALUE) IS NULL OR counter_crdt_value(VALUE) >= 0);
CREATE TABLE d (k int PRIMARY KEY, c nonneg_counter);
INSERT INTO d VALUES (1, '{}'), (2, NULL), (3, 'tombstone'), (4, '{7f0cab51-fb72-3e98-bdb4-0404a982865d:3:9}');
CREATE TABLE a (k int PRIMARY KEY, cs counter_crdt[]);
INSERT INTO a VALUES (1, ARRAY['{}', NULL, 'tombstone']::counter_crdt[]),
  (2, (SELECT array_agg(c ORDER BY k) FROM t WHERE k <> 9)), (3, '{}'), (4, NULL);

-- A table set up for replication, with a tombstone from a local delete.
CREATE TABLE p (page text PRIMARY KEY, views counter_crdt);
SELECT counter_crdt_enable_replica_merge('p');
INSERT INTO p SELECT '/page/' || i, counter_crdt_increment(NULL, i, counter_crdt_rack_id('dc1', 'rack1'))
  FROM generate_series(1, 10) i;
INSERT INTO p VALUES ('/null', NULL);
DELETE FROM p WHERE page = '/page/3';
UPDATE p SET views = views + 1 WHERE page = '/page/3';      -- ignored: a tombstone
};
}

# Queries whose output must be the same in a source and its restored copies.
# They run with search_path = '' and so qualify every name; $S: the schema of
# the extension.
sub compare_queries
{
	my ($S) = @_;
	return (
		'extension' => q{SELECT e.extname, e.extversion, n.nspname, e.extrelocatable
			FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
			ORDER BY 1},
		'extension members' => q{SELECT pg_catalog.pg_describe_object(classid, objid, objsubid)
			FROM pg_catalog.pg_depend
			WHERE refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND deptype = 'e'
			  AND refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'counter_crdt')
			ORDER BY 1},
		'objects outside the extension' => q{SELECT n.nspname, c.relname, c.relkind
			FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
			ORDER BY 1, 2},
		'triggers' => q{SELECT tgrelid::pg_catalog.regclass, tgname, tgenabled, pg_catalog.pg_get_triggerdef(oid)
			FROM pg_catalog.pg_trigger WHERE NOT tgisinternal ORDER BY tgrelid::pg_catalog.regclass::text, tgname},
		'indexes' => q{SELECT indexrelid::pg_catalog.regclass, pg_catalog.pg_get_indexdef(indexrelid)
			FROM pg_catalog.pg_index
			WHERE indrelid IN ('public.t'::pg_catalog.regclass, 'public.p'::pg_catalog.regclass)
			ORDER BY indexrelid::pg_catalog.regclass::text},
		'view definitions' => q{SELECT c.relname, pg_catalog.pg_get_viewdef(c.oid)
			FROM pg_catalog.pg_class c WHERE c.relkind IN ('v', 'm')
			  AND c.relnamespace = 'public'::pg_catalog.regnamespace ORDER BY 1},
		't' => qq{SELECT k, c::text, pg_catalog.encode($S.counter_crdt_digest(c), 'hex'),
			$S.counter_crdt_value(c), c::bigint FROM public.t ORDER BY k},
		't shards' => qq{SELECT t.k, s.id, s.clock, s.value FROM public.t, $S.counter_crdt_shards(t.c) s
			ORDER BY t.k, s.id},
		'r' => qq{SELECT k, replica, c::text, pg_catalog.encode($S.counter_crdt_digest(c), 'hex')
			FROM public.r ORDER BY k, replica},
		'v' => q{SELECT k, m::text, total FROM public.v ORDER BY k},
		'v2' => q{SELECT * FROM public.v2 ORDER BY k},
		'mv' => q{SELECT k, m::text, total FROM public.mv ORDER BY k},
		'd' => q{SELECT k, c::text FROM public.d ORDER BY k},
		'a' => q{SELECT k, cs::text FROM public.a ORDER BY k},
		'p' => qq{SELECT page, views::text, pg_catalog.encode($S.counter_crdt_digest(views), 'hex')
			FROM public.p ORDER BY page},
		'whole-table aggregate' => qq{SELECT $S.counter_crdt_merge_agg(c)::text,
			pg_catalog.encode($S.counter_crdt_digest($S.counter_crdt_merge_agg(c)), 'hex')
			FROM public.t WHERE k <> ALL (ARRAY[3, 5, 7])},
		'hash index lookup' => qq{SET enable_seqscan = off; SET enable_bitmapscan = off;
			SELECT k FROM public.t
			WHERE c OPERATOR($S.=) '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:42}'::$S.counter_crdt
			   OR c OPERATOR($S.=) (SELECT c FROM public.t WHERE k = 8)
			ORDER BY k},
		'expression index lookup' => qq{SET enable_seqscan = off;
			SELECT k FROM public.t WHERE $S.counter_crdt_value(c) = 9223372036854775807},
	);
}

# Changes made afterwards in every copy, with search_path = ''; their results
# must be the same everywhere too.  Exercises the operators, the upsert, and
# both triggers of p (the replica one with session_replication_role =
# replica, as an apply worker runs).
sub change_queries
{
	my ($S) = @_;
	return (
		'update' => qq{UPDATE public.t SET c = c OPERATOR($S.+) 5 WHERE k IN (1, 2, 4, 8, 9, 10)
			RETURNING k, c::text},
		'upsert' => qq{INSERT INTO public.t AS x VALUES (100, NULL::$S.counter_crdt OPERATOR($S.+) 1), (4, NULL::$S.counter_crdt OPERATOR($S.+) 1)
			ON CONFLICT (k) DO UPDATE SET c = x.c OPERATOR($S.-) 1 RETURNING k, c::text},
		'default' => q{INSERT INTO public.t (k) VALUES (101) RETURNING k, c::text},
		'delete as tombstone' => q{WITH d AS (DELETE FROM public.p WHERE page IN ('/page/1', '/page/2') RETURNING 1)
			SELECT count(*) FROM d},
		'after delete' => q{SELECT page, views::text FROM public.p ORDER BY page},
		'replica merge' => qq{SET session_replication_role = replica;
			INSERT INTO public.p VALUES ('/page/4', '{7f0cab51-fb72-3e98-bdb4-0404a982865d:5:500, b1563bec-5713-3fb8-a6f6-79f64b778b21:2:3}');
			INSERT INTO public.p VALUES ('/page/new', '{b1563bec-5713-3fb8-a6f6-79f64b778b21:1:1}');
			UPDATE public.p SET views = '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-1}' WHERE page = '/page/5';
			INSERT INTO public.p VALUES ('/page/2', '{7f0cab51-fb72-3e98-bdb4-0404a982865d:9:9}');
			SELECT page, views::text FROM public.p ORDER BY page},
		'domain' => qq{INSERT INTO public.d VALUES (10, '{}'::$S.counter_crdt OPERATOR($S.+) 3)
			RETURNING k, c::text},
		'merge view after changes' => q{SELECT k, m::text, total FROM public.v ORDER BY k},
		'refresh' => q{REFRESH MATERIALIZED VIEW public.mv; SELECT count(*), sum(total) FROM public.mv},
	);
}

sub q_
{
	my ($db, $sql) = @_;
	return $node->safe_psql($db, "SET search_path = ''; $sql");
}

# A fresh database.
sub createdb
{
	my ($db) = @_;
	$node->safe_psql('postgres', "CREATE DATABASE $db TEMPLATE template0");
}

# psql -f / pg_dump / pg_restore: success with nothing on stderr.
sub run_ok
{
	my ($cmd, $name) = @_;
	$node->command_checks_all($cmd, 0, [qr/^$/], [qr/^$/], $name);
}

# Two plain dumps are the same but for the random keys of \restrict and
# \unrestrict (pg_dump 15.14 and later).
sub same_dump
{
	my ($f1, $f2, $name) = @_;
	my @l1 = grep { !/^\\(un)?restrict / } split /\n/, slurp_file($f1);
	my @l2 = grep { !/^\\(un)?restrict / } split /\n/, slurp_file($f2);
	my $i = 0;
	$i++ while $i < @l1 && $i < @l2 && $l1[$i] eq $l2[$i];
	ok($i == @l1 && $i == @l2, $name)
	  or diag("first difference at line " . ($i + 1) . ":\n< " . ($l1[$i] // '(end)')
		  . "\n> " . ($l2[$i] // '(end)'));
}

foreach my $S ('public', 'crdt')
{
	my $src = "src_$S";
	my ($fc, $fp) = ("fc_$S", "fp_$S");
	createdb($src);
	$node->safe_psql($src, setup_sql($S));

	# The source, checked before anything is dumped.
	is(q_($src, q{SELECT count(*) FROM public.t}), 12, "$S: source has 12 rows");
	is(q_($src, "SELECT (SELECT count(*) FROM $S.counter_crdt_shards(c)) FROM public.t WHERE k = 8"),
		501, "$S: a value of 500 rack shards and this server's");
	is(q_($src, "SELECT (SELECT count(*) FROM $S.counter_crdt_shards(c)) FROM public.t WHERE k = 10"),
		300, "$S: a 300-shard value built by increments");
	is(q_($src, q{SELECT k, c::bigint FROM public.t WHERE k IN (5, 6, 7) ORDER BY k}),
		"5|9223372036854775807\n6|-9223372036854775808\n7|-1", "$S: extreme values");
	is(q_($src, q{SELECT string_agg(tgname || '=' || tgenabled::text, ',' ORDER BY tgname)
			FROM pg_catalog.pg_trigger WHERE tgrelid = 'public.p'::pg_catalog.regclass}),
		'counter_crdt_delete_as_tombstone=O,counter_crdt_key_guard=O,counter_crdt_key_guard_after=O,counter_crdt_replica_merge=R,counter_crdt_truncate_guard=O',
		"$S: triggers of p, enabled as origin and as replica");
	is(q_($src, q{SELECT views::text FROM public.p WHERE page = '/page/3'}),
		'tombstone', "$S: the local delete left a tombstone");

	# Dump in both formats, restore into fresh databases.
	run_ok([ 'pg_dump', '-Fc', '-f', "$tmp/$src.dump", '-d', $src ], "$S: pg_dump -Fc");
	run_ok([ 'pg_dump', '-Fp', '-f', "$tmp/$src.sql", '-d', $src ], "$S: pg_dump -Fp");
	createdb($fc);
	createdb($fp);
	run_ok([ 'pg_restore', '--exit-on-error', '-d', $fc, "$tmp/$src.dump" ], "$S: pg_restore");
	run_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-o', '/dev/null', '-d', $fp,
			'-f', "$tmp/$src.sql" ], "$S: psql -f of the plain dump");

	# Same states, views, triggers, extension.
	my %cq = compare_queries($S);
	foreach my $name (sort keys %cq)
	{
		my $want = q_($src, $cq{$name});
		isnt($want, '', "$S: $name: the source has rows");
		is(q_($fc, $cq{$name}), $want, "$S: $name: pg_restore copy equals the source");
		is(q_($fp, $cq{$name}), $want, "$S: $name: psql -f copy equals the source");
	}

	# Binary COPY: byte for byte the same.  (Not for the arrays of a: an
	# array's binary form holds the oid of its element type, which differs
	# between databases.)
	my %order = (t => 'k', r => 'k, replica', p => 'page', a => 'k', d => 'k');
	foreach my $tbl ('t', 'r', 'p', 'a', 'd')
	{
		my %files;
		foreach my $db ($src, $fc, $fp)
		{
			$files{$db} = "$tmp/$db.$tbl.bin";
			$node->safe_psql($db,
				"\\copy (SELECT * FROM public.$tbl ORDER BY $order{$tbl}) TO '$files{$db}' WITH (FORMAT binary)");
		}
		ok(-s $files{$src} > 0, "$S: binary COPY of $tbl is not empty");
		next if $tbl eq 'a';
		ok(File::Compare::compare($files{$src}, $files{$fc}) == 0,
			"$S: binary COPY of $tbl: pg_restore copy equals the source");
		ok(File::Compare::compare($files{$src}, $files{$fp}) == 0,
			"$S: binary COPY of $tbl: psql -f copy equals the source");
	}

	# The restored copies dump to the same text as the source.
	run_ok([ 'pg_dump', '-Fp', '-f', "$tmp/$fc.sql", '-d', $fc ], "$S: pg_dump of the pg_restore copy");
	run_ok([ 'pg_dump', '-Fp', '-f', "$tmp/$fp.sql", '-d', $fp ], "$S: pg_dump of the psql -f copy");
	same_dump("$tmp/$src.sql", "$tmp/$fc.sql",
		"$S: the pg_restore copy dumps to the same text as the source");
	same_dump("$tmp/$src.sql", "$tmp/$fp.sql",
		"$S: the psql -f copy dumps to the same text as the source");

	# The dump qualifies what it needs: with the extension in crdt, every
	# use of its type in the dump is qualified.
	if ($S eq 'crdt')
	{
		my $sql = slurp_file("$tmp/$src.sql");
		my @unq = grep { /(?<![.\w"])counter_crdt(?![\w(])/ && !/^(--|CREATE EXTENSION|COMMENT ON EXTENSION)/ }
		  split /\n/, $sql;
		ok(!@unq, "$S: the dump never names the type counter_crdt unqualified")
		  or diag(join("\n", @unq[ 0 .. ($#unq < 9 ? $#unq : 9) ]));
	}

	# Binary COPY from the source loads into a restored copy (recv of
	# send's output, arrays included) and gives the same states.
	foreach my $db ($fc, $fp)
	{
		$node->safe_psql($db, q{CREATE SCHEMA scratch;
			CREATE TABLE scratch.t (LIKE public.t); CREATE TABLE scratch.a (LIKE public.a)});
		$node->safe_psql($db, "\\copy scratch.t FROM '$tmp/$src.t.bin' WITH (FORMAT binary)");
		$node->safe_psql($db, "\\copy scratch.a FROM '$tmp/$src.a.bin' WITH (FORMAT binary)");
		is(q_($db, qq{SELECT count(*) FROM public.t x FULL JOIN scratch.t y USING (k)
				WHERE x.c OPERATOR($S.<>) y.c OR (x.c IS NULL) <> (y.c IS NULL)
				   OR $S.counter_crdt_digest(x.c) IS DISTINCT FROM $S.counter_crdt_digest(y.c)}),
			0, "$S: binary COPY of t into $db gives the same states");
		is(q_($db, q{SELECT count(*) FROM public.a x FULL JOIN scratch.a y USING (k)
				WHERE x.cs::text IS DISTINCT FROM y.cs::text}),
			0, "$S: binary COPY of a (arrays) into $db gives the same values");
		$node->safe_psql($db, 'DROP SCHEMA scratch CASCADE');
	}

	# Changes under search_path = '' give the same results everywhere.
	my @chq = change_queries($S);
	while (my ($name, $sql) = splice(@chq, 0, 2))
	{
		my $want = q_($src, $sql);
		is(q_($fc, $sql), $want, "$S: change '$name': pg_restore copy behaves as the source");
		is(q_($fp, $sql), $want, "$S: change '$name': psql -f copy behaves as the source");
	}
	foreach my $db ($src, $fc, $fp)
	{
		is(q_($db, q{SELECT page || '=' || views::text FROM public.p
				WHERE page IN ('/page/1', '/page/2', '/page/4') ORDER BY page}),
			"/page/1=tombstone\n/page/2=tombstone\n"
			  . '/page/4={7f0cab51-fb72-3e98-bdb4-0404a982865d:5:500, b1563bec-5713-3fb8-a6f6-79f64b778b21:2:3}',
			"$S: in $db, deletes became tombstones and replicated rows were merged");
		my ($rc, $out, $err) = $node->psql($db,
			"SET search_path = ''; INSERT INTO public.d VALUES (11, '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-1}')");
		like($err, qr/violates check constraint/, "$S: in $db, the domain's check holds");
	}
	# And the states after the changes are the same too.
	foreach my $name ('t', 'p', 'v', 'mv', 'd')
	{
		my $want = q_($src, $cq{$name});
		is(q_($fc, $cq{$name}), $want, "$S: $name after the changes: pg_restore copy equals the source");
		is(q_($fp, $cq{$name}), $want, "$S: $name after the changes: psql -f copy equals the source");
	}
}

# The server logged no error but the domain checks above.
my @err = grep { /ERROR:|PANIC:/ && !/violates check constraint/ } split /\n/, slurp_file($node->logfile);
ok(!@err, 'no unexpected error in the server log') or diag(join("\n", @err));

$node->stop('fast');
note(sprintf('total runtime %.1fs', time() - $t_start));
done_testing();
