# The compact binary form (format version 3, src/core/cc_wire.h) through
# logical replication: what pgoutput sends with 'binary' 'true' when
# counter_crdt.binary_format is 'compact', set as doc/replication.md says
# (ALTER ROLE ... SET for the role the subscriptions connect as).
#
# 1. pg_logical_slot_peek_binary_changes() decodes in the calling backend:
#    with SET counter_crdt.binary_format = 'compact' in that session, the
#    UPDATE message is shorter by exactly what the value's send form is, and
#    carries its version 3 bytes.  (Slip caught: send ignoring the setting.)
# 2. A real walsender (pg_recvlogical, logged in as the role) takes the
#    setting from ALTER ROLE ... SET: its stream holds the compact bytes and
#    not the portable ones.  (Slip caught: a setting that only a session's
#    SET reaches, e.g. PGC_SUSET with a role that is not superuser, or a
#    GUC defined after the walsender read its settings.)
# 3. A subscription with binary = true, connecting as that role, applies
#    the compact values: both servers end with the same states.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;

my $pub = PostgreSQL::Test::Cluster->new('pub');
$pub->init(allows_streaming => 'logical');
$pub->start;
my $sub = PostgreSQL::Test::Cluster->new('sub');
$sub->init(allows_streaming => 'logical');
$sub->start;

my $ids = q{'{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:3, 7f0cab51-fb72-3e98-bdb4-0404a982865d:5:5, 80000000-0000-0000-0000-000000000000:7:7}'};
foreach my $node ($pub, $sub)
{
	$node->safe_psql('postgres', qq{
		CREATE EXTENSION counter_crdt;
		CREATE TABLE t (k int PRIMARY KEY, c counter_crdt);
		SELECT counter_crdt_enable_replica_merge('t');
	});
}
# LOAD first: before 17, ALTER SYSTEM knows only the settings of loaded libraries
$pub->safe_psql('postgres', qq{
	LOAD 'counter_crdt';
	ALTER SYSTEM SET counter_crdt.node_id = '7f0cab51-fb72-3e98-bdb4-0404a982865d';
	CREATE PUBLICATION pub FOR TABLE t WITH (publish = 'insert, update, delete');
	CREATE ROLE replicator WITH LOGIN REPLICATION;
	GRANT SELECT ON t TO replicator;
	INSERT INTO t VALUES (1, $ids), (2, $ids);
});
$pub->reload;

# The value's two send forms, as the peek and the stream must carry them
# after the next increment of row 1.
sub send_hex
{
	my ($format, $row) = @_;
	return $pub->safe_psql('postgres', qq{
		SET counter_crdt.binary_format = '$format';
		SELECT encode(counter_crdt_send(c + 1), 'hex') FROM t WHERE k = $row});
}

# --- 1. peek, SET in the session ----------------------------------------------
$pub->safe_psql('postgres', "SELECT pg_create_logical_replication_slot('peek', 'pgoutput')");
my ($portable1, $compact1) = (send_hex('portable', 1), send_hex('compact', 1));
$pub->safe_psql('postgres', 'UPDATE t SET c = c + 1 WHERE k = 1');
like($compact1, qr/^0305/, 'the compact send form of three small shards: version 3, layout 05');
is(length($portable1) / 2, 6 + 3 * 32, 'the portable one: 102 bytes');
is(length($compact1) / 2, 2 + 3 * 18, 'the compact one: 56 bytes');
my $peek = q{SELECT octet_length(data), encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('peek', NULL, NULL,
	'proto_version', '1', 'publication_names', 'pub', 'binary', 'true') WHERE get_byte(data, 0) = ascii('U')};
my ($len_p, $hex_p) = split /\|/, $pub->safe_psql('postgres', $peek);
my ($len_c, $hex_c) = split /\|/, $pub->safe_psql('postgres', "SET counter_crdt.binary_format = 'compact'; $peek");
is($len_p - $len_c, (length($portable1) - length($compact1)) / 2,
	"peek: the UPDATE message is shorter by the difference of the send forms ($len_p B, then $len_c B)");
ok(index($hex_p, $portable1) >= 0, 'peek, portable: the message carries the version 1 bytes');
ok(index($hex_c, $compact1) >= 0 && index($hex_c, $portable1) < 0,
	'peek, compact: the message carries the version 3 bytes, not version 1');
$pub->safe_psql('postgres', "SELECT pg_drop_replication_slot('peek')");

# --- 2. a walsender of the role, ALTER ROLE ... SET -------------------------
$pub->safe_psql('postgres', "ALTER ROLE replicator SET counter_crdt.binary_format = 'compact'");
my $connstr = $pub->connstr('postgres') . ' user=replicator';
is($pub->safe_psql('postgres', 'SHOW counter_crdt.binary_format', connstr => "$connstr replication=database"),
	'compact', 'a replication connection of the role has the setting');
my $bindir = $pub->config_data('--bindir');
command_ok([ "$bindir/pg_recvlogical", '-d', $connstr, '-S', 'recv', '--plugin', 'pgoutput', '--create-slot' ],
	'pg_recvlogical creates a pgoutput slot as replicator');
my ($portable2, $compact2) = (send_hex('portable', 2), send_hex('compact', 2));
$pub->safe_psql('postgres', 'UPDATE t SET c = c + 1 WHERE k = 2');
my $endpos = $pub->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my $file = $pub->basedir . '/recv.out';
command_ok([ "$bindir/pg_recvlogical", '-d', $connstr, '-S', 'recv', '--start', '--endpos', $endpos,
	'-o', 'proto_version=1', '-o', 'publication_names=pub', '-o', 'binary=true', '-f', $file, '--no-loop' ],
	'pg_recvlogical streams the increment');
my $stream = unpack('H*', slurp_file($file));
ok(index($stream, $compact2) >= 0, 'the walsender sent the version 3 bytes (ALTER ROLE ... SET)');
ok(index($stream, $portable2) < 0, 'and not the version 1 bytes');
$pub->safe_psql('postgres', "SELECT pg_drop_replication_slot('recv')");

# --- 3. a subscription with binary = true -------------------------------------
my $pubconn = 'port=' . $pub->port . ' host=' . $pub->host . ' dbname=postgres user=replicator';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$pubconn' PUBLICATION pub WITH (binary = true)");
$sub->wait_for_subscription_sync($pub, 's');
$pub->safe_psql('postgres', 'UPDATE t SET c = c + 1');
$pub->safe_psql('postgres', q{INSERT INTO t VALUES (3, NULL::counter_crdt + 300),
	(5, '{ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:-9223372036854775808}')});
$pub->safe_psql('postgres', 'DELETE FROM t WHERE k = 2');
$pub->wait_for_catchup('s');
my $q = q{SELECT string_agg(k || ':' || coalesce(c::text, 'NULL'), ' ' ORDER BY k) FROM t};
is($sub->safe_psql('postgres', $q), $pub->safe_psql('postgres', $q),
	'the subscriber, applying compact values, holds what the publisher holds');
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION s');

done_testing();
