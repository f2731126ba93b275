# The Python package of clients/python (doc/python.md), on this PostgreSQL
# with this suite's Python and its Debian packages of the drivers and ORMs
# (15: Python 3.11, SQLAlchemy 1.4, Peewee 3.14.10; 17: 3.13, SQLAlchemy
# 2.0.40, Peewee 3.17.7; 18 and 19: 3.14, SQLAlchemy 2.0.52, Peewee 3.18.3).
#
# 1. The wheel built with python3-build and installed with pip into a venv
#    (test/t/PythonPackage.pm); the drivers that scripts/setup.sh and
#    scripts/pgchroot.sh install (python3-psycopg, -psycopg2, -asyncpg,
#    -sqlalchemy, -peewee) must import: a missing one fails, nothing is
#    skipped.
# 2. The package's own tests (clients/python/tests/test_*.py, the top level
#    only: Django's are 030's), run by the venv's python against a
#    throwaway database, each test a check here (test/t/unittest_tap.py).
# 3. The recipes of doc/python.md: its apt line's packages installed, its
#    install commands run as written (their venv then runs the programs),
#    the programs run on a fresh database "app" under the writer id that the
#    page's states show, each printing what the page shows.
# 4. The read-modify-write trap, with application processes
#    (test/t/python_worker.py) started at once, 1,000 writes each, every run
#    on its own counter: two processes through each of psycopg 3, psycopg2,
#    asyncpg, the SQLAlchemy ORM (page.views += 1; session.commit()) and
#    Peewee (page.views += 1; page.save()) on a guarded table count exactly
#    2,000; the trap by hand (the state read,
#    written back, as an ORM without this package saves a row) beside 1,000
#    increments is refused with IntegrityError and undoes none of them under
#    the guard, and undoes some without it.  Two sessions writing back the
#    state read plus one and plus two: the guard refuses the second of two
#    states made from one read, so the counter holds every step committed.
# 5. The same on a replicated pair (two servers subscribing to each other,
#    counter_crdt_enable_replica_merge on both, as doc/replication.md does):
#    one process on each server per driver and ORM, and the trap by hand
#    on b beside increments on a, at once; after convergence every counter
#    is exact on both servers.
#
# About 40 s of CPU (the ORMs' processes most of it); 75 to 120 s on a
# machine whose two cores run other tests too.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use File::Temp ();
use File::Path ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ClientChecks;
use ReadmeRecipe;
use PythonPackage;
use CounterCrdtMesh;
use Time::HiRes qw(time);

my $N = 1000;    # increments per process
my $doc_id = '7ddd454a-30ea-3e9a-a5d1-3d0092b783a6';
my $tests = "$FindBin::RealBin/../../clients/python/tests";
my $tmp = File::Temp::tempdir('python_XXXX', DIR => $PostgreSQL::Test::Utils::tmp_check, CLEANUP => 1);
my $t0 = time();

# 1. The drivers, then the package.
my $system_python = $PythonPackage::system_python;
foreach my $module (qw(psycopg psycopg2 asyncpg sqlalchemy peewee))
{
	ok(system($system_python, '-c', "import $module") == 0,
		"$module imports in $system_python (installed by setup)")
	  or die "$module is missing: scripts/setup.sh and scripts/pgchroot.sh install python3-$module";
}
my $pkg = python_package("$tmp/pkg");
my $python = $pkg->{python};
ok(-f $pkg->{wheel}, 'the wheel is built: ' . File::Basename::basename($pkg->{wheel}));

sub run_cmd
{
	my ($env, $stdin, @cmd) = @_;
	local %ENV = (%ENV, %$env);
	my ($out, $err) = ('', '');
	IPC::Run::run(\@cmd, '<', \$stdin, '>', \$out, '2>', \$err);
	return ($? >> 8, $out, $err);
}

my ($rc, $versions, $err) = run_cmd({}, '', $python, '-c', q{
import sys, counter_crdt, psycopg, psycopg2, asyncpg, sqlalchemy, peewee
print(sys.version.split()[0], sqlalchemy.__version__, psycopg.__version__,
      psycopg2.__version__.split()[0], asyncpg.__version__, peewee.__version__,
      counter_crdt.__file__)});
is($rc, 0, 'the venv imports the package and the drivers') or diag($err);
my ($py_version, $sa_version, @rest) = split ' ', $versions;
note("Python $py_version, SQLAlchemy $sa_version, psycopg $rest[0], psycopg2 $rest[1], asyncpg $rest[2], "
	  . "Peewee $rest[3]");
