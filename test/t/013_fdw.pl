# Scaling out with postgres_fdw: the recipes of doc/scaling-out.md, run as
# written, on two shard servers (s1, s2) and two coordinators (c1, c2, each
# with its own writer id).
#
# (test/t/FdwShards.pm has the servers, the clients and the model;
# test/t/014_fdw_mesh.pl the move of a shard onto a replicated mesh.)
#
#   recipes   the shards and coordinators are set up by the recipe blocks
#             (only hosts and ports substituted); the coordinators log in on
#             the shards as the user mapping's role, with scram-sha-256; the
#             README's plan excerpts are those of EXPLAIN here, line by line.
#   A         8 concurrent clients, 4 on each coordinator, on hot and cold
#             keys of both shards: single increments with `views + n` and
#             with the shipped counter_crdt_increment(views, n, (SELECT
#             counter_crdt_node_id())), retried on 40001/40P01 only, and
#             exactly-once cross-shard batches (each client its own writer
#             id, batch numbers as clocks), retried after any error.
#   B         a batch made to fail at commit: a deferred constraint trigger
#             on each shard raises once, at the first commit it sees; the
#             first attempt is applied nowhere, the second on the shard that
#             commits first only, the third everywhere, a fourth (a replay)
#             changes nothing.  The same staged failure with `views + n`
#             retried counts twice on one shard, as the README warns.
#   C         shard s1 is stopped (immediate) and started again while the 8
#             clients send exactly-once batches over both shards and retry
#             every failed one, also those whose outcome the restart hid: one
#             batch is held in its commit on s1 (a deferred trigger sleeps)
#             when s1 goes down, so that at least one outcome is hidden.
#
# After A and C every shard of every counter, read on the shard servers,
# holds exactly what its writer counted: the coordinators' ids the single
# increments made through them (value and clock, one clock step each), each
# client's id the sum of its batches (clock: its last batch on that key);
# every row lives on the shard its coordinator routes it to; both
# coordinators read the exact totals.  Retries are counted and reported.
use strict;
use warnings;

use PostgreSQL::Test::Utils;
BEGIN { $PostgreSQL::Test::Utils::use_unix_sockets = 0; }
use PostgreSQL::Test::Cluster;
use Test::More;
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;
use FdwShards;

my $SEED = $ENV{FDW_SEED} // 1315;
srand($SEED);
note("seed $SEED");

my $OPS = 30;    # operations per client in A
my $DIR = PostgreSQL::Test::Utils::tempdir();

fdw_setup($SEED);

# ------------------------------------------------------------ the README's blocks
readme_run_subst($coord{c1}, 'app', 'scaling-out/increment');
model_single('c1', '/home', 1);
readme_run_subst($coord{c1}, 'app', 'scaling-out/increment-shipped');
model_single('c1', '/home', 1);
$created{'/home'} = 1;
# The batch: once on c1, then again on c2 (a replay: nothing changes).
my $README_WRITER = 'f3e2d0a4-2b6c-4f9e-9a51-0c6d3f1e7b20';
foreach my $c (qw(c1 c2))
{
	my $out = $coord{$c}->safe_psql('app',
		recipe('scaling-out/batch-session') . recipe('scaling-out/batch'));
	is($out, '', "recipe scaling-out/batch runs on $c");
}
my %readme_batch = ('/home' => 3, '/pricing' => 1, '/docs' => 2);
model_batch($README_WRITER, 42, $_, $readme_batch{$_}) foreach sort keys %readme_batch;
$created{$_} = 1 foreach keys %readme_batch;
foreach my $s (qw(s1 s2))
{
	like(slurp_file($shard{$s}->logfile),
		qr/connection authenticated: identity="app" method=scram-sha-256/,
		"$s: the coordinators authenticate as the user mapping's role, with scram-sha-256");
}
check_model('README blocks');

