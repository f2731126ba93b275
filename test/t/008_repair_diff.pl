# The README recipe "Finding and repairing differences", run as written on
# two servers whose page_views tables diverge: keys incremented on one side
# or on both, keys that one side lacks (one of them with a NULL counter), a
# key deleted (a tombstone) on one side while the other incremented it, a
# NULL counter against a live one.
#
# Checks: query 1 tells the tables apart, and equal after the repair; query
# 2 lists exactly the differing keys, reads from b only the rows of the
# buckets that differ (b's statement log) and lets b compute its own digests;
# b receives exactly counter_crdt_difference(a, b) of the keys where a has
# something new, one shard where only one shard is new; afterwards both
# servers hold identical states with the exact values of every increment.
# Then a repair with increments on both servers between query 2 and the
# shipping: none is lost, and the next repair converges.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;

my $na = PostgreSQL::Test::Cluster->new('repair_a');
my $nb = PostgreSQL::Test::Cluster->new('repair_b');
$na->init;
$nb->init;
# b logs every statement, so that the test sees what a asked of it.
$nb->append_conf('postgresql.conf', "log_statement = all\n");
$na->start;
$nb->start;

# Writers: rack1 writes on a, rack2 on b, rack3 was a third server whose
# increments both have.
my ($W1, $W2, $W3) = map { "counter_crdt_rack_id('dc1', 'rack$_')" } 1 .. 3;
my $w1 = $na->safe_psql('postgres',
	q{CREATE EXTENSION counter_crdt; SELECT counter_crdt_rack_id('dc1', 'rack1')});

# The same 1000 pages on both: p<k> with rack3 = k, rack1 = 2k, and for even
# k rack2 = 3k, each at clock 1; n1 .. n3 with NULL counters.
foreach my $node ($na, $nb)
{
	$node->safe_psql('postgres', 'CREATE DATABASE app');
	$node->safe_psql('app', qq{
		CREATE EXTENSION counter_crdt;
		CREATE TABLE page_views (page text PRIMARY KEY, views counter_crdt);
		INSERT INTO page_views
		SELECT 'p' || k,
		       counter_crdt_merge(
		         counter_crdt_merge(counter_crdt_increment(NULL, k, $W3),
		                            counter_crdt_increment(NULL, 2 * k, $W1)),
		         CASE WHEN k % 2 = 0 THEN counter_crdt_increment(NULL, 3 * k, $W2) END)
		FROM generate_series(1, 1000) k;
		INSERT INTO page_views VALUES ('n1', NULL), ('n2', NULL), ('n3', NULL);
	});
}
my %value = map { ("p$_" => $_ + 2 * $_ + ($_ % 2 == 0 ? 3 * $_ : 0)) } 1 .. 1000;
$value{$_} = 'NULL' foreach qw(n1 n2 n3);

my $digest = q{SELECT counter_crdt_digest_agg(page, views) FROM page_views};
is($na->safe_psql('app', $digest), $nb->safe_psql('app', $digest),
	'equal tables give equal digests on both servers');

# The divergence.
$na->safe_psql('app', qq{
	UPDATE page_views SET views = counter_crdt_increment(views, 5, $W1) WHERE page = 'p10';
	UPDATE page_views SET views = counter_crdt_increment(views, 7, $W1) WHERE page = 'p20';
	INSERT INTO page_views VALUES ('new-a', counter_crdt_increment(NULL, 42, $W1));
	INSERT INTO page_views VALUES ('null-a', NULL);
	UPDATE page_views SET views = 'tombstone' WHERE page = 'p40';
});
$nb->safe_psql('app', qq{
	UPDATE page_views SET views = counter_crdt_increment(views, 11, $W2) WHERE page = 'p20';
	UPDATE page_views SET views = counter_crdt_increment(views, 100, $W2) WHERE page = 'p30';
	UPDATE page_views SET views = counter_crdt_increment(views, 3, $W2) WHERE page = 'p40';
	UPDATE page_views SET views = counter_crdt_increment(views, 0, $W2) WHERE page = 'n2';
	INSERT INTO page_views VALUES ('new-b', counter_crdt_increment(NULL, 17, $W2));
});
$value{p10} += 5;
$value{p20} += 7 + 11;
$value{p30} += 100;
$value{p40} = 'tombstone';
$value{n2} = 0;
$value{'new-a'} = 42;
$value{'new-b'} = 17;
$value{'null-a'} = 'NULL';
my @differing = sort qw(p10 p20 p30 p40 n2 new-a new-b null-a);

# Set-up, as the README has it.
$nb->safe_psql('app', recipe('repair/inbox'));
$na->safe_psql('app',
	recipe('repair/connect',
		{ "host 'b', port '5432'" => "host '" . $nb->host . "', port '" . $nb->port . "'" }));

# Query 1.
my $log_offset = -s $nb->logfile;
is($na->safe_psql('app', recipe('repair/compare')), 'f', 'query 1: the tables differ');

# Query 2 and the shipping, in one session (the temporary table).
my $found = $na->safe_psql('app', recipe('repair/find') . recipe('repair/ship'));
is_deeply([ sort split /\n/, $found ], \@differing, 'query 2 lists exactly the differing keys');