like($rest[4], qr{^\Q$pkg->{venv}\E/lib/python[0-9.]+/site-packages/counter_crdt/__init__\.py$},
	'counter_crdt is imported from what the wheel installed in the venv');
my $sa2 = $sa_version =~ /^2\./;
my $orm_driver = $sa2 ? 'psycopg' : 'psycopg2';    # SQLAlchemy 1.4 has no psycopg 3 dialect

# Two servers for the pair of 5 (a serves 2 to 4 too): logical WAL, room
# for the workers' connections.
sub node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 'logical');
	$node->append_conf('postgresql.conf', q(
max_connections = 40
autovacuum = off
wal_retrieve_retry_interval = 200ms
));
	$node->start;
	return $node;
}
my $a = node('py_a');
my $b = node('py_b');
sub pgenv
{
	my ($node, $db) = @_;
	return { PGHOST => $node->host, PGPORT => $node->port, PGDATABASE => $db };
}

# 2. The package's tests.
$a->safe_psql('postgres', 'CREATE DATABASE pkgtests');
my @modules = map { File::Basename::basename($_, '.py') } sort glob("$tests/test_*.py");
ok(@modules >= 4, "the package's test modules: @modules");
{
	my ($rc, $out, $err) = run_cmd(
		{ COUNTER_CRDT_TEST_DSN => 'host=' . $a->host . ' port=' . $a->port . ' dbname=pkgtests' },
		'', $python, '-B', "$FindBin::RealBin/unittest_tap.py", $tests, @modules);
	relay_checks('package test', $rc, $out, $err);
}
note(sprintf('package built and tested after %.1fs', time() - $t0));