# The plan excerpts of the README: each commented line of the block is a
# line of the real plan, in order.  The README shows PostgreSQL 15's plans;
# since 17 EXPLAIN no longer names an InitPlan's output parameter
# ("InitPlan 1 (returns $0)" is "InitPlan 1"): that part is left out of both.
# Since 19 an InitPlan is named "InitPlan expr_1", its output
# "(InitPlan expr_1).col1".
my $pgnum = $coord{c2}->safe_psql('app', 'SHOW server_version_num');
my $pg17 = $pgnum >= 170000;
my $pg19 = $pgnum >= 190000;
foreach my $plan (qw(plan-plus plan-explicit plan-grouped plan-total))
{
	my $block = recipe("scaling-out/$plan");
	my @want = map { s/^-- //r } grep { /^-- / } split /\n/, $block;
	my @have = split /\n/, $coord{c2}->safe_psql('app', $block);
	s/\s+$// foreach @have;
	if ($pg17)
	{
		s/^(\s*InitPlan \d+) \(returns \$\d+\)$/$1/ foreach @want;
		# and refers to its output as "(InitPlan 1).col1", not "$0"
		s/\$0\)/(InitPlan 1).col1)/ foreach @want;
	}
	if ($pg19)
	{
		s/^(\s*InitPlan) (\d+)$/$1 expr_$2/ foreach @want;
		s/\(InitPlan (\d+)\)\.col1/(InitPlan expr_$1).col1/g foreach @want;
	}
	my $i = 0;
	foreach my $line (@have)
	{
		$i++ if $i < @want && $line eq $want[$i];
	}
	ok(@want > 2 && $i == @want, "the README's excerpt of $plan is the plan on c2")
	  or diag("plan:\n" . join("\n", map { "-- $_" } @have));
}
# counter_crdt_increment is STABLE since 1.6 (it reads the list of retired
# writers): never sent to the shard, computed on the coordinator on the
# locked row.
my $explicit_plan = $coord{c1}->safe_psql('app', recipe('scaling-out/plan-explicit'));
like($explicit_plan,
	qr/Output: counter_crdt_increment\(page_views_\d+\.views, '1'::bigint, (?:\$0|\(InitPlan (?:expr_)?1\)\.col1)\).*\n\s+Remote SQL: SELECT page, views, ctid FROM public\.page_views WHERE \(\(page = '\/home'\)\) FOR UPDATE/,
	'the explicit-writer increment is computed on the coordinator, on the locked row');
unlike($explicit_plan, qr/Remote SQL: UPDATE [^\n]*counter_crdt_increment/,
	'the explicit-writer increment is not sent to the shard');
my $grouped_plan = $coord{c1}->safe_psql('app', recipe('scaling-out/plan-grouped'));
is(scalar(() = $grouped_plan =~
		  /Remote SQL: SELECT page, public\.counter_crdt_merge_agg\(views\) FROM public\.page_views GROUP BY 1/g),
	2, 'the grouped merge runs whole on both shards');

# ------------------------------------------------------------ A
my @cl = map { start_client(id => $_, phase => 1, ops => $OPS, first_batch => 0) } 1 .. $CLIENTS;
finish_clients('A', @cl);
my $nA = report_retries('A');
my %kinds;
foreach my $cl (@cl)
{
	$kinds{$_}++ foreach (slurp_file($cl->{file}) =~ /^ok (\w+)/mg);
}
diag('A: acknowledged ' . join(', ', map { "$kinds{$_} $_" } sort keys %kinds));
ok($kinds{plus} && $kinds{shipped} && $kinds{batch}, 'A: every path was taken');
cmp_ok($nA, '>', 0, 'A: concurrent updates of hot keys failed with 40001 and were retried');
check_model('A');

# The totals of the README's queries: the grouped merge through c2 is the
# merge of the shards' rows; the per-shard total is the grand total.
my $direct = join("\n", sort map {
	split /\n/, $shard{$_}->safe_psql('app', q{SELECT page || '=' || views::text FROM page_views})
} qw(s1 s2));
my $grouped = join("\n", sort split /\n/, $coord{c2}->safe_psql('app',
	q{SET enable_partitionwise_aggregate = on;
	  SELECT page || '=' || counter_crdt_merge_agg(views)::text FROM page_views GROUP BY page}));
is($grouped, $direct, 'A: the grouped merge through a coordinator is the shards\' states');
my $grand = 0;
$grand += $_->[1] foreach values %model;
is($coord{c1}->safe_psql('app', recipe('scaling-out/total-per-shard')), $grand,
	'A: the per-shard total is the sum of every increment acknowledged');

# ------------------------------------------------------------ B
# A deferred constraint trigger on each shard raises once, at the first
# commit that updated a row there (the sequence is not transactional).
foreach my $s (qw(s1 s2))
{
	$shard{$s}->safe_psql('app', q{
CREATE SEQUENCE public.fail_once;
GRANT USAGE ON SEQUENCE public.fail_once TO app;
CREATE FUNCTION public.fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF nextval('public.fail_once') = 1 THEN
    RAISE EXCEPTION 'staged failure at commit';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER fail_once AFTER UPDATE ON page_views
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.fail_once();
});
}
sub arm { $shard{$_}->safe_psql('app', q{SELECT setval('public.fail_once', 1, false)}) foreach qw(s1 s2); }

