# Moving counters in from ScyllaDB or Cassandra: the README recipes of
# "Moving counters in from ScyllaDB or Cassandra", run as written (only the
# file paths substituted), on test/data/scylla_page_stats.csv, a file as
# cqlsh's COPY ... TO ... WITH HEADER = true writes it.
#
# The expected totals do not come from the database: the file is read with
# Python's csv module and cqlsh's dialect settings (quote '"', escape '\',
# no doubled quotes), which is how cqlsh itself writes and reads it.  The
# file exported for the way back is read the same way, as cqlsh's COPY FROM
# would read it.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Copy ();
use IPC::Run ();
use FindBin;
use JSON::PP ();
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;

my $sample = "$FindBin::RealBin/../data/scylla_page_stats.csv";
my $dir = PostgreSQL::Test::Utils::tempdir();
my $in = "$dir/page_stats.csv";
my $back = "$dir/page_stats_back.csv";
File::Copy::copy($sample, $in) or die "copy $sample: $!";

# Rows of a cqlsh CSV file, header first, as lists of fields, read by
# Python's csv module with cqlsh's dialect.
sub read_cqlsh_csv
{
	my ($path) = @_;
	my $py = q{
import csv, json, sys
with open(sys.argv[1], newline='', encoding='utf-8') as f:
    rows = list(csv.reader(f, quotechar='"', escapechar='\\\\', delimiter=',', doublequote=False))
sys.stdout.buffer.write(json.dumps(rows, ensure_ascii=False).encode('utf-8'))
};
	my ($stdout, $stderr);
	IPC::Run::run([ 'python3', '-c', $py, $path ], '>', \$stdout, '2>', \$stderr)
	  or die "python3 could not read $path: $stderr";
	# bytes in, bytes out: keys compare with what psql prints
	return JSON::PP->new->decode($stdout);
}

my $rows = read_cqlsh_csv($in);
my $header = shift @$rows;
is(join(',', @$header), 'site,day,page,net_votes,views',
	'the sample has cqlsh\'s header line, columns in table order');
