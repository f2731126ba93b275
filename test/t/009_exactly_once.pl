# Exactly-once counting from a partitioned stream: the README recipes of
# "Exactly-once increments", run as written, by four consumers (one per
# partition) counting click events into shared pages at the same time.
#
#   A1  every consumer counts the first part of its partition in random
#       batches; consumer 0 then dies in the middle of a batch (its backend
#       is terminated after the two statements, before COMMIT).
#   A2  consumer 1 runs a batch and is SIGKILLed in the middle of it (the
#       whole server restarts), while consumers 2 and 3 are counting: where
#       they got to is not known to them.
#   B   every consumer replays from a point behind what was committed:
#       consumer 0 from offset 0, consumer 1 from what it committed,
#       consumer 2 from a random point before it with other batch
#       boundaries, consumer 3 from 0 with its old batches again; all run
#       to the end of their partitions.
#
# After each phase the table is compared with a model computed here from
# the events: a partition has committed a prefix of its offsets (read back
# from the largest clock of its writer over all pages), and every page's
# shard of every partition must then hold exactly the number of that
# prefix's events for the page, with the last such offset + 1 as its clock.
# Where the prefix is known (A1, and consumer 1 in A2) it is checked too,
# and an unknown prefix must end on a batch boundary: a batch commits whole
# or not at all.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use Time::HiRes qw(usleep);
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use CounterCrdtSQL;
use ReadmeRecipe;
use PsqlRetry;

my $SEED = $ENV{EXACTLY_ONCE_SEED} // 9009;
srand($SEED);
note("seed $SEED");

my $P = 4;      # partitions
my $N = 240;    # events per partition
my @PAGES = map { "/$_" } qw(home pricing docs blog cart checkout search about login);

# $events[$p][$o]: the page of the event at offset $o of partition $p;
# pages skewed so that a few are hot and shared by every partition.
my @events;
for my $p (0 .. $P - 1)
{
	$events[$p] = [ map { $PAGES[ int(rand()**2 * @PAGES) ] } 0 .. $N - 1 ];
}

my $node = PostgreSQL::Test::Cluster->new('exactly_once');
$node->init;
$node->append_conf('postgresql.conf', qq(
restart_after_crash = on
max_connections = 30
deadlock_timeout = 100ms
log_statement = none
));
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION counter_crdt');
$node->safe_psql('postgres', recipe('exactly-once/table'));

my $SESSION = recipe('exactly-once/session');
my $BATCH = recipe('exactly-once/batch');

my %writer;    # writer id => partition
for my $p (0 .. $P - 1)
{
	my $id = $node->safe_psql('postgres',
		"SELECT counter_crdt_rack_id('clickstream', 'partition-$p')");
	$writer{$id} = $p;
}
is(scalar(keys %writer), $P, 'one writer id per partition');

# Random batches covering offsets [$from, $to): [from, to) pairs.
sub random_batches
{
	my ($from, $to) = @_;
	my @b;
	while ($from < $to)
	{
		my $n = 1 + int(rand(30));
		$n = $to - $from if $from + $n > $to;
		push @b, [ $from, $from + $n ];
		$from += $n;
	}
	return @b;
}

