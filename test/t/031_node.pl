# The Node.js package counter-crdt (clients/node, doc/node.md), installed as
# a user installs it: packed with npm pack and installed from the tarball
# (recipe node/install) into a scratch copy of clients/node/test-app, whose
# package-lock.json pins the drivers and ORMs (npm ci from the npm registry,
# through npm's cache in the test user's home, ~/.npm of its passwd entry,
# or COUNTER_CRDT_NPM_CACHE).
#
# 1. The package's own tests (clients/node/test, node --test): CounterState
#    against the server on random states, the drivers, each ORM, and two
#    processes x 1,000 read-add-save through pg, postgres.js, Sequelize and
#    TypeORM on one server and on a replicated pair (a and b subscribing to
#    each other, counter_crdt_enable_replica_merge, the write guard): every
#    "ok"/"not ok" line of its TAP is a check here.
# 2. Every program of doc/node.md, run as written in a fresh database
#    "shop" under the page's writer id, printing what the page shows.
#
# On this machine's PostgreSQL and in each chroot, with its own node and npm;
# a missing node or npm fails: setup installs them.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use File::Temp ();
use File::Copy ();
use FindBin;
use Time::HiRes qw(time);
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;
use CounterCrdtMesh;

my $t0 = time();
my $clients = "$FindBin::RealBin/../../clients/node";
my $doc_id = '7ddd454a-30ea-3e9a-a5d1-3d0092b783a6';
my $cache = $ENV{COUNTER_CRDT_NPM_CACHE} // ((getpwuid($<))[7] . '/.npm');

# Runs a command with extra environment (undef: unset); returns exit status,
# stdout, stderr.
sub run_cmd
{
	my ($env, $dir, @cmd) = @_;
	local %ENV = %ENV;
	foreach my $k (keys %$env)
	{
		if (defined $env->{$k}) { $ENV{$k} = $env->{$k}; }
		else { delete $ENV{$k}; }
	}
	my ($out, $err) = ('', '');
	IPC::Run::run(\@cmd, '<', \undef, '>', \$out, '2>', \$err, init => sub { chdir $dir or die "chdir $dir: $!" });
	return ($? >> 8, $out, $err);
}

my ($rc, $node_version) = run_cmd({}, '/', 'node', '--version');
ok($rc == 0, "node is installed ($node_version)") or BAIL_OUT('no node');
chomp $node_version;
my ($rc2, $npm_version) = run_cmd({}, '/', 'npm', '--version');
ok($rc2 == 0, "npm is installed ($npm_version)") or BAIL_OUT('no npm');
chomp $npm_version;
note("node $node_version, npm $npm_version, npm cache $cache");

my %npm_env = (
	npm_config_cache => $cache,
	npm_config_prefer_offline => 'true',
	npm_config_audit => 'false',
	npm_config_fund => 'false',
	npm_config_update_notifier => 'false',
	npm_config_loglevel => 'error');

# The application, as its lock file pins it.
my $tmp = File::Temp::tempdir('node_XXXX', DIR => $PostgreSQL::Test::Utils::tmp_check, CLEANUP => 1);
my $app = "$tmp/app";
mkdir $app or die;
mkdir "$tmp/pack" or die;
File::Copy::copy("$clients/test-app/$_", "$app/$_") or die "copy $_: $!" for ('package.json', 'package-lock.json');
my $t_ci = time();
my ($ci, $ci_out, $ci_err) = run_cmd(\%npm_env, $app, 'npm', 'ci');
is($ci, 0, 'npm ci installs the test application\'s locked dependencies') or diag($ci_out . $ci_err);
note(sprintf('npm ci: %.1f s', time() - $t_ci));

# The package, installed as doc/node.md says.
my $install = recipe('node/install', {
	'counter_crdt/clients/node' => $clients,
	'/tmp' => "$tmp/pack",
	'~/my-app' => $app });
my ($inst, $inst_out, $inst_err) = run_cmd(\%npm_env, $tmp, 'bash', '-e', '-c', $install);
is($inst, 0, 'doc/node.md, install: npm pack and npm install of the tarball') or diag($inst_out . $inst_err);
my $version = `cd '$clients' && node -p "require('./package.json').version"`;
chomp $version;
ok(-f "$tmp/pack/counter-crdt-$version.tgz", "the tarball is counter-crdt-$version.tgz, as the page names it");
ok(-f "$app/node_modules/counter-crdt/src/state.js" && !-l "$app/node_modules/counter-crdt",
	'counter-crdt is installed from the tarball (a copy, not a link)');
ok(!-e "$app/node_modules/counter-crdt/test", 'the tarball holds the package, not its tests');

