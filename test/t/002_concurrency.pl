# Concurrent increments on one server: 16 psql clients hammer a few hot rows
# with UPDATEs (c + d, c - d) and upserts (INSERT ... ON CONFLICT DO UPDATE),
# some of them on keys that do not exist yet, so that upserts race to create
# them.  Every statement must succeed (no deadlock, no error), every value
# must be the sum of the acknowledged deltas, and every row must hold exactly
# the shards of the writer ids in use, with clocks that count the
# acknowledged increments (+0 included).
#
# Three rounds: the default writer id; then an id pinned with ALTER SYSTEM
# SET counter_crdt.node_id on a fresh table; then a second id on the same
# table, after which every row has two shards.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use Time::HiRes qw(time);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;

my $NCLIENTS = 16;
my $NSTMT = 1000;                # statements per client and round
my @HOT = (1 .. 5);              # rows that exist when a round starts
my @NEW = (6 .. 8);              # keys that only upserts create
my @ALLKEYS = (@HOT, @NEW);

srand(20240602);

my $t_start = time();

my $node = PostgreSQL::Test::Cluster->new('conc');
$node->init;
$node->append_conf('postgresql.conf', qq(
max_connections = 40
autovacuum = off
log_lock_waits = on
deadlock_timeout = 100ms
));
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION counter_crdt');

my $ID1 = $node->safe_psql('postgres', q{SELECT counter_crdt_rack_id('dc1', 'rack1')});
my $ID2 = $node->safe_psql('postgres', q{SELECT counter_crdt_rack_id('dc2', 'rack7')});
is($ID1, '7f0cab51-fb72-3e98-bdb4-0404a982865d', 'rack id of dc1:rack1');

# (Re)create the table: the hot rows exist with '{}', a counter that counts 0
# and has no shard yet, so that the clocks count exactly this test's
# increments.
sub create_table
{
	$node->safe_psql('postgres', q{
		DROP TABLE IF EXISTS t;
		CREATE TABLE t (k int PRIMARY KEY, c counter_crdt);
	} . 'INSERT INTO t SELECT k, \'{}\' FROM unnest(ARRAY[' . join(',', @HOT) . ']) k;');
}

# Script of $n statements for one client; meta per statement:
# [ expected tag if it increments, key, delta ].
sub make_script
{
	my ($n, $c) = @_;
	my (@stmts, @meta);
	for my $i (1 .. $n)
	{
		my $k = $ALLKEYS[ int(rand(@ALLKEYS)) ];
		my $d = int(rand(41)) - 20;          # -20 .. 20, 0 included
		my $r = rand();
		# Every client starts with upserts of the keys that do not exist
		# yet: these race to create them.
		if ($i <= @NEW)
		{
			$k = $NEW[ ($c + $i) % @NEW ];
			$r = 0;
		}
		my $kind = $r < 0.4 ? 'upsert' : $r < 0.7 ? 'plus' : 'minus';
		my ($sql, $tag) = increment_statement($kind, $k, $d);
		push @stmts, $sql;
		push @meta, [ $tag, $k, $d ];
	}
	return (join("\n", @stmts) . "\n", \@meta);
}

my $seq = 0;

