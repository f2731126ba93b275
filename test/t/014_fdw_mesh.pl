# A shard of doc/scaling-out.md moved onto a replicated mesh: the
# README's blocks "scaling-out/mesh-member" and "scaling-out/mesh-switch",
# run as written, on two shard servers and two coordinators
# (test/t/FdwShards.pm) and a mesh of three servers a, b and c set up by the
# Replication recipe (test/t/ReadmeMesh.pm).
#
#   1. 8 clients increment through both coordinators (single increments and
#      exactly-once cross-shard batches, as in 013_fdw.pl): every shard exact.
#   2. The mesh is set up, each member gets the pg_hba.conf line and the
#      role of the recipe; s2's rows are copied into a; both coordinators
#      point s2's foreign server at a.
#   3. The clients go on through both coordinators: the writes reach a (the
#      old s2 is left as it was), the mesh converges (a, b and c hold the
#      same states), and every shard of every counter on a and s1 holds
#      exactly what its writer counted.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;
use ReadmeMesh;
use FdwShards;

my $SEED = $ENV{FDW_SEED} // 1415;
srand($SEED);
note("seed $SEED");

fdw_setup($SEED);

# ------------------------------------------------------------ 1
my @cl = map { start_client(id => $_, phase => 1, ops => 15, first_batch => 0) } 1 .. $CLIENTS;
finish_clients('before the move', @cl);
report_retries('before the move');
check_model('before the move');

# ------------------------------------------------------------ 2
my %mesh_node = readme_mesh();
foreach my $m (values %mesh_node)
{
	hba_first($m);
	$m->reload;
	readme_run_subst($m, 'app', 'scaling-out/mesh-member');
}
my $mesh = readme_counters(values %mesh_node);
my $rows = $shard{s2}->safe_psql('app', 'COPY page_views TO STDOUT');
my ($rc, $copy_out, $copy_err) = $mesh_node{a}->psql('app',
	"COPY page_views FROM STDIN;\n$rows\n\\.\n");
is($rc, 0, "s2's rows copied into a") or diag($copy_err);
my $a_hosts = {
	"host 'a'" => "host '" . $mesh_node{a}->host . "'",
	"port '5432'" => "port '" . $mesh_node{a}->port . "'"
};
readme_run_subst($coord{$_}, 'app', 'scaling-out/mesh-switch', $a_hosts) foreach qw(c1 c2);
my $old_s2 = $shard{s2};
my $dq = $mesh->digest_query;
my $old_state = $old_s2->safe_psql('app', $dq);
$shard{s2} = $mesh_node{a};

# ------------------------------------------------------------ 3
@cl = map {
	start_client(id => $_, phase => 2, ops => 15, first_batch => $last_batch{$_})
} 1 .. $CLIENTS;
finish_clients('on the mesh', @cl);
report_retries('on the mesh');
is($old_s2->safe_psql('app', $dq), $old_state, 'the old s2 took no writes after the switch');
ok($mesh->wait_converged('on the mesh'), 'the mesh converges: a, b and c hold the same states');
check_model('on the mesh, read on s1 and a');
$shard{s2} = $old_s2;

$_->stop foreach (values %coord, values %shard, values %mesh_node);
done_testing();