# 3. The page's recipes: the packages of its apt line installed; its
# install commands run in a directory with clients/python, by Debian's
# python3 (their venv then runs the programs); the programs on a fresh
# database app of a under the page's writer id.
{
	my $apt = recipe('python/apt');
	my ($pkgs) = $apt =~ /^sudo apt install ((?:python3-[a-z0-9]+ ?)+)$/m;
	ok(defined $pkgs, 'doc/python.md, apt: one apt install line of python3- packages') or diag($apt);
	foreach my $p (split ' ', $pkgs // '')
	{
		my ($rc, $out) = run_cmd({}, '', 'dpkg-query', '-W', '-f=${Status}', $p);
		is($out, 'install ok installed', "doc/python.md, apt: $p is installed");
	}
	my $user = "$tmp/user";
	File::Path::make_path("$user/clients");
	system('cp', '-a', "$FindBin::RealBin/../../clients/python", "$user/clients/python") == 0
	  or die 'cannot copy clients/python';
	my %pip = (PIP_NO_INDEX => 1, PIP_DISABLE_PIP_VERSION_CHECK => 1, PIP_NO_CACHE_DIR => 1,
		PIP_NO_INPUT => 1, PATH => "/usr/bin:$ENV{PATH}");
	my ($rc, $out, $err) = run_cmd(\%pip, '', 'sh', '-ec', "cd '$user'\n" . recipe('python/install'));
	is($rc, 0, 'doc/python.md, install: the commands run') or diag("$out$err");
	($rc, $out, $err) = run_cmd({}, '', 'sh', '-ec', "cd '$user'\n" . recipe('python/version'));
	is($out, recipe('python/version.out'), 'doc/python.md, install: the venv imports the package')
	  or diag($err);

	$a->safe_psql('postgres', "CREATE DATABASE app;\nLOAD 'counter_crdt';\n"
		  . "ALTER DATABASE app SET counter_crdt.node_id = '$doc_id';");
	$a->safe_psql('app', recipe('python/table'));
	my %env = (PGHOST => $a->host, PGPORT => $a->port);
	foreach my $name (qw(state psycopg psycopg2 asyncpg sqlalchemy sqlalchemy2 peewee trap))
	{
	  SKIP:
		{
			skip "python/$name: SQLAlchemy 2.0's style, not $sa_version", 2
			  if $name eq 'sqlalchemy2' && !$sa2;
			my $file = "$user/recipe_$name.py";    # not psycopg.py: the module of that name
			open(my $fh, '>', $file) or die "cannot write $file: $!";
			print $fh recipe("python/$name");
			close($fh);
			my ($rc, $out, $err) = run_cmd(\%env, '', "$user/venv/bin/python", '-B', $file);
			is($rc, 0, "doc/python.md, $name: runs") or diag($err);
			is($out, recipe("python/$name.out"), "doc/python.md, $name: prints what the page shows");
		}
	}
	is($a->safe_psql('app', q{SELECT count(*) FROM pg_trigger WHERE tgname = 'counter_crdt_write_guard'
		AND tgrelid IN ('pages'::regclass, 'articles'::regclass, to_regclass('posts'), 'stories'::regclass)}),
		$sa2 ? 4 : 3, 'doc/python.md: the tables of the page are guarded, by hand, by create_all() and by create_tables()');
	is($a->safe_psql('app', q{SELECT string_agg(indexrelid::regclass || ' ' || pg_get_indexdef(indexrelid), '; ' ORDER BY 1)
		FROM pg_index WHERE indrelid = 'articles'::regclass AND NOT indisprimary}),
		'articles_views_value CREATE INDEX articles_views_value ON public.articles USING btree (((views)::bigint))',
		'doc/python.md, sqlalchemy: the value index');
	is($a->safe_psql('app', q{SELECT pg_get_indexdef('stories_views_value'::regclass)}),
		'CREATE INDEX stories_views_value ON public.stories USING btree (((views)::bigint))',
		'doc/python.md, peewee: the value index');
}
note(sprintf('the page after %.1fs', time() - $t0));

my $pair = 0;    # the workers of 5 connect to database pair, those of 4 to workers

# 4., 5. Workers: [node, mode, table, key] each, started at once; returns
# [committed, refused] per worker (dies when one fails).
sub run_workers
{
	my (@specs) = @_;
	my @runs;
	foreach my $s (@specs)
	{
		my ($node, $mode, $table, $key) = @$s;
		my ($in, $out, $err) = ('', '', '');
		local %ENV = (%ENV, %{ pgenv($node, $node == $a && !$pair ? 'workers' : 'pair') });
		my $h = IPC::Run::start([ $python, '-B', "$FindBin::RealBin/python_worker.py", $mode, $table, $key, $N ],
			'<', \$in, '>', \$out, '2>', \$err, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
		push @runs, { h => $h, in => \$in, out => \$out, err => \$err, what => "$mode on " . $node->name };
	}
	foreach my $r (@runs)
	{
		$r->{h}->pump until ${ $r->{out} } =~ /^ready$/m || !$r->{h}->pumpable;
		die "worker $r->{what} did not start: ${ $r->{err} }" unless ${ $r->{out} } =~ /^ready$/m;
	}
	$_->{h}->signal('USR1') foreach @runs;
	my @result;
	foreach my $r (@runs)
	{
		$r->{h}->finish;
		die "worker $r->{what} failed (exit status " . ($? >> 8) . "): ${ $r->{err} }"
		  unless $? == 0 && ${ $r->{out} } =~ /^done (\d+) (\d+)$/m;
		push @result, [ $1, $2 ];
	}
	return @result;
}

my $table_sql = q{
CREATE TABLE pages (id int PRIMARY KEY, views counter_crdt NOT NULL DEFAULT '{}');
INSERT INTO pages (id) SELECT generate_series(1, 10);
};
my @modes = ('psycopg', 'psycopg2', 'asyncpg', "orm-$orm_driver", 'peewee');

# Sums of the workers' [committed, refused].
sub totals
{
	my ($c, $r) = (0, 0);
	$c += $_->[0], $r += $_->[1] foreach @_;
	return ($c, $r);
}

# 4. On one server, every run at once, each on its own counter: two
# processes per driver and ORM; the trap by hand beside increments on a
# guarded and on an unguarded table; two sessions writing back the state
# read plus one and plus two.
$a->safe_psql('postgres', 'CREATE DATABASE workers');
$a->safe_psql('workers', "CREATE EXTENSION counter_crdt;\n$table_sql
CREATE TABLE unguarded (LIKE pages INCLUDING ALL);
INSERT INTO unguarded (id) VALUES (1);
SELECT counter_crdt_guard_writes('pages');");
{
	my $t = time();
	my @specs;
	my $key = 0;
	foreach my $mode (@modes)
	{
		$key++;
		push @specs, [ $a, $mode, 'pages', $key ], [ $a, $mode, 'pages', $key ];
	}
	my $trap = $key + 1;
	my $plus = $key + 2;
	push @specs, [ $a, 'psycopg', 'pages', $trap ], [ $a, 'writeback', 'pages', $trap ],
	  [ $a, 'psycopg', 'unguarded', 1 ], [ $a, 'writeback', 'unguarded', 1 ],
	  [ $a, 'plus1', 'pages', $plus ], [ $a, 'plus2', 'pages', $plus ];
	my @r = run_workers(@specs);
	note(sprintf('%d processes took %.1fs', scalar(@specs), time() - $t));
	$key = 0;
	foreach my $mode (@modes)
	{
		$key++;
		is($a->safe_psql('workers', "SELECT views::bigint FROM pages WHERE id = $key"), 2 * $N,
			"$mode: two processes, $N increments each at once, count exactly " . 2 * $N);
	}
	my ($committed, $refused) = totals($r[-5]);
	cmp_ok($refused, '>', 0,
		"the trap by hand, guarded: $refused of $N write-backs of a state read refused with IntegrityError");
	is($a->safe_psql('workers', "SELECT views::bigint FROM pages WHERE id = $trap"), $N,
		"the trap by hand, guarded: the $committed write-backs that passed undid none of the $N increments");
	($committed, $refused) = totals($r[-3]);
	my $count = $a->safe_psql('workers', 'SELECT views::bigint FROM unguarded WHERE id = 1');
	ok($refused == 0 && $count < $N,
		"the trap by hand, unguarded: $committed write-backs, the $N increments count $count");
	my ($one, $refused1) = @{ $r[-2] };
	my ($two, $refused2) = @{ $r[-1] };
	$count = $a->safe_psql('workers', "SELECT views::bigint FROM pages WHERE id = $plus");
	is($one + $refused1 + $two + $refused2, 2 * $N, 'the state read plus one and plus two, guarded: every write committed or refused');
	is($count, $one + 2 * $two,
		"the state read plus one and plus two, guarded: $one and $two committed, "
		  . ($refused1 + $refused2) . ' refused, the counter holds every step committed');
}

# 5. The replicated pair: one process per driver and ORM on each server, at
# once, and the trap by hand on b beside increments on a.
my $t = time();
foreach my $node ($a, $b)
{
	$node->safe_psql('postgres', 'CREATE DATABASE pair');
	$node->safe_psql('pair', q{
CREATE EXTENSION IF NOT EXISTS counter_crdt;
DROP TABLE IF EXISTS pages;
CREATE TABLE pages (id int PRIMARY KEY, views counter_crdt NOT NULL DEFAULT '{}');
SELECT counter_crdt_enable_replica_merge('pages');
SELECT counter_crdt_guard_writes('pages');
CREATE PUBLICATION pages_pub FOR TABLE pages WITH (publish = 'insert, update, delete');});
}
foreach my $pair ([ $a, $b ], [ $b, $a ])
{
	my ($sub, $pub) = @$pair;
	$sub->safe_psql('pair', 'CREATE SUBSCRIPTION pages_' . $sub->name . '_from_' . $pub->name
		  . " CONNECTION '" . $pub->connstr . " dbname=pair' PUBLICATION pages_pub WITH (copy_data = false)");
}
foreach my $node ($a, $b)
{
	$node->poll_query_until('pair', 'SELECT count(*) = 1 FROM pg_stat_subscription WHERE pid IS NOT NULL')
	  or die 'no apply worker on ' . $node->name;
	$node->poll_query_until('pair', 'SELECT count(*) = 1 FROM pg_replication_slots WHERE active')
	  or die 'no walsender on ' . $node->name;
}
$a->safe_psql('pair', q{INSERT INTO pages (id) SELECT generate_series(1, 10)});
$b->poll_query_until('pair', 'SELECT count(*) = 10 FROM pages') or die 'the rows did not reach b';
$pair = 1;
my @pair_modes = @modes;
my @specs;
my $key = 0;
foreach my $mode (@pair_modes)
{
	$key++;
	push @specs, [ $a, $mode, 'pages', $key ], [ $b, $mode, 'pages', $key ];
}
my $trap = $key + 1;
push @specs, [ $a, 'psycopg', 'pages', $trap ], [ $b, 'writeback', 'pages', $trap ];
my @r = run_workers(@specs);
my $mesh = CounterCrdtMesh->new(nodes => [ $a, $b ], db => 'pair',
	table => { table => 'pages', key => 'id', counter => 'views' });
ok($mesh->wait_converged('the pair'), 'the pair: converged');
my ($committed, $refused) = totals($r[-1]);
my $want = join("\n", (map { "$_|" . 2 * $N } 1 .. @pair_modes), "$trap|$N");
foreach my $node ($a, $b)
{
	is($node->safe_psql('pair', "SELECT id, views::bigint FROM pages WHERE id <= $trap ORDER BY id"),
		$want, sprintf('the pair, on %s: %s (one process on each server) count exactly %d each; '
			  . 'the %d increments on a, with the trap by hand on b, count %d',
			$node->name, join(', ', @pair_modes), 2 * $N, $N, $N));
}
note("the pair: the trap by hand on b, $committed write-backs passed, $refused refused");
note(sprintf('the pair took %.1fs', time() - $t));

$a->stop;
$b->stop;
note(sprintf('029 took %.1fs', time() - $t0));
done_testing();
