# Crash safety of counter_crdt increments: several clients increment ~10 keys
# (upserts and updates) while the server is killed with SIGKILL at a random
# moment, then restarted, so that it recovers from the WAL.  Five cycles:
# three kill only the postmaster (its backends notice its death and exit
# after the statement they are running), two kill the postmaster and all its
# children at the same instant, so that a statement can die between its
# commit and its acknowledgement.
#
# Acknowledgements are counted client-side: a statement counts only when
# psql printed its command tag.  Each psql client runs its statements one at
# a time, so it has at most one statement in flight when the server dies:
# the one after its last acknowledged one, which may or may not have
# committed.  Client c always adds 2^c, so the difference between a key's
# value and the sum of its acknowledged deltas identifies exactly which
# in-flight statements committed: it must be a sum of distinct 2^c over
# clients whose in-flight statement was on that key, and the writer's clock
# must have advanced by exactly the number of such statements beyond the
# acknowledged increments.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use Time::HiRes qw(time usleep);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;

my $NCLIENTS = 8;                # client c adds 2**c
my $NSTMT = 25000;               # statements per client: more than fit in 4 s
my @PRE = (1 .. 5);              # keys created before the load, as '{}'
my @NEW = (6 .. 10);             # keys created by the upserts
my @KEYS = (@PRE, @NEW);
my @MODES = qw(postmaster all postmaster all postmaster);  # what is killed, per cycle
my $CYCLES = @MODES;

my $SEED = $ENV{CRASH_SEED} // 31337;
srand($SEED);
note("seed $SEED");

my $t_start = time();

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
# Autovacuum off: no postmaster child may be forked behind our back (see
# postmaster_children).  fsync on (PostgreSQL::Test::Cluster turns it off):
# a SIGKILL does not lose what was written to the kernel either way, but
# with fsync a commit spends a while between writing its WAL record and
# acknowledging, which is where a statement can commit unacknowledged.
$node->append_conf('postgresql.conf', qq(
synchronous_commit = on
fsync = on
autovacuum = off
max_connections = 30
log_statement = none
));
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION counter_crdt');
$node->safe_psql('postgres', 'CREATE TABLE t (k int PRIMARY KEY, c counter_crdt)');
$node->safe_psql('postgres',
	"INSERT INTO t SELECT k, '{}' FROM unnest(ARRAY[" . join(',', @PRE) . ']) k');
my $node_id = $node->safe_psql('postgres', 'SELECT counter_crdt_node_id()');
note("node id $node_id");

# What is known to be in the table: per key, the sum and the count of the
# increments that committed (acknowledged ones, and in-flight ones that the
# checks below proved committed).
my (%sum, %cnt);
$sum{$_} = 0, $cnt{$_} = 0 foreach @PRE;

# Statements of client $c in cycle $cy: meta [ kind, key ].
sub make_script
{
	my ($c, $cy, $file) = @_;
	my $D = 2**$c;
	my (@stmts, @meta);
	for my $i (1 .. $NSTMT)
	{
		my $k = $KEYS[ int(rand(@KEYS)) ];
		my $r = rand();
		my $kind = $r < 0.5 ? 'upsert' : $r < 0.75 ? 'plus' : 'minus';
		my ($sql, $tag) = increment_statement($kind, $k, $D);
		push @stmts, $sql;
		push @meta, [ $kind eq 'upsert' ? 'INSERT' : 'UPDATE', $k ];
	}
	PostgreSQL::Test::Utils::append_to_file($file, join("\n", @stmts) . "\n");
	return \@meta;
}

# Pids of the postmaster's children, from /proc.
sub postmaster_children
{
	my ($ppid) = @_;
	my @kids;
	opendir(my $dh, '/proc') or die "opendir /proc: $!";
	foreach my $p (grep { /^\d+$/ } readdir($dh))
	{
		open(my $fh, '<', "/proc/$p/stat") or next;
		my $stat = <$fh>;
		close($fh);
		next unless defined $stat && $stat =~ /\)\s+\S+\s+(\d+)/;
		push @kids, $p if $1 == $ppid;
	}
	closedir($dh);
	return @kids;
}

# Current state: { k => [ value, clock of this node's shard, number of shards, text ] }
sub state
{
	my %s;
	foreach my $line (split /\n/,
		$node->safe_psql('postgres', qq{
			SELECT k, c::bigint,
			       coalesce((SELECT s.clock FROM counter_crdt_shards(c) s
			                 WHERE s.id = '$node_id'), 0),
			       (SELECT count(*) FROM counter_crdt_shards(c)),
			       c::text
			FROM t ORDER BY k}))
	{
		my ($k, @v) = split /\|/, $line;
		$s{$k} = \@v;
	}
	return \%s;
}

