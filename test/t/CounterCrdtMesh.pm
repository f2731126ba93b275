# Workloads and checks on servers that replicate a table of counters to each
# other, shared by the multi-server TAP tests.
#
#   my $node = CounterCrdtMesh::mesh_node('a');               # started, logical WAL
#   my $mesh = CounterCrdtMesh->new(nodes => \@nodes);        # table t (k int, c)
#   my $mesh = CounterCrdtMesh->new(nodes => \@nodes, db => 'app',
#       table => { table => 'page_views', key => 'page', counter => 'views',
#                  text_keys => 1 });
#   ok($mesh->run_workload(\@nodes, 2, 300, \@keys), '...');
#   ok($mesh->wait_converged('label'), '...');
#   $mesh->check_state('label', \@keys);    # identical digests, exact values
#   $mesh->check_logs('label');
#   $mesh->check_idle('label');
#
# $mesh->{expected} holds, per key, the sum of the acknowledged deltas; a
# test that increments on its own adds to it.  $mesh->{nodes} may grow (a
# server that joins): every check covers the nodes listed at that moment.
package CounterCrdtMesh;

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils ();
use Test::More;
use Time::HiRes qw(time usleep);
use CounterCrdtSQL;

# A new server named $name for a mesh of a few servers, started: logical
# WAL, room for a dozen subscriptions and their workers, apply workers that
# failed retried after 200 ms (not 5 s), no autovacuum (the idleness checks
# read the WAL).
sub mesh_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(allows_streaming => 'logical');
	$node->append_conf('postgresql.conf', q(
autovacuum = off
max_worker_processes = 24
max_logical_replication_workers = 12
max_replication_slots = 12
max_wal_senders = 12
wal_retrieve_retry_interval = 200ms
));
	$node->start;
	return $node;
}

sub new
{
	my ($class, %args) = @_;
	my $self = {
		nodes => $args{nodes},
		db => $args{db} // 'postgres',
		table => $args{table} // { table => 't', key => 'k', counter => 'c' },
		expected => {},
		seq => 0,
	};
	my ($t, $k, $c) = @{ $self->{table} }{qw(table key counter)};
	$self->{digest_q} =
	  "SELECT coalesce(string_agg($k || ':' || encode(counter_crdt_digest($c), 'hex'), ',' ORDER BY $k), '') FROM $t";
	return bless $self, $class;
}

sub digest_query { return $_[0]->{digest_q}; }

# $sql on $node, in the mesh's database.
sub query
{
	my ($self, $node, $sql) = @_;
	return $node->safe_psql($self->{db}, $sql);
}

# A script of $n statements on keys from @$keys: upserts (which race to
# create keys) and plain UPDATEs (acknowledged only if they hit a row), with
# the tag each prints when it counts.
sub make_script
{
	my ($self, $n, $keys) = @_;
	my (@stmts, @meta);
	for (1 .. $n)
	{
		my $k = $keys->[ int(rand(@$keys)) ];
		my $d = int(rand(21)) - 10;
		my $r = rand();
		my $kind = $r < 0.6 ? 'upsert' : $r < 0.8 ? 'plus' : 'minus';
		my ($sql, $tag) = increment_statement($kind, $k, $d, $self->{table});
		push @stmts, $sql;
		push @meta, [ $tag, $k, $d ];
	}
	return (join("\n", @stmts) . "\n", \@meta);
}

# Starts $nclients concurrent psql clients on each of @$targets, with $nstmt
# statements each over @$keys.
sub start_workload
{
	my ($self, $targets, $nclients, $nstmt, $keys) = @_;
	my @runs;
	foreach my $node (@$targets)
	{
		for my $c (1 .. $nclients)
		{
			my ($sql, $meta) = $self->make_script($nstmt, $keys);
			my $file =
			  $node->basedir . "/workload_" . $c . "_" . $self->{seq}++ . ".sql";
			my ($h, $out, $err) = start_script($node, $file, $sql, $self->{db});
			push @runs, [ $h, $out, $err, $meta, $node->name ];
		}
	}
	return @runs;
}