# Run one round of the workload; returns (ok, \%sum, \%count) of the
# acknowledged increments per key.
sub run_round
{
	my ($label) = @_;
	my @runs;
	for my $c (1 .. $NCLIENTS)
	{
		my ($sql, $meta) = make_script($NSTMT, $c);
		my $file = $node->basedir . '/conc_' . $seq++ . '.sql';
		my ($h, $out, $err) = start_script($node, $file, $sql);
		push @runs, [ $h, $out, $err, $meta, $c ];
	}
	my (%sum, %cnt);
	my $ok = 1;
	foreach my $r (@runs)
	{
		my ($h, $out, $err, $meta, $c) = @$r;
		$h->finish;
		my $rc = $h->result(0);
		my @tags = grep { /^(INSERT|UPDATE) / } split /\n/, $$out;
		if ($rc != 0 || @tags != @$meta || $$err ne '')
		{
			diag("$label: client $c: rc=$rc, " . scalar(@tags) . " of "
				  . scalar(@$meta) . " statements completed; stderr: $$err");
			$ok = 0;
		}
		for my $i (0 .. ($#tags < $#$meta ? $#tags : $#$meta))
		{
			my ($tag, $k, $d) = @{ $meta->[$i] };
			if ($tags[$i] eq $tag)
			{
				$sum{$k} += $d;
				$cnt{$k}++;
			}
			elsif (!($tag eq 'UPDATE 1' && $tags[$i] eq 'UPDATE 0'
					&& grep { $_ == $k } @NEW))
			{
				# An UPDATE may find nothing only on a key not created yet.
				diag("$label: client $c statement $i on key $k: tag $tags[$i], expected $tag");
				$ok = 0;
			}
		}
	}
	return ($ok, \%sum, \%cnt);
}

# Shards of every row: { k => [ [id, clock, value], ... ] }
sub shards
{
	my %s;
	foreach my $line (split /\n/,
		$node->safe_psql('postgres',
			q{SELECT k, s.id, s.clock, s.value FROM t, counter_crdt_shards(c) s ORDER BY k, s.id}))
	{
		my ($k, $id, $clock, $value) = split /\|/, $line;
		push @{ $s{$k} }, [ $id, $clock, $value ];
	}
	return \%s;
}

sub values_
{
	return { map { split /\|/ } split /\n/,
		  $node->safe_psql('postgres', 'SELECT k, c::bigint FROM t ORDER BY k') };
}

# The server log since $offset holds no error and no deadlock.
sub check_log
{
	my ($label, $offset) = @_;
	my $log = slurp_file($node->logfile, $offset);
	my @bad = grep { /ERROR:|FATAL:|PANIC:|deadlock|terminated by signal/i } split /\n/, $log;
	ok(!@bad, "$label: no error or deadlock in the server log")
	  or diag(join("\n", @bad[ 0 .. ($#bad < 19 ? $#bad : 19) ]));
}

# Checks after a round.  %$want_shards: k => { id => clock }.
sub check_round
{
	my ($label, $sum, $cnt, $want_shards) = @_;

	my $vals = values_();
	my @bad;
	foreach my $k (@ALLKEYS)
	{
		my $want = $sum->{$k};
		$want = 0 if !defined($want) && grep { $_ == $k } @HOT;
		my $have = $vals->{$k};
		push @bad, "k=$k want=" . ($want // 'absent') . ' have=' . ($have // 'absent')
		  if (defined($want) xor defined($have))
		  || (defined($want) && $want != $have);
	}
	ok(!@bad, "$label: every value is the sum of the acknowledged deltas")
	  or diag(join("\n", @bad));

	my $sh = shards();
	my @bads;
	foreach my $k (@ALLKEYS)
	{
		my $want = $want_shards->{$k} // {};
		my $have = { map { $_->[0] => $_->[1] } @{ $sh->{$k} // [] } };
		my $w = join(',', map { "$_:$want->{$_}" } sort keys %$want);
		my $h = join(',', map { "$_:$have->{$_}" } sort keys %$have);
		push @bads, "k=$k want shards {$w} have {$h}" if $w ne $h;
	}
	ok(!@bads, "$label: shards and clocks count the acknowledged increments")
	  or diag(join("\n", @bads));
}

# ---------------------------------------------------------------------
# Round 1: the default writer id.
create_table();
my $default_id = $node->safe_psql('postgres', 'SELECT counter_crdt_node_id()');
like($default_id, qr/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
	"default node id is a uuid ($default_id)");

my $log_off = -s $node->logfile;
my $t0 = time();
my ($ok, $sum, $cnt) = run_round('default id');
note(sprintf('round 1: %d statements in %.1fs', $NCLIENTS * $NSTMT, time() - $t0));
ok($ok, 'default id: every statement succeeded');
check_round('default id', $sum, $cnt,
	{ map { $_ => { $default_id => $cnt->{$_} } } grep { $cnt->{$_} } @ALLKEYS });
# Keys that never got an acknowledged upsert do not exist.
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'),
	scalar(@HOT) + scalar(grep { $cnt->{$_} } @NEW), 'default id: exactly the created rows exist');
check_log('default id', $log_off);

# ---------------------------------------------------------------------
# Round 2: a pinned id, on a fresh table.
sub pin_id
{
	my ($id) = @_;
	# Before PostgreSQL 17, ALTER SYSTEM knows a custom setting only once the
	# library that defines it is loaded in the session.
	$node->safe_psql('postgres', qq{
		LOAD 'counter_crdt';
		ALTER SYSTEM SET counter_crdt.node_id = '$id';
		SELECT pg_reload_conf();
	});
	ok($node->poll_query_until('postgres',
			"SELECT counter_crdt_node_id() = '$id'::uuid"),
		"node id pinned to $id");
	is($node->safe_psql('postgres', 'SHOW counter_crdt.node_id'), $id,
		'SHOW counter_crdt.node_id in a new session');
}

create_table();
pin_id($ID1);
$log_off = -s $node->logfile;
$t0 = time();
my ($ok2, $sum2, $cnt2) = run_round('pinned id');
note(sprintf('round 2: %.1fs', time() - $t0));
ok($ok2, 'pinned id: every statement succeeded');
check_round('pinned id', $sum2, $cnt2,
	{ map { $_ => { $ID1 => $cnt2->{$_} } } grep { $cnt2->{$_} } @ALLKEYS });
check_log('pinned id', $log_off);

# ---------------------------------------------------------------------
# Round 3: another id on the same table: two shards per row.
pin_id($ID2);
$log_off = -s $node->logfile;
$t0 = time();
my ($ok3, $sum3, $cnt3) = run_round('second id');
note(sprintf('round 3: %.1fs', time() - $t0));
ok($ok3, 'second id: every statement succeeded');
my (%sum23, %shards23);
foreach my $k (@ALLKEYS)
{
	$sum23{$k} = ($sum2->{$k} // 0) + ($sum3->{$k} // 0)
	  if defined($sum2->{$k}) || defined($sum3->{$k});
	$shards23{$k}{$ID1} = $cnt2->{$k} if $cnt2->{$k};
	$shards23{$k}{$ID2} = $cnt3->{$k} if $cnt3->{$k};
}
check_round('second id', \%sum23, undef, \%shards23);
{
	# Stated as the brief states it: two shards, clocks adding up to the
	# acknowledged increments of both rounds.
	my $sh = shards();
	my @bad;
	foreach my $k (@HOT)
	{
		my @s = @{ $sh->{$k} // [] };
		my $clocks = 0;
		$clocks += $_->[1] foreach @s;
		my $acked = ($cnt2->{$k} // 0) + ($cnt3->{$k} // 0);
		push @bad, "k=$k: " . scalar(@s) . " shards, clocks $clocks, acknowledged $acked"
		  if @s != 2 || $clocks != $acked;
	}
	ok(!@bad, 'second id: hot rows have two shards whose clocks add up to the acknowledged increments')
	  or diag(join("\n", @bad));
}
check_log('second id', $log_off);

# Back to the default id: RESET and reload.
$node->safe_psql('postgres', q{
	LOAD 'counter_crdt';
	ALTER SYSTEM RESET counter_crdt.node_id;
	SELECT pg_reload_conf();
});
ok($node->poll_query_until('postgres',
		"SELECT counter_crdt_node_id() = '$default_id'::uuid"),
	'ALTER SYSTEM RESET brings the default id back');

$node->stop('fast');
note(sprintf('total runtime %.1fs', time() - $t_start));
done_testing();