my %expected;    # "site|day|page" => [net_votes, views], undef for null
foreach my $r (@$rows)
{
	my ($site, $day, $page, $nv, $v) = @$r;
	$expected{"$site|$day|$page"} =
	  [ $nv eq '' ? undef : $nv, $v eq '' ? undef : $v ];
}
cmp_ok(scalar(keys %expected), '>=', 15, 'the sample has its rows');
ok((grep { $_ =~ /,/ } keys %expected), 'a key holds a comma (quoted by cqlsh)');
ok((grep { $_ =~ /"/ } keys %expected), 'a key holds a quote (escaped by cqlsh)');
ok((grep { defined $_->[0] && $_->[0] < 0 } values %expected), 'some totals are negative');
ok((grep { !defined $_->[0] } values %expected), 'some totals are null');

my $node = PostgreSQL::Test::Cluster->new('scylla');
$node->init;
$node->append_conf('postgresql.conf', "counter_crdt.node_id = '11111111-1111-1111-1111-111111111111'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION counter_crdt');

$node->safe_psql('postgres', recipe('scylla/table'));
my $load = recipe('scylla/load', { "'page_stats.csv'" => "'$in'" });
$node->safe_psql('postgres', $load);

# The table as "site|day|page" => [net_votes, views] (undef for NULL), with
# the shards of every counter.
sub table_state
{
	my $out = $node->safe_psql('postgres', q{
		SELECT concat_ws(E'\t', site || '|' || day || '|' || page,
		       coalesce(net_votes::bigint::text, 'NULL'), coalesce(views::bigint::text, 'NULL'),
		       coalesce(net_votes::text, 'NULL'), coalesce(views::text, 'NULL'))
		  FROM page_stats ORDER BY 1});
	my %t;
	foreach my $line (split /\n/, $out)
	{
		my ($k, $nv, $v, $snv, $sv) = split /\t/, $line;
		$t{$k} = {
			values => [ $nv eq 'NULL' ? undef : $nv, $v eq 'NULL' ? undef : $v ],
			shards => [ $snv, $sv ],
		};
	}
	return \%t;
}

sub same_totals
{
	my ($t, $want, $name) = @_;
	my @bad;
	foreach my $k (sort keys %$want)
	{
		my $got = $t->{$k};
		if (!$got) { push @bad, "$k missing"; next; }
		for my $i (0, 1)
		{
			my ($g, $w) = ($got->{values}[$i], $want->{$k}[$i]);
			push @bad, "$k column $i: " . ($g // 'NULL') . ' <> ' . ($w // 'NULL')
			  if (defined $g) != (defined $w) || (defined $g && $g ne $w);
		}
	}
	push @bad, 'extra rows' if keys %$t != keys %$want;
	is(join('; ', @bad), '', $name);
}

my $migration = $node->safe_psql('postgres',
	q{SELECT counter_crdt_rack_id('migration', 'shop.page_stats')});
my $t = table_state();
same_totals($t, \%expected, 'loaded: every total exactly as in the file, nulls as NULL');
my @bad_shards;
foreach my $k (keys %expected)
{
	for my $i (0, 1)
	{
		my $w = $expected{$k}[$i];
		my $want = defined $w ? "{$migration:1:$w}" : 'NULL';
		push @bad_shards, "$k: $t->{$k}{shards}[$i]" if $t->{$k}{shards}[$i] ne $want;
	}
}
is(join('; ', @bad_shards), '', 'each total is one shard of the migration writer, clock 1');

# Loading the same file again is a merge that changes nothing.
my $digest_q = q{SELECT md5(string_agg(site || day || page || ':' ||
	coalesce(encode(counter_crdt_digest(net_votes), 'hex'), '-') || ':' ||
	coalesce(encode(counter_crdt_digest(views), 'hex'), '-'), ',' ORDER BY site, day, page)) FROM page_stats};
my $d1 = $node->safe_psql('postgres', $digest_q);
$node->safe_psql('postgres', $load);
is($node->safe_psql('postgres', $digest_q), $d1, 'loading the file again changes no state');

# Counting on top.
$node->safe_psql('postgres', recipe('scylla/count'));
my %after = map { $_ => [ @{ $expected{$_} } ] } keys %expected;
$after{'shop.example|2024-06-01|/checkout'}[1] += 1;
$after{'blog.example|2024-06-01|/posts/why, not how'}[0] -= 1;
$t = table_state();
same_totals($t, \%after, 'the increments on top count exactly');
is($t->{'shop.example|2024-06-01|/checkout'}{shards}[1],
	"{11111111-1111-1111-1111-111111111111:1:1, $migration:1:"
	  . $expected{'shop.example|2024-06-01|/checkout'}[1] . '}',
	'an increment on top is a shard of this server beside the migration shard');

# Loading again after the increments: still a no-op, the increments stay.
my $d2 = $node->safe_psql('postgres', $digest_q);
$node->safe_psql('postgres', $load);
is($node->safe_psql('postgres', $digest_q), $d2,
	'loading the file again after increments changes nothing');

# As the README says, a later export loaded with clock 2 replaces the first
# export's totals and keeps the increments made here.
$node->safe_psql('postgres', qq{
	UPDATE page_stats SET views = counter_crdt_merge(views,
	       counter_crdt_increment(NULL, 5000, '$migration', 2))
	 WHERE site = 'shop.example' AND day = '2024-06-01' AND page = '/checkout'});
is( $node->safe_psql('postgres', q{
	SELECT views::bigint FROM page_stats
	 WHERE site = 'shop.example' AND day = '2024-06-01' AND page = '/checkout'}),
	'5001', 'a second export (clock 2) replaces the first one\'s total, the local increment stays');
$after{'shop.example|2024-06-01|/checkout'}[1] = 5001;

# The way back: the file that cqlsh's COPY FROM reads, with cqlsh's dialect.
# Into an empty ScyllaDB table, each line adds its totals (an empty field
# adds 0): what it would hold is exactly the table's values.
$node->safe_psql('postgres', recipe('scylla/export', { "'page_stats_back.csv'" => "'$back'" }));
my $out = read_cqlsh_csv($back);
my $oh = shift @$out;
is(join(',', @$oh), 'site,day,page,net_votes,views', 'the export has the header cqlsh expects');
my %scylla;
foreach my $r (@$out)
{
	my ($site, $day, $page, $nv, $v) = @$r;
	my $k = "$site|$day|$page";
	die "duplicate key $k in the export" if $scylla{$k};
	$scylla{$k} = [ map { $_ eq '' ? undef : $_ } ($nv, $v) ];
}
my @diff;
foreach my $k (sort keys %after)
{
	for my $i (0, 1)
	{
		my ($g, $w) = ($scylla{$k} ? $scylla{$k}[$i] : 'missing', $after{$k}[$i]);
		push @diff, "$k/$i: " . ($g // 'NULL') . ' <> ' . ($w // 'NULL')
		  if (defined $g) != (defined $w) || (defined $g && $g ne $w);
	}
}
push @diff, 'extra rows' if keys %scylla != keys %after;
is(join('; ', @diff), '', 'the exported totals, read as cqlsh reads them, are the table\'s');

$node->stop;
done_testing();
