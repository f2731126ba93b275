# The Ruby gem of clients/ruby (doc/ruby.md), as a user installs and uses
# it, with the Ruby, ActiveRecord and ruby-pg of the suite (Debian's):
#
# 1. The gem is built and installed by the page's recipe ruby/install, into
#    a scratch GEM_HOME; every Ruby program below loads it from there.
# 2. clients/ruby/test/state_checks.rb: CounterCrdt::State and the ruby-pg
#    coders against the server (random states, damaged ones, fold records,
#    merges; text and binary, and the compact binary form that a session
#    with counter_crdt.binary_format = 'compact' gets, bytes of version 3
#    refused with the server's details); clients/ruby/test/ar_checks.rb: the
#    ActiveRecord type, saves, increments, migrations and the server's
#    guard.  Each "ok"/"not ok" line is a check here.
# 3. The programs of doc/ruby.md, run as written in a database "shop" under
#    the writer id the page shows, each printing what the page shows.
# 4. The trap: two processes each load a page and save views += 1, 1,000
#    times, at once: exactly 2,000, one shard of clock 2,000.  Then on two
#    servers that replicate to each other, one process on each: 2,000 on
#    both, each server's shard at clock 1,000.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use File::Temp ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ClientChecks qw(relay_checks run_cmd);
use ReadmeRecipe;
use CounterCrdtMesh;

my $clients = "$FindBin::RealBin/../../clients";
my $doc_id = '7ddd454a-30ea-3e9a-a5d1-3d0092b783a6';
my $tmp = File::Temp::tempdir('ruby_XXXX', DIR => $PostgreSQL::Test::Utils::tmp_check, CLEANUP => 1);

# 1. The gem, built and installed as the page says, in a copy of the tree.
my %gem = (GEM_HOME => "$tmp/gems", HOME => $tmp);
mkdir("$tmp/tree") or die;
system('cp', '-a', $clients, "$tmp/tree/clients") == 0 or die 'cannot copy clients/';
my ($rc, $out, $err) = run_cmd(\%gem, 'sh', '-ec', "cd $tmp/tree\n" . recipe('ruby/install'));
is($rc, 0, 'doc/ruby.md, ruby/install: gem build and gem install run') or diag("$out\n$err");
($rc, $out, $err) = run_cmd(\%gem, 'ruby', '-e',
	'require "counter_crdt"; puts Gem.loaded_specs["counter_crdt"].full_gem_path');
like($out, qr{^\Q$tmp/gems/gems/counter_crdt-\E}, 'require "counter_crdt" loads the installed gem')
  or diag($err);

# 2. The checks.
my $a = CounterCrdtMesh::mesh_node('ruby_a');
my $b = CounterCrdtMesh::mesh_node('ruby_b');
my %on_a = (%gem, PGHOST => $a->host, PGPORT => $a->port, PGDATABASE => 'postgres');

sub run_checks
{
	my ($name, $env, @cmd) = @_;
	my ($rc, $out, $err) = run_cmd($env, @cmd);
	relay_checks($name, $rc, $out, $err);
	return;
}

run_checks('State and ruby-pg', \%on_a, 'ruby', "$clients/ruby/test/state_checks.rb");
$a->safe_psql('postgres', 'CREATE DATABASE ar');
run_checks('ActiveRecord', { %on_a, PGDATABASE => 'ar' }, 'ruby', "$clients/ruby/test/ar_checks.rb");

# 3. The programs of the page, in order, in a fresh "shop".
$a->safe_psql('postgres', "CREATE DATABASE shop;\nLOAD 'counter_crdt';\nALTER DATABASE shop SET counter_crdt.node_id = '$doc_id';");
foreach my $name (qw(app trap pg))
{
	my $file = "$tmp/$name.rb";
	open(my $fh, '>', $file) or die "cannot write $file: $!";
	print $fh recipe("ruby/$name");
	close($fh);
	($rc, $out, $err) = run_cmd(\%on_a, 'ruby', $file);
	is($rc, 0, "doc/ruby.md, ruby/$name: runs") or diag($err);
	is($out, recipe("ruby/$name.out"), "doc/ruby.md, ruby/$name: prints what the page shows");
}