my @bkeys = ($hot{s1}[0], $cold{s1}[0], $hot{s2}[0], $cold{s2}[0]);
my %binc = map { ($bkeys[$_] => 10 + $_) } 0 .. $#bkeys;
my $bwriter = $coord{c1}->safe_psql('app', "SELECT counter_crdt_rack_id('fdw-test', 'staged')");
my $s = session_open($coord{c1});
session_run($s, $SESSION);
session_run($s, 'EXECUTE create_rows(' . sql_text_array(@bkeys) . ');');
$created{$_} = 1 foreach @bkeys;
my $count = 'EXECUTE count_batch(' . sql_text_array(@bkeys) . ', '
  . sql_text_array(map { $binc{$_} } @bkeys) . ", '$bwriter', 1);";

# Which of the batch's keys hold a shard of $bwriter, per shard server.
sub applied_on
{
	my $in = join(',', map { "'$_'" } @bkeys);
	return join(' ', map {
		my $s = $_;
		"$s:" . $shard{$s}->safe_psql('app',
			"SELECT count(*) FROM page_views, counter_crdt_shards(views) s WHERE page IN ($in) AND s.id = '$bwriter'")
	} qw(s1 s2));
}

arm();
my ($st, $out, $err) = session_run($s, $count);
is($st, 'P0001', 'B: the first attempt fails');
like($err, qr/staged failure at commit.*remote SQL command: COMMIT TRANSACTION/s,
	'B: it fails at commit, in the first shard\'s COMMIT');
is(applied_on(), 's1:0 s2:0', 'B: the first attempt was applied nowhere');
($st, $out, $err) = session_run($s, $count);
like($err, qr/staged failure at commit.*remote SQL command: COMMIT TRANSACTION/s,
	'B: the retry fails at commit too, in the second shard\'s COMMIT');
my $partly = applied_on();
ok($partly eq 's1:2 s2:0' || $partly eq 's1:0 s2:2',
	"B: the retry was applied on the shard that committed first only ($partly)");
($st, $out, $err) = session_run($s, $count);
is($st, undef, 'B: the third attempt succeeds') or diag($err);
like($out, qr/^UPDATE 4$/m, 'B: it updates the four rows');
is(applied_on(), 's1:2 s2:2', 'B: the batch has counted everywhere');
model_batch($bwriter, 1, $_, $binc{$_}) foreach @bkeys;
my $digest_q = q{SELECT string_agg(page || counter_crdt_digest(views)::text, ',' ORDER BY page) FROM page_views};
my $before = $coord{c2}->safe_psql('app', $digest_q);
($st, $out, $err) = session_run($s, $count);
is($st, undef, 'B: a replay of the batch that counted everywhere succeeds');
is($coord{c2}->safe_psql('app', $digest_q), $before, 'B: and changes nothing');

# The README's rules for batches, against what they guard against: a key
# twice in one batch counts its first increment only; a batch with a lower
# number than one counted on a key is skipped there.
my $rwriter = $coord{c1}->safe_psql('app', "SELECT counter_crdt_rack_id('fdw-test', 'rules')");
my $rk = $cold{s2}[1];
session_run($s, "EXECUTE create_rows('{$rk}');");
$created{$rk} = 1;
($st, $out) = session_run($s, "EXECUTE count_batch('{$rk,$rk}', '{5,7}', '$rwriter', 3);");
like($out, qr/^UPDATE 1$/m, 'B: a batch with one key twice updates one row');
model_batch($rwriter, 3, $rk, 5);
($st, $out) = session_run($s, "EXECUTE count_batch('{$rk}', '{11}', '$rwriter', 2);");
is($st, undef, 'B: a batch with a lower number than the last one on a key succeeds');
is($coord{c1}->safe_psql('app',
		"SELECT s.clock || ':' || s.value FROM page_views, counter_crdt_shards(views) s WHERE page = '$rk' AND s.id = '$rwriter'"),
	'3:5', 'B: only the first increment of the key given twice counted, and the lower batch not at all');

# The same staged failure with views + n, retried as a client would that
# took the error for a failed statement: one shard counts twice.
my $plus_sql = 'UPDATE page_views SET views = views + 1 WHERE page = ANY ('
  . sql_text_array($bkeys[0], $bkeys[2]) . ');';
my $sum_q = "SELECT sum(views::bigint) FROM page_views WHERE page IN ('$bkeys[0]', '$bkeys[2]')";
my $sum0 = $coord{c1}->safe_psql('app', $sum_q);
arm();
my $tries = 0;
for (1 .. 5)
{
	$tries++;
	($st) = session_run($s, $plus_sql);
	last unless $st;
}
is($tries, 3, 'B: views + 1 on two shards succeeds on the third attempt');
is($coord{c1}->safe_psql('app', $sum_q) - $sum0, 3,
	'B: retried after a failure at commit, views + 1 on two keys counted 3, one of them twice');
