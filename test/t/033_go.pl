# The Go module of clients/go (doc/go.md) with the suite's Go and pgx
# (Debian's, built offline in GOPATH mode, as the page's recipe go/install
# sets it up):
#
# 1. go test of the module's packages: the decoder of the compact binary
#    form (version 3) without a server (every layout at the edges of its
#    widths, the server's messages for refused bytes); against a server,
#    pgxv4 (random texts, binary values, damaged binary values and merges
#    compared with the server's answers, NULL and tombstones, two
#    goroutines x 1,000 increments, the guard, and with
#    counter_crdt.binary_format = 'compact' values of every layout scanned
#    in binary and damaged version 3 values refused with the server's
#    messages) and, where Debian packages pgx v5 (sid), pgxv5 (the same
#    for its codec). Each test function is a check here.
# 2. The programs of doc/go.md, run as written in a database "shop" under
#    the writer id the page shows, each printing what the page shows (the
#    pgx v5 one where pgx v5 is installed).
#
# Compiled packages are cached per machine in /var/tmp/counter_crdt-gocache
# (GOCACHE), not in the tree: a cold cache compiles pgx once (a minute or
# two), later runs reuse it.
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
use ReadmeRecipe;

my $clients = "$FindBin::RealBin/../../clients";
my $doc_id = '7ddd454a-30ea-3e9a-a5d1-3d0092b783a6';
my $tmp = File::Temp::tempdir('go_XXXX', DIR => $PostgreSQL::Test::Utils::tmp_check, CLEANUP => 1);
my $gocache = '/var/tmp/counter_crdt-gocache';
File::Path::make_path($gocache);
my $v5 = -d '/usr/share/gocode/src/github.com/jackc/pgx/v5';

sub run_cmd
{
	my ($env, @cmd) = @_;
	local %ENV = (%ENV, %$env);
	delete $ENV{GOFLAGS};
	my ($out, $err) = ('', '');
	IPC::Run::run(\@cmd, '<', \undef, '>', \$out, '2>', \$err);
	return ($? >> 8, $out, $err);
}

# The page's set-up, in a copy of the tree, with $HOME in the scratch dir.
mkdir("$tmp/tree") or die;
system('cp', '-a', $clients, "$tmp/tree/clients") == 0 or die 'cannot copy clients/';
my %go = (HOME => $tmp, GO111MODULE => 'off', GOPATH => "$tmp/go:/usr/share/gocode", GOCACHE => $gocache);
my ($rc, $out, $err) = run_cmd({ HOME => $tmp }, 'sh', '-ec', "cd $tmp/tree\n" . recipe('go/install'));
is($rc, 0, 'doc/go.md, go/install: runs') or diag($err);
my $module = "$tmp/go/src/github.com/counter-crdt/counter_crdt/clients/go";
ok(-f "$module/pgxv4/register.go", 'the module is in GOPATH as the page puts it');
($rc, $out) = run_cmd(\%go, 'go', 'version');
note("$out");

my $node = PostgreSQL::Test::Cluster->new('go');
$node->init;
$node->start;
my %pg = (PGHOST => $node->host, PGPORT => $node->port, PGDATABASE => 'postgres');

# 1. go test: each test function a check.
my @pkgs = ('./pgxv4', ($v5 ? ('./pgxv5') : ()));
diag('pgx v5 is not installed here (Debian packages it in sid): its codec is tested on 18 and 19')
  unless $v5;
($rc, $out, $err) = run_cmd({ %go, %pg }, 'sh', '-c', "cd $module && go vet . @pkgs && go test -count=1 -v . @pkgs");
my $n = 0;
foreach my $line (split /\n/, $out)
{
	next unless $line =~ /^--- (PASS|FAIL): (\S+)/;
	$n++;
	ok($1 eq 'PASS', "go test: $2");
}
ok($rc == 0 && $n >= 10 + ($v5 ? 4 : 0), "go test (. @pkgs): vet clean, $n tests, all pass")
  or diag("exit status $rc\n$out\n$err");
foreach my $line (split /\n/, $out)
{
	note($line) if $line =~ /seed|texts:|damaged|refusals/;
}

# 2. The programs of the page.
$node->safe_psql('postgres', "CREATE DATABASE shop;\nLOAD 'counter_crdt';\nALTER DATABASE shop SET counter_crdt.node_id = '$doc_id';");
$node->safe_psql('shop', recipe('go/table'));
foreach my $name ('pgx', ($v5 ? ('pgx5') : ()))
{
	my $dir = "$tmp/go/src/shop_$name";
	File::Path::make_path($dir);
	open(my $fh, '>', "$dir/main.go") or die "cannot write $dir/main.go: $!";
	print $fh recipe("go/$name");
	close($fh);
	($rc, $out, $err) = run_cmd({ %go, %pg }, 'sh', '-c', "cd $dir && go run .");
	is($rc, 0, "doc/go.md, go/$name: runs") or diag($err);
	is($out, recipe("go/$name.out"), "doc/go.md, go/$name: prints what the page shows");
}

$node->stop;
done_testing();
