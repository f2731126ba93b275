# counter_crdt.django in a real Django project: Django 3.2 with psycopg2 on
# PostgreSQL 15 (this machine), 4.2 on 17 and 5.2 on 18 and 19 (the chroots),
# with psycopg 3 and with psycopg2 where Django can use both.  The package is
# the wheel that PythonPackage.pm builds and installs into a venv.
#
# 1. doc/django.md as written: the project (django-admin startproject), the
#    database, the settings, the model, the three migrations (one made by
#    makemigrations), migrate; each example run in `manage.py shell` prints
#    what the page shows (on a database whose writer id is the page's);
#    dumpdata writes the file the page shows, loaddata restores what the page
#    says.  Then the migrations' round trip: makemigrations finds no change,
#    migrate pages zero drops the guard, the table and the extension, migrate
#    makes them again.
# 2. The checks of clients/python/tests/django/checks.py (app "hits"), once
#    per driver, and for psycopg 3 once more with server-side binding: every
#    "ok"/"not ok" line a check here.
# 3. 2 processes x 1,000 `hit.views += 1; hit.save()` (increment.py) at
#    once, on one server: exactly 2,000; and on a pair of servers that
#    replicate to each other (counter_crdt_enable_replica_merge, by the app's
#    migration), one process on each: 2,000 on both, the same state.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use Symbol ();
use File::Temp ();
use File::Path ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ClientChecks;
use ReadmeRecipe;
use PythonPackage;
use CounterCrdtMesh;

my $pg = $ENV{COUNTER_CRDT_IN_CHROOT} // 15;
my %django_of = (15 => '3.2', 17 => '4.2', 18 => '5.2', 19 => '5.2');
my $want_django = $django_of{$pg} // die "no Django version known for PostgreSQL $pg";
my $doc_id = '7ddd454a-30ea-3e9a-a5d1-3d0092b783a6';
my $tests = "$FindBin::RealBin/../../clients/python/tests/django";

my $tmp = File::Temp::tempdir('django_XXXX', DIR => $PostgreSQL::Test::Utils::tmp_check, CLEANUP => 1);
my $pkg = python_package("$tmp/pkg");
my $python = $pkg->{python};
(my $venv_bin = $python) =~ s{/python$}{};
note("installed $pkg->{wheel} into $pkg->{venv}");

# psycopg2 under Django 4.2 and later, which take psycopg 3 when it imports:
# a package "psycopg" that does not import, first on the path.
my $no_psycopg3 = "$tmp/no-psycopg3";
mkdir $no_psycopg3;
mkdir "$no_psycopg3/psycopg";
append_to_file("$no_psycopg3/psycopg/__init__.py", "raise ImportError('psycopg 3 left out: this run uses psycopg2')\n");
my %driver_env = (psycopg => {}, psycopg2 => { PYTHONPATH => $no_psycopg3 });
my @drivers = $want_django eq '3.2' ? ('psycopg2') : ('psycopg', 'psycopg2');

my $site = "$tmp/site";
my $project = "$site/mysite";
mkdir $site;

# A command in $dir with the venv first on PATH; returns exit status, stdout, stderr.
sub run_in
{
	my ($dir, $env, @cmd) = @_;
	local %ENV = (%ENV, PATH => "$venv_bin:$ENV{PATH}", %$env);
	my ($out, $err) = ('', '');
	IPC::Run::run(\@cmd, '<', \undef, '>', \$out, '2>', \$err, init => sub { chdir $dir or die "chdir $dir: $!" });
	return ($? >> 8, $out, $err);
}

# A shell block of the page, run as written in $dir.
sub run_sh
{
	my ($name, $dir) = @_;
	my ($rc, $out, $err) = run_in($dir, {}, 'sh', '-e', '-c', recipe($name));
	is($rc, 0, "doc/django.md, $name: runs") or diag("$out\n$err");
	return $out;
}

# A Python block of the page, run in `python manage.py shell`.
sub run_shell
{
	my ($name) = @_;
	my ($rc, $out, $err) = run_in($project, {}, 'python', 'manage.py', 'shell', '-v', '0', '-c', recipe($name));
	is($rc, 0, "doc/django.md, $name: runs in manage.py shell") or diag($err);
	return $out;
}

sub write_file
{
	my ($path, $text) = @_;
	open(my $fh, '>', $path) or die "cannot write $path: $!";
	print $fh $text;
	close($fh);
	return;
}

# Two servers (b joins for the replicated pair), logical WAL.
my $a = CounterCrdtMesh::mesh_node('django_a');
my $b = CounterCrdtMesh::mesh_node('django_b');

my ($rc, $out, $err);

# ---------------------------------------------------------------------------
# 1. doc/django.md
run_sh('django/project', $site);
ok(-f "$project/manage.py" && -d "$project/pages", 'startproject and startapp made mysite and pages');