# What b was asked: digests computed by b itself, and rows only of the
# buckets that differ.
my $blog = slurp_file($nb->logfile, $log_offset);
my @remote = grep { /FROM public\.page_views\b/ } split /\n/, $blog;
ok((grep { /^\s*SELECT public\.counter_crdt_digest_agg\(page, views\) FROM public\.page_views$/ } @remote),
	'b computed its whole-table digest itself');
ok((grep { /public\.counter_crdt_digest_agg\(/ && /GROUP BY/ } @remote),
	'b computed its bucket digests itself');
my @row_reads = grep { !/counter_crdt_digest_agg/ } @remote;
ok(@row_reads > 0, 'a read rows of b');
is((grep { !/WHERE .*left"?\(md5\(page\), 2\) = ANY/ } @row_reads), 0,
	'every read of b\'s rows is limited to the differing buckets')
  or diag(join("\n", @row_reads));

# Shipped to b: the difference of each key where a has something new, and
# nothing else: one shard of p10 and of p20 (a's own), all of new-a, the
# NULL counter of null-a (a key that b lacks), p40's tombstone.
my $tw1 = "{$w1";
is($nb->safe_psql('app',
		q{SELECT page || ' ' || coalesce(views::text, 'NULL') FROM page_views_repair ORDER BY page COLLATE "C"}),
	join("\n",
		"new-a $tw1:1:42}",
		"null-a NULL",
		"p10 $tw1:2:25}",
		"p20 $tw1:2:47}",
		"p40 tombstone"),
	'b received only the differences of the keys where a had something new');
is($nb->safe_psql('app', q{
	SELECT count(*) FROM page_views_repair r JOIN page_views p USING (page)
	 WHERE r.views IS DISTINCT FROM counter_crdt_difference(r.views, p.views)}),
	'0', 'no shipped shard is one that b has already');

$nb->safe_psql('app', recipe('repair/apply'));
is($nb->safe_psql('app', 'SELECT count(*) FROM page_views_repair'), '0',
	'the shipped differences are consumed');

# Identical states, exact values.
my $states = q{SELECT page || ' ' || coalesce(views::text, 'NULL') FROM page_views ORDER BY page COLLATE "C"};
my $values = q{
	SELECT page || ' ' || CASE WHEN views IS NULL THEN 'NULL'
	                           WHEN views = 'tombstone' THEN 'tombstone'
	                           ELSE views::bigint::text END
	  FROM page_views ORDER BY page COLLATE "C"};
sub check_converged
{
	my ($when) = @_;
	my $want = join("\n", map { "$_ $value{$_}" } sort keys %value);
	is($na->safe_psql('app', recipe('repair/compare')), 't', "$when: query 1 says the tables are equal");
	is($na->safe_psql('app', $digest), $nb->safe_psql('app', $digest),
		"$when: both servers compute the same digest");
	is($na->safe_psql('app', $states), $nb->safe_psql('app', $states),
		"$when: identical states on both servers");
	is($na->safe_psql('app', $values), $want, "$when: exact values on a");
	is($nb->safe_psql('app', $values), $want, "$when: exact values on b");
}
check_converged('after the repair');

# Increments while a repair runs are kept: they land between query 2 and
# the shipping, on a (p50) and on b (p60, through the foreign table), so the
# repair works from states that are no longer current.  Nothing is lost on
# either server; a second repair converges.
$na->safe_psql('app', qq{UPDATE page_views SET views = counter_crdt_increment(views, 9, $W1) WHERE page = 'p50'});
$nb->safe_psql('app', qq{UPDATE page_views SET views = counter_crdt_increment(views, 4, $W2) WHERE page = 'p60'});
$found = $na->safe_psql('app',
	recipe('repair/find') . qq{
	UPDATE page_views SET views = counter_crdt_increment(views, 1000, $W1) WHERE page = 'p50';
	UPDATE b.page_views SET views = counter_crdt_increment(views, 500, $W2) WHERE page = 'p60';
	} . recipe('repair/ship'));
is_deeply([ sort split /\n/, $found ], [qw(p50 p60)], 'during increments: query 2 lists the differing keys');
$nb->safe_psql('app', recipe('repair/apply'));
$value{p50} += 9 + 1000;
$value{p60} += 4 + 500;
my $v = q{SELECT views::bigint FROM page_views WHERE page = };
is($na->safe_psql('app', "$v 'p50'"), $value{p50}, 'a kept its increments made during the repair');
is($na->safe_psql('app', "$v 'p60'"), $value{p60} - 500, 'a got what b had when query 2 ran');
is($nb->safe_psql('app', "$v 'p60'"), $value{p60}, 'b kept its increments made during the repair');
is($nb->safe_psql('app', "$v 'p50'"), $value{p50} - 1000, 'b got what a had when query 2 ran');
is($na->safe_psql('app', recipe('repair/compare')), 'f',
	'query 1 sees the increments that came after query 2');
$found = $na->safe_psql('app', recipe('repair/find') . recipe('repair/ship'));
is_deeply([ sort split /\n/, $found ], [qw(p50 p60)], 'the next query 2 lists just those keys');
$nb->safe_psql('app', recipe('repair/apply'));
check_converged('after a second repair');

# A further pass finds nothing and ships nothing.
$found = $na->safe_psql('app', recipe('repair/find') . recipe('repair/ship'));
is($found, '', 'query 2 finds no differing key after the repair');
is($nb->safe_psql('app', 'SELECT count(*) FROM page_views_repair'), '0', 'nothing shipped the last time');

$na->stop;
$nb->stop;
done_testing();