# Servers: a and b replicate database "pair" to each other; a also holds the
# database "app" of the package's tests and the "shop" of the page.
my $a = CounterCrdtMesh::mesh_node('node_a');
my $b = CounterCrdtMesh::mesh_node('node_b');
$a->safe_psql('postgres', 'CREATE DATABASE app; CREATE DATABASE pair;');
$b->safe_psql('postgres', 'CREATE DATABASE pair;');
foreach my $n ($a, $b)
{
	$n->safe_psql('pair', q{
		CREATE EXTENSION counter_crdt;
		CREATE TABLE pages (id int PRIMARY KEY, views counter_crdt NOT NULL DEFAULT '{}');
		SELECT counter_crdt_enable_replica_merge('pages');
		SELECT counter_crdt_guard_writes('pages');
		CREATE PUBLICATION pages_pub FOR TABLE pages WITH (publish = 'insert, update, delete');
	});
}
$a->safe_psql('pair', "CREATE SUBSCRIPTION pages_a_from_b CONNECTION 'host=" . $b->host . ' port=' . $b->port
	  . " dbname=pair' PUBLICATION pages_pub WITH (copy_data = false)");
$b->safe_psql('pair', "CREATE SUBSCRIPTION pages_b_from_a CONNECTION 'host=" . $a->host . ' port=' . $a->port
	  . " dbname=pair' PUBLICATION pages_pub WITH (copy_data = false)");
$a->safe_psql('pair', 'INSERT INTO pages (id) SELECT generate_series(1, 4)');
ok($b->poll_query_until('pair', 'SELECT count(*) = 4 FROM pages'), 'the pair replicates: b has a\'s rows');

# 1. The package's tests.
mkdir "$app/test" or die;
opendir(my $dh, "$clients/test") or die;
my @tests;
my $expected = 0;    # the tests the files declare: test('...', ...) at the start of a line
foreach my $f (sort readdir $dh)
{
	next unless $f =~ /\.js$/;
	File::Copy::copy("$clients/test/$f", "$app/test/$f") or die;
	next unless $f =~ /\.test\.js$/;
	push @tests, "test/$f";
	$expected += () = slurp_file("$clients/test/$f") =~ /^test\(/mg;
}
closedir $dh;
my $t_tests = time();
my ($trc, $tout, $terr) = run_cmd({
		PGHOST => $a->host, PGPORT => $a->port, PGDATABASE => 'app',
		PAIR_A => $a->host . ' ' . $a->port, PAIR_B => $b->host . ' ' . $b->port, PAIR_DB => 'pair' },
	$app, 'node', '--test', '--test-reporter=tap', @tests);
note(sprintf('node --test: %.1f s', time() - $t_tests));
my ($n, $pass, $fail) = (0, undef, undef);
foreach my $line (split /\n/, $tout)
{
	if ($line =~ /^(\s*)(not )?ok \d+ - (.*?)(\s+#.*)?$/)
	{
		$n++;
		ok(!defined $2, 'counter-crdt: ' . ($1 ? '  ' : '') . $3);
	}
	elsif ($line =~ /^# pass (\d+)$/) { $pass = $1; }
	elsif ($line =~ /^# fail (\d+)$/) { $fail = $1; }
	elsif ($line =~ /^\s*# seed/) { note($line); }
}
ok($trc == 0 && $n == $expected && defined $pass && $pass == $expected && defined $fail && $fail == 0,
	"counter-crdt: node --test ran the $expected tests of its files and passed them ($n reported, pass "
	  . ($pass // '?') . ', fail ' . ($fail // '?') . ')')
  or diag("exit status $trc\n$tout\n$terr");
foreach my $n ($a, $b)
{
	is($n->safe_psql('pair', q{SELECT string_agg(id || ':' || views::bigint, ' ' ORDER BY id) FROM pages}),
		'1:2000 2:2000 3:2000 4:2000', $n->name . ': pg, postgres.js, Sequelize, TypeORM each counted 2,000');
}

# 2. The programs of doc/node.md.
sub fresh_shop
{
	my ($with_table) = @_;
	$a->safe_psql('postgres', "DROP DATABASE IF EXISTS shop;\nCREATE DATABASE shop;");
	$a->safe_psql('postgres', "LOAD 'counter_crdt';\nALTER DATABASE shop SET counter_crdt.node_id = '$doc_id';");
	$a->safe_psql('shop', recipe('node/table')) if $with_table;
	return;
}

foreach my $prog (qw(pg postgres knex kysely drizzle sequelize typeorm))
{
	fresh_shop($prog =~ /^(pg|postgres|drizzle)$/);
	my $file = "$app/$prog-recipe.js";
	open(my $fh, '>', $file) or die;
	print $fh recipe("node/$prog");
	close($fh);
	my ($prc, $pout, $perr) = run_cmd({ PGHOST => $a->host, PGPORT => $a->port, PGDATABASE => undef },
		$app, 'node', $file);
	is($prc, 0, "doc/node.md, $prog: runs") or diag($perr);
	is($pout, recipe("node/$prog.out"), "doc/node.md, $prog: prints what the page shows");
}
# what the programs left in the database is what they printed
fresh_shop(0);

note(sprintf('031: %.1f s in all', time() - $t0));
$a->stop;
$b->stop;
done_testing();