$a->safe_psql('postgres', recipe('django/database'));
$a->safe_psql('postgres', "LOAD 'counter_crdt';\nALTER DATABASE mysite SET counter_crdt.node_id = '$doc_id';");
my $settings = recipe('django/settings',
	{ '"HOST": "localhost"' => '"HOST": "' . $a->host . '"', '"PORT": "5432"' => '"PORT": "' . $a->port . '"' });
append_to_file("$project/mysite/settings.py", "\n$settings");
write_file("$project/pages/models.py", recipe('django/models'));
write_file("$project/pages/admin.py", recipe('django/admin'));
write_file("$project/pages/migrations/0001_counter_crdt.py", recipe('django/migration-extension'));
run_sh('django/makemigrations', $project);
ok(-f "$project/pages/migrations/0002_page.py", 'makemigrations wrote pages/migrations/0002_page.py, as the page says');
write_file("$project/pages/migrations/0003_guard_page.py", recipe('django/migration-guard'));
run_sh('django/migrate', $project);

my $objects = q{SELECT (SELECT extowner::regrole::text FROM pg_extension WHERE extname = 'counter_crdt'),
	(SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'pages_page'::regclass AND attname = 'views'),
	(SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pages_page'::regclass AND tgname = 'counter_crdt_write_guard')};
is($a->safe_psql('mysite', $objects), 'mysite|counter_crdt|1',
	'migrate: the extension (created by mysite), the column of type counter_crdt, the write guard on pages_page');

foreach my $ex ('increments', 'queries', 'trap')
{
	is(run_shell("django/$ex"), recipe("django/$ex.out"), "doc/django.md, django/$ex: prints what the page shows");
}

run_sh('django/dumpdata', $project);
is(slurp_file("$project/pages.json"), recipe('django/pages.json'), 'dumpdata wrote the file the page shows');
run_shell('django/after-dump');
is(run_sh('django/loaddata', $project), recipe('django/loaddata.out'), 'loaddata prints what the page shows');
is(run_shell('django/restored'), recipe('django/restored.out'),
	'after loaddata: the lost page back, the views made after the dump kept');

($rc, $out, $err) = run_in($project, {}, 'python', 'manage.py', 'makemigrations', '--check', '--dry-run');
is($rc, 0, 'makemigrations --check: no changes after migrate (the field deconstructs as written)') or diag("$out$err");
($rc, $out, $err) = run_in($project, {}, 'python', 'manage.py', 'migrate', 'pages', 'zero');
is($rc, 0, 'migrate pages zero: runs') or diag("$out$err");
is($a->safe_psql('mysite', q{SELECT count(*) FROM pg_extension WHERE extname = 'counter_crdt'},
		) . '|' . $a->safe_psql('mysite', q{SELECT to_regclass('pages_page') IS NULL}),
	'0|t', 'migrate pages zero: the table and the extension are gone');
($rc, $out, $err) = run_in($project, {}, 'python', 'manage.py', 'migrate');
is($rc, 0, 'migrate again: runs') or diag("$out$err");
is($a->safe_psql('mysite', $objects), 'mysite|counter_crdt|1', 'migrate again: extension, column and guard are back');

# ---------------------------------------------------------------------------
# 2. The checks, in the same project, with the app "hits"; CHECK_HOST and
#    CHECK_PORT point it at another server.
File::Path::make_path("$project/hits");
($rc, $out, $err) = run_in($tmp, {}, 'cp', '-R', "$tests/hits/.", "$project/hits/");
is($rc, 0, 'the app hits copied into the project') or diag($err);
append_to_file("$project/mysite/settings.py", q{
INSTALLED_APPS += ["hits"]
import os
if os.environ.get("CHECK_HOST"):
    DATABASES["default"].update(HOST=os.environ["CHECK_HOST"], PORT=os.environ["CHECK_PORT"])
if os.environ.get("CHECK_SERVER_SIDE_BINDING"):
    DATABASES["default"]["OPTIONS"] = {"server_side_binding": True}
});
($rc, $out, $err) = run_in($project, {}, 'python', 'manage.py', 'migrate', 'hits');
is($rc, 0, 'migrate hits on a') or diag("$out$err");
my %on_b = (CHECK_HOST => $b->host, CHECK_PORT => $b->port);

# Every "ok"/"not ok" line of a script a check here.
sub run_checks
{
	my ($name, $env, @cmd) = @_;
	my ($rc, $out, $err) = run_in($project, $env, @cmd);
	relay_checks($name, $rc, $out, $err);
	return;
}

# psycopg 3 also with server-side binding (Django 4.2's OPTIONS
# {"server_side_binding": True}): parameters sent typed, not quoted in.
foreach my $run (@drivers, ($want_django eq '3.2' ? () : ('psycopg, server-side binding')))
{
	my ($driver, $ssb) = $run =~ /^(\w+)(, server-side binding)?$/;
	run_checks("checks.py, $run",
		{ %{ $driver_env{$driver} }, CHECK_DRIVER => $driver, CHECK_DJANGO => $want_django,
			CHECK_PREFIX => $pkg->{venv}, CHECK_TMP => $tmp, ($ssb ? (CHECK_SERVER_SIDE_BINDING => 1) : ()) },
		'python', "$tests/checks.py");
}

# ---------------------------------------------------------------------------
# 3. 2 x 1,000 `hit.views += 1; hit.save()`, at once.  Each process reads
#    the row, says "ready", and starts on a line of its stdin, sent once both
#    are ready.  Returns the [start, end] times of their saves.
sub race
{
	my ($slug, @procs) = @_;    # each: [label, \%env]
	my @runs;
	foreach my $p (@procs)
	{
		my ($label, $env) = @$p;
		my ($out, $err) = ('', '');
		my $go = Symbol::gensym();
		local %ENV = (%ENV, PATH => "$venv_bin:$ENV{PATH}", %$env);
		my $h = IPC::Run::start([ 'python', "$tests/increment.py", $slug, 1000 ],
			'<pipe', $go, '>', \$out, '2>', \$err, init => sub { chdir $project or die $! });
		push @runs, { label => $label, h => $h, go => $go, out => \$out, err => \$err };
	}
	foreach my $r (@runs)
	{
		$r->{h}->pump until ${ $r->{out} } =~ /^ready/m || !$r->{h}->pumpable;
	}
	foreach my $r (@runs)
	{
		syswrite($r->{go}, "go\n");
		close($r->{go});
	}
	my @spans;
	foreach my $r (@runs)
	{
		$r->{h}->finish;
		my ($s, $e) = ${ $r->{out} } =~ /^done (\S+) (\S+)$/m;
		ok($r->{h}->result(0) == 0 && defined $s, "$r->{label}: 1,000 saves done (" . ((${ $r->{out} } =~ /^ready (\S+)/m)[0] // '?') . ')')
		  or diag(${ $r->{out} } . ${ $r->{err} });
		push @spans, [ $s // 0, $e // 0 ];
	}
	ok($spans[0][0] < $spans[1][1] && $spans[1][0] < $spans[0][1],
		"$slug: the two processes saved at the same time")
	  or diag(sprintf("first and last saves: %.3f to %.3f, %.3f to %.3f", map { @$_ } @spans));
	return;
}

my @procs = map { [ "process " . ($_ + 1), $driver_env{ $drivers[ $_ % @drivers ] } ] } (0, 1);
$a->safe_psql('mysite', q{INSERT INTO hits_hit VALUES ('home', '{}')});
race('home', @procs);
is($a->safe_psql('mysite', q{SELECT views::bigint, counter_crdt_writers(views) FROM hits_hit WHERE slug = 'home'}),
	'2000|1', 'one server: exactly 2,000, in its one shard');

# The pair: b as a, the table made by the same migrations; each publishes
# hits_hit and subscribes to the other.
$b->safe_psql('postgres', recipe('django/database'));
($rc, $out, $err) = run_in($project, \%on_b, 'python', 'manage.py', 'migrate', 'hits');
is($rc, 0, 'migrate hits on b') or diag("$out$err");
foreach my $n ($a, $b)
{
	$n->safe_psql('mysite', q{CREATE PUBLICATION hits_pub FOR TABLE hits_hit WITH (publish = 'insert, update, delete')});
}
foreach my $pair ([ $a, $b, 'a_from_b' ], [ $b, $a, 'b_from_a' ])
{
	my ($sub, $pub, $name) = @$pair;
	$sub->safe_psql('mysite', "CREATE SUBSCRIPTION hits_$name CONNECTION '" . $pub->connstr
		  . " dbname=mysite' PUBLICATION hits_pub WITH (copy_data = false)");
}
foreach my $n ($a, $b)
{
	$n->poll_query_until('mysite', q{SELECT count(*) = 1 FROM pg_stat_subscription WHERE pid IS NOT NULL})
	  or die 'the apply worker did not start on ' . $n->name;
	$n->poll_query_until('mysite', q{SELECT count(*) = 1 FROM pg_replication_slots WHERE active})
	  or die 'the walsender did not start on ' . $n->name;
}
my $mesh = CounterCrdtMesh->new(nodes => [ $a, $b ], db => 'mysite',
	table => { table => 'hits_hit', key => 'slug', counter => 'views', text_keys => 1 });
$a->safe_psql('mysite', q{INSERT INTO hits_hit VALUES ('pair', '{}')});
$mesh->catch_up;
is($b->safe_psql('mysite', q{SELECT views::text FROM hits_hit WHERE slug = 'pair'}), '{}', 'the row made on a is on b');

race('pair', [ 'process 1, on a', $procs[0][1] ], [ 'process 2, on b', { %{ $procs[1][1] }, %on_b } ]);
$mesh->catch_up for (1, 2);
my $q = q{SELECT views::bigint || ' ' || counter_crdt_writers(views) || ' ' || views::text FROM hits_hit WHERE slug = 'pair'};
my ($on_a, $on_b) = map { $_->safe_psql('mysite', $q) } ($a, $b);
like($on_a, qr/^2000 2 /, 'replicated pair: exactly 2,000 on a, from two writers');
is($on_b, $on_a, 'replicated pair: the same state on b');

$a->stop;
$b->stop;
done_testing();