# A process that exists and is not a zombie (a zombie holds no shared
# memory; an init that does not reap would leave one behind).
sub alive
{
	my ($pid) = @_;
	return 0 unless kill(0, $pid);
	open(my $fh, '<', "/proc/$pid/stat") or return 0;
	my $stat = <$fh> // '';
	close($fh);
	return $stat !~ /\)\s+Z\s/;
}

sub popcount
{
	my ($x) = @_;
	my $n = 0;
	while ($x) { $n += $x & 1; $x >>= 1; }
	return $n;
}

my $total_acked = 0;
my $total_inflight_committed = 0;
for my $cy (1 .. $CYCLES)
{
	my $mode = $MODES[ $cy - 1 ];
	my $label = "cycle $cy (kill $mode)";
	# All scripts first, then all clients at once.
	my @clients;
	for my $c (0 .. $NCLIENTS - 1)
	{
		my $base = $node->basedir . "/crash_${cy}_$c";
		my $meta = make_script($c, $cy, "$base.sql");
		push @clients, { c => $c, meta => $meta, base => $base };
	}
	my $log_off = -s $node->logfile;
	foreach my $cl (@clients)
	{
		my $base = $cl->{base};
		$cl->{h} = IPC::Run::start(
			[
				'psql', '-X', '-v', 'ON_ERROR_STOP=1',
				'-d', $node->connstr('postgres'), '-f', "$base.sql"
			],
			'>', "$base.out", '2>', "$base.err");
	}

	my $delay = 1 + rand(3);
	usleep(int($delay * 1_000_000));
	my $pm = $node->{_pid};
	my @kids = postmaster_children($pm);
	note(sprintf("%s: killing the postmaster (pid %d)%s after %.2fs",
			$label, $pm,
			$mode eq 'all' ? ' and its ' . scalar(@kids) . ' children' : '', $delay));
	if ($mode eq 'all')
	{
		kill('KILL', $pm, @kids);
		$node->{_pid} = undef;    # as $node->kill9 does
	}
	else
	{
		$node->kill9;
	}

	# The clients stop at the connection loss (ON_ERROR_STOP).
	my %inflight;    # key => [ client numbers with a statement in flight on it ]
	my $clients_ok = 1;
	my $acked_cycle = 0;
	my $cut = 0;    # clients stopped by the crash
	foreach my $cl (@clients)
	{
		$cl->{h}->finish;
		my $rc = $cl->{h}->result(0);
		my $out = slurp_file("$cl->{base}.out");
		my $err = slurp_file("$cl->{base}.err");
		my @tags = grep { /^(INSERT|UPDATE) / } split /\n/, $out;
		my @meta = @{ $cl->{meta} };
		my $c = $cl->{c};
		if (($rc == 0) != (@tags == @meta))
		{
			diag("$label: client $c: rc $rc after " . scalar(@tags) . ' of '
				  . scalar(@meta) . ' statements');
			$clients_ok = 0;
		}
		$cut++ if @tags < @meta;
		if ($err =~ /ERROR:/)
		{
			diag("$label: client $c: $err");
			$clients_ok = 0;
		}
		for my $i (0 .. $#tags)
		{
			my ($kind, $k) = @{ $meta[$i] };
			if ($tags[$i] eq ($kind eq 'INSERT' ? 'INSERT 0 1' : 'UPDATE 1'))
			{
				$sum{$k} += 2**$c;
				$cnt{$k}++;
				$acked_cycle++;
			}
			elsif (!($kind eq 'UPDATE' && $tags[$i] eq 'UPDATE 0'
					&& grep { $_ == $k } @NEW))
			{
				diag("$label: client $c statement $i on key $k: unexpected tag $tags[$i]");
				$clients_ok = 0;
			}
		}
		if (@tags < @meta)
		{
			my (undef, $k) = @{ $meta[ scalar(@tags) ] };
			push @{ $inflight{$k} }, $c;
		}
		note("$label: client $c: rc $rc, " . scalar(@tags) . ' acknowledged'
			  . (@tags < @meta ? ", in flight on key $meta[scalar(@tags)][1]" : ''));
	}
	ok($clients_ok, "$label: no statement errors");
	cmp_ok($cut, '>', 0, "$label: $cut of $NCLIENTS clients were cut off by the crash");
	cmp_ok($acked_cycle, '>', 0, "$label: $acked_cycle increments acknowledged before the crash");
	$total_acked += $acked_cycle;

	# Orphaned children of the killed postmaster exit once they notice its
	# death; a new postmaster refuses to start while they hold shared memory,
	# and while the old one's pid exists at all, even as a zombie not yet
	# reaped (the lock file check).
	my $deadline = time() + 60;
	while (kill(0, $pm) || grep { alive($_) } @kids)
	{
		die "$label: children of the killed postmaster still alive" if time() > $deadline;
		usleep(50_000);
	}
	$node->start;
	my $log = slurp_file($node->logfile, $log_off);
	like($log, qr/database system was interrupted|redo starts|not properly shut down/,
		"$label: the restart ran crash recovery");
	my @bad = grep { /ERROR:|PANIC:/ } split /\n/, $log;
	ok(!@bad, "$label: no ERROR or PANIC in the server log")
	  or diag(join("\n", @bad[ 0 .. ($#bad < 9 ? $#bad : 9) ]));
	is($node->safe_psql('postgres', 'SELECT counter_crdt_node_id()'), $node_id,
		"$label: the default node id survives the restart");

	# Each key's value and clock beyond what was acknowledged must be
	# explained by a subset of the in-flight statements on that key.
	my $st = state();
	my @bad_keys;
	my $committed_inflight = 0;
	foreach my $k (@KEYS)
	{
		my $mask = 0;
		$mask |= 2**$_ foreach @{ $inflight{$k} // [] };
		my $row = $st->{$k};
		if (!defined $row)
		{
			# Absent: nothing may have been acknowledged on it.
			push @bad_keys, "k=$k absent, but $cnt{$k} increments acknowledged"
			  if $cnt{$k};
			next;
		}
		my ($value, $clock, $nshards, $text) = @$row;
		my $dv = $value - ($sum{$k} // 0);
		my $dc = $clock - ($cnt{$k} // 0);
		if ($dv < 0 || ($dv & ~$mask) != 0 || $dc != popcount($dv))
		{
			push @bad_keys,
			  sprintf('k=%d value=%s acked_sum=%d clock=%s acked_count=%d '
				  . 'in-flight mask=0x%x: value-acked=%d, clock-acked=%d; %s',
				$k, $value, $sum{$k} // 0, $clock, $cnt{$k} // 0, $mask, $dv, $dc, $text);
			next;
		}
		if ($nshards != ($clock > 0 ? 1 : 0))
		{
			push @bad_keys, "k=$k: $nshards shards, expected only this node's: $text";
			next;
		}
		# Which in-flight statements committed is now known exactly.
		$sum{$k} = $value;
		$cnt{$k} = $clock;
		$committed_inflight += $dc;
	}
	ok(!@bad_keys, "$label: every value and clock is the acknowledged sum and count "
		  . 'plus a subset of the in-flight statements')
	  or diag(join("\n", @bad_keys));
	$total_inflight_committed += $committed_inflight;
	note("$label: $committed_inflight of "
		  . scalar(map { @$_ } values %inflight)
		  . ' in-flight statements had committed');

	# The table is usable after recovery.
	is($node->safe_psql('postgres',
			'UPDATE t SET c = c + 0 WHERE k = 1 RETURNING c::bigint'),
		$sum{1}, "$label: an increment after recovery works");
	$cnt{1}++;
}

# A clean restart changes nothing.
my $before = $node->safe_psql('postgres',
	q{SELECT string_agg(k || '=' || encode(counter_crdt_digest(c), 'hex'), ',' ORDER BY k) FROM t});
$node->restart;
is($node->safe_psql('postgres',
		q{SELECT string_agg(k || '=' || encode(counter_crdt_digest(c), 'hex'), ',' ORDER BY k) FROM t}),
	$before, 'a clean restart leaves every state unchanged');
is($node->safe_psql('postgres', 'SELECT sum(c::bigint) FROM t'),
	eval { my $s = 0; $s += $sum{$_} // 0 foreach @KEYS; $s },
	'total of all keys');

$node->stop('fast');
note("$total_acked increments acknowledged in $CYCLES cycles, "
	  . "$total_inflight_committed in-flight statements committed");
note(sprintf('total runtime %.1fs', time() - $t_start));
done_testing();