session_close($s);
# Put the model right: the coordinator's shard of the key that counted twice.
foreach my $k ($bkeys[0], $bkeys[2])
{
	my ($clock, $value) = split /\|/, $coord{c1}->safe_psql('app',
		"SELECT s.clock, s.value FROM page_views, counter_crdt_shards(views) s WHERE page = '$k' AND s.id = '$coord_id{c1}'");
	my $m = $model{"$k|$coord_id{c1}"} //= [ 0, 0 ];
	ok($clock - $m->[0] == $value - $m->[1] && ($clock - $m->[0] == 1 || $clock - $m->[0] == 2),
		"B: $k counted once or twice under c1's id");
	$m->[0] = $clock;
	$m->[1] = $value;
}
$shard{$_}->safe_psql('app', 'DROP TRIGGER fail_once ON page_views') foreach qw(s1 s2);

# ------------------------------------------------------------ C
my $stop = "$DIR/stop_clients";
# So that the restart surely hides the outcome of one batch: a deferred
# trigger on s1, armed below, makes one commit there wait (it sleeps), and
# s1 goes down while it waits.  Created and dropped while no client runs:
# DDL on a shard's table queues behind the coordinators' transactions, and
# they behind it, a wait across servers that no server sees as a deadlock.
# Arming records the postmaster's start time, so the trigger never sleeps
# once s1 has restarted: the sequence alone would not do, as the WAL of the
# nextval() that started the sleep may not reach disk before the crash,
# and the first commit after the restart would then sleep again.
$shard{s1}->safe_psql('app', q{
CREATE SEQUENCE public.hold_once;
SELECT setval('public.hold_once', 1000);
GRANT USAGE ON SEQUENCE public.hold_once TO app;
CREATE TABLE public.hold_armed (started timestamptz);
GRANT SELECT ON public.hold_armed TO app;
CREATE FUNCTION public.hold_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT FROM public.hold_armed WHERE started = pg_postmaster_start_time())
     AND nextval('public.hold_once') = 1 THEN
    PERFORM pg_sleep(600);
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER hold_once AFTER UPDATE ON page_views
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.hold_once();
});
@cl = map {
	start_client(id => $_, phase => 3, only_batches => 1, stop => $stop,
		first_batch => $last_batch{$_})
} 1 .. $CLIENTS;
# Every client has counted a few batches; then s1 goes down hard and comes
# back, while they go on.
sub wait_batches
{
	my ($want, $what) = @_;
	foreach my $cl (@cl)
	{
		my $n;
		for (1 .. 3000)
		{
			$n = ok_batches($cl);
			last if $n >= $want->{ $cl->{id} };
			usleep(20_000);
		}
		die "client $cl->{id}: $n batches, not $want->{ $cl->{id} } ($what)"
		  if $n < $want->{ $cl->{id} };
	}
	return;
}
wait_batches({ map { ($_ => 3) } 1 .. $CLIENTS }, 'before the restart');
# Armed: the next commit on s1 that updated a row waits there.
$shard{s1}->safe_psql('app', q{
INSERT INTO public.hold_armed SELECT pg_postmaster_start_time();
SELECT setval('public.hold_once', 1, false);
});
ok($shard{s1}->poll_query_until('app',
		q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'}),
	'C: a batch waits in its commit on s1');
$shard{s1}->stop('immediate');
$shard{s1}->start;
my %at = map { ($_->{id} => ok_batches($_)) } @cl;
wait_batches({ map { ($_ => $at{$_} + 3) } keys %at }, 'after the restart');
append_to_file($stop, "stop\n");
finish_clients('C', @cl);
$shard{s1}->safe_psql('app', 'DROP TRIGGER hold_once ON page_views');
my $nC = report_retries('C');
my $nbatches = 0;
$nbatches += () = slurp_file($_->{file}) =~ /^ok batch /mg foreach @cl;
diag("C: $nbatches batches acknowledged");
my ($at_commit, $lost) = (0, 0);
foreach my $k (keys %{ $retries{C} })
{
	$at_commit += $retries{C}{$k} if $k =~ / commit$/;
	$lost += $retries{C}{$k} if $k =~ / connection$/;
}
cmp_ok($at_commit, '>', 0,
	"C: $at_commit batches failed in a shard's COMMIT (outcome unknown to the client) and were retried");
cmp_ok($lost, '>', 0, "C: $lost attempts failed without a connection to s1 and were retried");
check_model('C, after the restart');

$_->stop foreach (values %coord, values %shard);
done_testing();