# 4. Two application processes, each 1,000 times: load, views += 1, save!.
sub start_worker
{
	my ($node, $db) = @_;
	my %env = (%gem, PGHOST => $node->host, PGPORT => $node->port, PGDATABASE => $db);
	my ($out, $err) = ('', '');
	local %ENV = (%ENV, %env);
	my $h = IPC::Run::start([ 'ruby', "$clients/ruby/test/increment_worker.rb", 1, 1000 ],
		'<', \undef, '>', \$out, '2>', \$err);
	return [ $h, \$out, \$err ];
}

sub finish_worker
{
	my ($w, $label) = @_;
	$w->[0]->finish;
	is(${ $w->[1] }, "saved 1000\n", "$label: the process saved 1,000 times")
	  or diag(${ $w->[2] });
	return;
}

my $table = q{
	CREATE EXTENSION counter_crdt;
	CREATE TABLE pages (id bigint PRIMARY KEY, views counter_crdt DEFAULT '{}');
	SELECT counter_crdt_guard_writes('pages');
};
$a->safe_psql('postgres', 'CREATE DATABASE inc');
$a->safe_psql('inc', $table . 'INSERT INTO pages VALUES (1);');
my @w = map { start_worker($a, 'inc') } 1 .. 2;
finish_worker($_, 'one server') foreach @w;
my $id_a = $a->safe_psql('inc', 'SELECT counter_crdt_node_id()');
is($a->safe_psql('inc', q{SELECT views::bigint || ' ' || (SELECT string_agg(id || ':' || clock, ',') FROM counter_crdt_shards(views)) FROM pages}),
	"2000 $id_a:2000", 'one server, two processes x 1,000 saves of views += 1: exactly 2,000, in 2,000 increments');

# The same on two servers that replicate to each other.
foreach my $node ($a, $b)
{
	$node->safe_psql('postgres', 'CREATE DATABASE pair');
	$node->safe_psql('pair', $table . q{
		SELECT counter_crdt_enable_replica_merge('pages');
		CREATE PUBLICATION pages_pub FOR TABLE pages WITH (publish = 'insert, update, delete');
	});
}
foreach my $pair ([ $a, $b ], [ $b, $a ])
{
	my ($node, $from) = @$pair;
	$node->safe_psql('pair',
		'CREATE SUBSCRIPTION pages_from_' . $from->name . " CONNECTION '" . $from->connstr . ' dbname=pair'
		  . "' PUBLICATION pages_pub WITH (copy_data = false)");
}
my %log_at = map { ($_->name => -s $_->logfile) } ($a, $b);
my $mesh = CounterCrdtMesh->new(nodes => [ $a, $b ], db => 'pair',
	table => { table => 'pages', key => 'id', counter => 'views' });
$mesh->catch_up;
$a->safe_psql('pair', 'INSERT INTO pages VALUES (1)');
$b->poll_query_until('pair', 'SELECT count(*) = 1 FROM pages') or die 'the row did not reach b';
@w = (start_worker($a, 'pair'), start_worker($b, 'pair'));
finish_worker($w[0], 'replicated pair, on ' . $a->name);
finish_worker($w[1], 'replicated pair, on ' . $b->name);
ok($mesh->wait_converged('replicated pair'), 'replicated pair: the servers converge');
my $id_b = $b->safe_psql('pair', 'SELECT counter_crdt_node_id()');
$id_a = $a->safe_psql('pair', 'SELECT counter_crdt_node_id()');
my $want = join(',', map { "$_:1000:1000" } sort ($id_a, $id_b));
foreach my $node ($a, $b)
{
	is($node->safe_psql('pair', q{SELECT views::bigint || ' ' || (SELECT string_agg(id || ':' || clock || ':' || value, ',' ORDER BY id) FROM counter_crdt_shards(views)) FROM pages}),
		"2000 $want", 'replicated pair, 1,000 saves on each server: exactly 2,000 on ' . $node->name);
}
# no error in the servers' logs since the pair was set up (the checks
# before provoke errors of their own)
foreach my $node ($a, $b)
{
	my @err = grep { /ERROR:|FATAL:|PANIC:|terminated by signal/ }
	  split /\n/, substr(slurp_file($node->logfile), $log_at{ $node->name });
	ok(!@err, 'replicated pair: no errors in the log of ' . $node->name) or diag(join("\n", @err[0 .. ($#err < 9 ? $#err : 9)]));
}

$a->stop;
$b->stop;
done_testing();