# Waits for the clients and adds the acknowledged deltas to
# $self->{expected}; true when every statement was acknowledged.
sub finish_workload
{
	my ($self, @runs) = @_;
	my $ok = 1;
	foreach my $r (@runs)
	{
		my ($h, $out, $err, $meta, $name) = @$r;
		$h->finish;
		my $rc = $h->result(0);
		my @tags = grep { /^(INSERT|UPDATE) / } split /\n/, $$out;
		if ($rc != 0 || @tags != @$meta)
		{
			diag("client on $name: rc=$rc, "
				  . scalar(@tags) . " of " . scalar(@$meta)
				  . " statements acknowledged; stderr: $$err");
			$ok = 0;
		}
		for my $i (0 .. ($#tags < $#$meta ? $#tags : $#$meta))
		{
			my ($tag, $k, $d) = @{ $meta->[$i] };
			next unless $tags[$i] eq $tag;
			$self->{expected}{$k} += $d;
		}
	}
	return $ok;
}

sub run_workload
{
	my ($self, @args) = @_;
	return $self->finish_workload($self->start_workload(@args));
}

# Every subscription's walsender on every node has sent what its node had
# written when this was called, and its subscriber has applied it (the
# short-lived walsenders of initial table copies are left out).
sub catch_up
{
	my ($self) = @_;
	my @nodes = @{ $self->{nodes} };
	my @lsn = map { $_->safe_psql('postgres', 'SELECT pg_current_wal_lsn()') } @nodes;
	for my $i (0 .. $#nodes)
	{
		$nodes[$i]->poll_query_until('postgres',
			qq{SELECT count(*) = 0 FROM pg_stat_replication
			    WHERE application_name <> ''
			      AND application_name !~ '^pg_[0-9]+_sync_'
			      AND (state <> 'streaming' OR replay_lsn IS NULL
			           OR replay_lsn < '$lsn[$i]')})
		  or die 'the subscribers of ' . $nodes[$i]->name . " did not catch up";
	}
	return;
}

# Polls until all nodes return the same digests twice in a row; after
# catching up twice (to let the first round of echoes through as well),
# unless $no_catchup.
sub wait_converged
{
	my ($self, $label, $timeout, $no_catchup) = @_;
	$timeout //= 60;
	my @nodes = @{ $self->{nodes} };
	my $t0 = time();
	my $deadline = $t0 + $timeout;
	my $prev;
	$self->catch_up for (1 .. ($no_catchup ? 0 : 2));
	while (time() < $deadline)
	{
		my @d = map { $self->query($_, $self->{digest_q}) } @nodes;
		my $same = !grep { $_ ne $d[0] } @d;
		if ($same && defined($prev) && $prev eq $d[0])
		{
			note(sprintf("%s: converged after %.1fs", $label, time() - $t0));
			return 1;
		}
		$prev = $same ? $d[0] : undef;
		usleep(500_000);
	}
	diag("$label: no convergence within ${timeout}s");
	my ($t, $k, $c) = @{ $self->{table} }{qw(table key counter)};
	foreach my $node (@nodes)
	{
		diag($node->name . ": "
			  . $self->query($node, "SELECT $k, $c FROM $t ORDER BY $k"));
	}
	return 0;
}

# Identical digests on all nodes, and on each the value of every key of
# @$keys equal to the sum of its acknowledged deltas (absent where nothing
# was acknowledged).
sub check_state
{
	my ($self, $label, $keys) = @_;
	my @nodes = @{ $self->{nodes} };
	my @d = map { $self->query($_, $self->{digest_q}) } @nodes;
	ok(!grep({ $_ ne $d[0] } @d), "$label: identical digests on all nodes");
	my ($t, $k, $c) = @{ $self->{table} }{qw(table key counter)};
	my $in = join(',', map { $self->{table}{text_keys} ? "'$_'" : $_ } @$keys);
	foreach my $node (@nodes)
	{
		my %got = map { split /\|/ } split /\n/,
		  $self->query($node,
			"SELECT $k, ${c}::bigint FROM $t WHERE $k IN ($in) ORDER BY $k");
		my @bad;
		foreach my $key (@$keys)
		{
			my $want = $self->{expected}{$key};
			my $have = $got{$key};
			next if !defined($want) && !defined($have);
			push @bad,
			  "key=$key want=" . ($want // 'absent') . " have=" . ($have // 'absent')
			  if !defined($want) || !defined($have) || $want != $have;
		}
		ok(!@bad, "$label: values on " . $node->name . " equal acknowledged sums")
		  or diag(join("\n", @bad));
	}
	return;
}

# No errors in the server logs, except the lost connections of walsenders
# and apply workers whose peer was shut down or dropped its subscription
# (DROP SUBSCRIPTION ends the apply worker while its walsender may be
# sending: "connection to client lost"), and lines matching $allow.
# Also allowed: "replication origin with ID N is already active for PID M",
# which an apply worker started while the one it replaces (whose publisher
# went away) is still exiting reports; it exits, and the launcher's next
# worker applies (wal_retrieve_retry_interval later).  The checks of
# convergence show that it did.
sub check_logs
{
	my ($self, $label, $allow) = @_;
	foreach my $node (@{ $self->{nodes} })
	{
		my $log = PostgreSQL::Test::Utils::slurp_file($node->logfile);
		my @err = grep {
			/ERROR:|FATAL:|PANIC:|logical replication .* error|terminated by signal/
			  && !/replication origin with ID \d+ is already active for PID \d+|could not receive data from WAL stream|connection to client lost|could not connect to the publisher|server closed the connection unexpectedly|terminating connection due to administrator command|terminating logical replication worker due to administrator command|the database system is (starting up|not yet accepting connections|shutting down|in recovery mode)|connection to server .* failed/
			  && !(defined $allow && /$allow/)
		} split /\n/, $log;
		ok(!@err, "$label: no errors in log of " . $node->name)
		  or diag(join("\n", @err[ 0 .. ($#err < 9 ? $#err : 9) ]));
	}
	return;
}

# No echo storm: once converged, no server writes a row while idle.  Read
# from the WAL of a 3 s window (pg_walinspect): no heap record that inserts,
# updates or deletes a row.  What else the WAL may hold then is what any
# server writes at rest or when a last stale row arrives: the row lock (and
# commit) of an applied update that the merge skips, pruning of catalog
# pages dirtied by earlier DDL (with full-page images, several kB a page),
# running-transactions snapshots, checkpoints; WAL bytes alone measured
# those too.
#
# The window runs from one insert position to another, each where a record
# starts, and is read once the WAL is flushed to its end (wal_end).  Not up
# to the flush position: a record that no commit follows (the pruning that a
# read does) is flushed by the WAL writer only as far as the last complete
# page, so the flush position can stay inside it while the server is idle,
# and with no whole record after the window's start pg_walinspect fails
# ("could not find a valid record after ...").
sub check_idle
{
	my ($self, $label) = @_;
	my @nodes = @{ $self->{nodes} };
	$_->safe_psql('postgres', 'CREATE EXTENSION IF NOT EXISTS pg_walinspect') foreach @nodes;
	my @l0 = map { $_->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()') } @nodes;
	my @d0 = map { $self->query($_, $self->{digest_q}) } @nodes;
	sleep(3);
	for my $i (0 .. $#nodes)
	{
		my $l1 = wal_end($nodes[$i]);
		my ($bytes, $writes) = split /\|/, $nodes[$i]->safe_psql('postgres', qq{
			SELECT pg_wal_lsn_diff('$l1', '$l0[$i]'),
			       CASE WHEN '$l1'::pg_lsn > '$l0[$i]' THEN
			         (SELECT coalesce(string_agg(DISTINCT resource_manager || ' ' || record_type, ', '), '')
			            FROM pg_get_wal_records_info('$l0[$i]', '$l1')
			           WHERE resource_manager IN ('Heap', 'Heap2')
			             AND record_type ~ '^(INSERT|UPDATE|HOT_UPDATE|DELETE|MULTI_INSERT)')
			       ELSE '' END});
		is($writes, '',
			"$label: " . $nodes[$i]->name . " wrote no row in 3s of idleness ($bytes bytes of WAL)");
		# what the WAL of the window held, for the log
		note("$label: WAL of " . $nodes[$i]->name . " while idle: "
			  . $nodes[$i]->safe_psql('postgres', qq{
				SELECT coalesce(string_agg(r, '; '), 'nothing') FROM (
				  SELECT resource_manager || ' ' || record_type || ' x' || count(*)
				         || ' (' || sum(record_length) || ' bytes, ' || sum(fpi_length) || ' of page images)' AS r
				    FROM pg_get_wal_records_info('$l0[$i]', '$l1')
				   GROUP BY resource_manager, record_type ORDER BY 1) s}))
		  if $bytes > 0;
		is($self->query($nodes[$i], $self->{digest_q}), $d0[$i],
			"$label: state on " . $nodes[$i]->name . " unchanged while idle");
	}
	return;
}

# The insert position of $node's WAL, where its next record starts, once
# the WAL is flushed that far.  A transaction of our own, with an id and no
# row, committed after it, has the WAL writer flush the WAL up to its commit
# record (what else came before may be records that nothing would flush);
# it sends nothing to the subscribers, as a transaction that changed nothing
# is not decoded.
sub wal_end
{
	my ($node) = @_;
	my $end = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
	$node->safe_psql('postgres', 'SELECT pg_current_xact_id()');
	$node->poll_query_until('postgres', "SELECT pg_current_wal_flush_lsn() >= '$end'")
	  or die $node->name . " did not flush its WAL up to $end";
	return $end;
}

1;