# One batch as the README says: a transaction with the events in batch,
# then the recipe's statements.  $end replaces the COMMIT.
sub batch_sql
{
	my ($p, $b, $end) = @_;
	my $vals = join(', ',
		map { "($p, $_, '$events[$p][$_]')" } $b->[0] .. $b->[1] - 1);
	return "BEGIN;\nINSERT INTO batch VALUES $vals;\n$BATCH\n"
	  . ($end // 'COMMIT;') . "\n";
}

my $seq = 0;

# Starts consumer $p on its batches, with a pause of $pause seconds after
# each (a consumer waiting for its next poll); returns [handle, \stdout,
# \stderr].
sub start_consumer
{
	my ($p, $batches, $last, $pause) = @_;
	my $sql = "SET application_name = 'consumer-$p';\n$SESSION\n";
	foreach my $b (@$batches)
	{
		$sql .= batch_sql($p, $b);
		$sql .= "SELECT pg_sleep($pause);\n" if $pause;
	}
	$sql .= $last if defined $last;
	$seq++;
	my ($h, $out, $err) = start_script($node,
		$PostgreSQL::Test::Utils::tmp_check . "/consumer_${seq}_$p.sql", $sql);
	return [ $h, $out, $err ];
}

# Waits for a consumer; returns its exit code.
sub finish_consumer
{
	my ($c) = @_;
	$c->[0]->finish;
	return $c->[0]->result(0);
}

# Per partition, the committed prefix of offsets, from the shards: the
# largest clock of its writer over all pages (0 if none).
sub committed
{
	my %c = map { $_ => 0 } 0 .. $P - 1;
	my $out = $node->safe_psql('postgres',
		q{SELECT s.id, max(s.clock) FROM page_views, counter_crdt_shards(views) s GROUP BY s.id});
	foreach my $line (split /\n/, $out)
	{
		my ($id, $clock) = split /\|/, $line;
		die "a shard of an unknown writer $id" unless exists $writer{$id};
		$c{ $writer{$id} } = $clock;
	}
	return \%c;
}

# The table against the model of the committed prefixes: every shard exact,
# no shard or row beyond them, and each page's value the sum.
sub check_state
{
	my ($prefix, $label) = @_;
	my (%want, %total);
	for my $p (0 .. $P - 1)
	{
		for my $o (0 .. $prefix->{$p} - 1)
		{
			my $k = "$events[$p][$o]|$p";
			$want{$k}{value}++;
			$want{$k}{clock} = $o + 1;
			$total{ $events[$p][$o] }++;
		}
	}
	my %got;
	my $out = $node->safe_psql('postgres',
		q{SELECT page, s.id, s.clock, s.value FROM page_views, counter_crdt_shards(views) s});
	foreach my $line (split /\n/, $out)
	{
		my ($page, $id, $clock, $value) = split /\|/, $line;
		$got{"$page|$writer{$id}"} = { clock => $clock, value => $value };
	}
	my @bad;
	foreach my $k (sort(keys %{ { %want, %got } }))
	{
		my ($w, $g) = ($want{$k}, $got{$k});
		push @bad, "$k: want " . ($w ? "$w->{clock}:$w->{value}" : 'none')
		  . ', got ' . ($g ? "$g->{clock}:$g->{value}" : 'none')
		  if !$w || !$g || $w->{clock} != $g->{clock} || $w->{value} != $g->{value};
	}
	is(join('; ', @bad), '', "$label: every shard holds exactly its partition's committed events");

	my %vals = map { split /\|/ } split /\n/,
	  $node->safe_psql('postgres', 'SELECT page, views::bigint FROM page_views');
	my @badv = map { "$_: $vals{$_} <> " . ($total{$_} // 0) }
	  grep { ($total{$_} // 0) != $vals{$_} } keys %vals;
	push @badv, "missing $_" foreach grep { !exists $vals{$_} } keys %total;
	is(join('; ', @badv), '', "$label: every page's total is exact");
}

# ---------------------------------------------------------------- A1
my (%cut, %plan);
for my $p (0 .. $P - 1)
{
	$cut{$p} = int($N / 3) + int(rand($N / 3));
	$plan{$p} = [ random_batches(0, $cut{$p}) ];
}
note('A1 ends at ' . join(', ', map { "$_: $cut{$_}" } sort keys %cut));
my @c;
for my $p (0 .. $P - 1)
{
	my $last;
	# consumer 0 dies after the two statements of its next batch
	$last = batch_sql(0, [ $cut{0}, $cut{0} + 20 ],
		'SELECT pg_terminate_backend(pg_backend_pid());')
	  if $p == 0;
	push @c, start_consumer($p, $plan{$p}, $last);
}
my @rc = map { finish_consumer($_) } @c;
isnt($rc[0], 0, 'A1: consumer 0 died in the middle of a batch');
like(${ $c[0][2] }, qr/terminating connection/, 'A1: its backend was terminated');
is_deeply([ @rc[ 1 .. $P - 1 ] ], [ (0) x ($P - 1) ], 'A1: the other consumers finished')
  or diag(join("\n", map { ${ $_->[2] } } @c));
my $com = committed();
is_deeply($com, \%cut, 'A1: every partition committed exactly its finished batches');
check_state($com, 'A1');

# ---------------------------------------------------------------- A2
my %plan2;
for my $p (2, 3)
{
	$plan2{$p} = [ random_batches($cut{$p}, $N) ];
}
my @busy = map { start_consumer($_, $plan2{$_}, undef, 0.1) } (2, 3);
# once they have got somewhere, consumer 1 starts a batch and stalls in it
for (1 .. 600)
{
	my $now = committed();
	last if $now->{2} > $cut{2} || $now->{3} > $cut{3};
	usleep(20_000);
}
my $sleeper = start_consumer(1, [],
	batch_sql(1, [ $cut{1}, $cut{1} + 25 ], 'SELECT pg_sleep(300);'));
my $pid;
for (1 .. 600)
{
	$pid = $node->safe_psql('postgres',
		q{SELECT pid FROM pg_stat_activity WHERE application_name = 'consumer-1' AND wait_event = 'PgSleep'});
	last if $pid;
	usleep(20_000);
}
ok($pid, 'A2: consumer 1 is in the middle of its batch');
my $log_off = -s $node->logfile;
kill 'KILL', $pid;
isnt(finish_consumer($sleeper), 0, 'A2: consumer 1 died with its backend');
finish_consumer($_) foreach @busy;    # they die with the restart, or finished
# The server restarts by itself: the crash noticed, every backend gone, then
# crash recovery, during which a connection is refused and psql exits at
# once (psql_poll asks again; poll_query_until could die of it, "ack Broken
# pipe").
$node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_off);
psql_poll($node, 'postgres', 'SELECT true')
  or die 'the server did not come back after the crash';
like(slurp_file($node->logfile), qr/terminated by signal 9/, 'A2: the server restarted after the crash');
$com = committed();
is($com->{1}, $cut{1}, 'A2: consumer 1 committed nothing of the killed batch');
is($com->{0}, $cut{0}, 'A2: consumer 0 is where it was');
for my $p (2, 3)
{
	my %ends = map { $_->[1] => 1 } ([ 0, $cut{$p} ], @{ $plan2{$p} });
	ok($ends{ $com->{$p} }, "A2: consumer $p committed whole batches only (up to $com->{$p})");
}
check_state($com, 'A2');

# ---------------------------------------------------------------- B
my %from = (
	0 => 0,
	1 => $com->{1},
	2 => $com->{2} - int(rand($com->{2} + 1)),
);
my @b;
push @b, start_consumer(0, [ random_batches(0, $N) ]);
push @b, start_consumer(1, [ random_batches($com->{1}, $N) ]);
push @b, start_consumer(2, [ random_batches($from{2}, $N) ]);
# consumer 3: its old batches again, exactly, then on to the end
push @b, start_consumer(3, [ @{ $plan{3} }, random_batches($cut{3}, $N) ]);
@rc = map { finish_consumer($_) } @b;
is_deeply(\@rc, [ (0) x $P ], 'B: every consumer replayed to the end')
  or diag(join("\n", map { ${ $_->[2] } } @b));
$com = committed();
is_deeply($com, { map { $_ => $N } 0 .. $P - 1 }, 'B: every partition is counted to its end');
check_state($com, 'B');
is($node->safe_psql('postgres', 'SELECT sum(views::bigint) FROM page_views'),
	$P * $N, 'B: the grand total is the number of events');

# The progress recipe: last offset and event count per page and partition.
my %want;
for my $p (0 .. $P - 1)
{
	for my $o (0 .. $N - 1)
	{
		my $k = "$events[$p][$o]|$p";
		$want{$k} = [ $o, ($want{$k} ? $want{$k}[1] : 0) + 1 ];
	}
}
my %got;
foreach my $line (split /\n/, $node->safe_psql('postgres', recipe('exactly-once/progress')))
{
	my ($page, $id, $last, $n) = split /\|/, $line;
	$got{"$page|$writer{$id}"} = [ $last, $n ];
}
is_deeply(\%got, \%want, 'the progress query shows each partition\'s last offset and count per page');

$node->stop;
done_testing();
