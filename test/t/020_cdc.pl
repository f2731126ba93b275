# The recipes of doc/change-data-capture.md, run as written on one server
# with wal_level = logical: after every increment, a decrement and a
# tombstone, the change that wal2json and pgoutput give a consumer carries
# the counter's new value as a number in total_views, where the page says
# so, and no total_views column where the page says it is not sent.
#
# Two databases: "gen" with the generated value column, "trig" with the
# column kept by a trigger.  wal2json's JSON is parsed; pgoutput's binary
# messages (protocol version 1) are decoded here.  The slips each check
# catches: the wrong column (the text state, not the number), a value one
# increment behind (the old row, or a trigger that reads OLD), a missing or
# extra change, a string where a number belongs.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP ();
use FindBin;
use lib $FindBin::RealBin;
use SignalExit;
use ReadmeRecipe;

my $node = PostgreSQL::Test::Cluster->new('cdc');
$node->init(allows_streaming => 'logical');
$node->start;
my $version = $node->safe_psql('postgres', 'SHOW server_version_num');
my $pg18 = $version >= 180000;

# wal2json, where Debian builds it: not yet for 19 (its release candidates
# are in experimental, with no postgresql-19-wal2json), and not for the
# assert-enabled server of scripts/pgcassert.sh (built from source, without
# it): those runs skip the wal2json checks.  Elsewhere a missing wal2json
# fails as before.
my $wal2json_skip;
if (!-e $node->config_data('--pkglibdir') . '/wal2json.so')
{
	if ($version >= 190000)
	{
		$wal2json_skip = 'wal2json is not built for PostgreSQL 19 yet '
		  . '(Debian has no postgresql-19-wal2json)';
	}
	elsif ($node->config_data('--configure') =~ /'--enable-cassert'/)
	{
		$wal2json_skip = 'wal2json is not built for the assert-enabled server '
		  . 'of scripts/pgcassert.sh';
	}
	diag("skipping the wal2json checks: $wal2json_skip") if $wal2json_skip;
}

# The recipe's configuration, without the output_plugin_libraries line
# where the server does not know the setting (as the page says).
my $conf = recipe('cdc/postgresql.conf');
if ($node->safe_psql('postgres',
		q{SELECT count(*) FROM pg_settings WHERE name = 'output_plugin_libraries'}) eq '0')
{
	my $n = ($conf =~ s/^output_plugin_libraries\b[^\n]*\n//mg);
	die "the recipe has no output_plugin_libraries line to leave out" unless $n == 1;
}
$node->append_conf('postgresql.conf', $conf);
$node->restart;
is($node->safe_psql('postgres', 'SHOW wal_level'), 'logical', 'wal_level is logical');

# The increments on pages $p1 and $p2, and the value each change must
# carry: [sql, [action, page, value]].
sub writes
{
	my ($p1, $p2) = @_;
	return (
		[ qq{INSERT INTO page_views VALUES ('$p1', NULL::counter_crdt + 5)
		      ON CONFLICT (page) DO UPDATE SET views = page_views.views + 5},
			[ 'I', $p1, 5 ] ],
		[ qq{INSERT INTO page_views VALUES ('$p1', NULL::counter_crdt + 5)
		      ON CONFLICT (page) DO UPDATE SET views = page_views.views + 5},
			[ 'U', $p1, 10 ] ],
		[ qq{UPDATE page_views SET views = views + 5 WHERE page = '$p1'}, [ 'U', $p1, 15 ] ],
		[ qq{UPDATE page_views SET views = views - 7 WHERE page = '$p1'}, [ 'U', $p1, 8 ] ],
		[ qq{INSERT INTO page_views VALUES ('$p2', NULL::counter_crdt + 1)}, [ 'I', $p2, 1 ] ],
		[ qq{UPDATE page_views SET views = 'tombstone' WHERE page = '$p2'},
			[ 'U', $p2, undef ] ],
		# a tombstone ignores increments: the row is written, its value stays NULL
		[ qq{UPDATE page_views SET views = views + 3 WHERE page = '$p2'},
			[ 'U', $p2, undef ] ],
	);
}

sub show { return defined $_[0] ? $_[0] : 'NULL' }

# wal2json's changes since the last read, through the page's query:
# [action, page, total_views as JSON text (a number or null), views].
sub wal2json_changes
{
	my ($db) = @_;
	my @out;
	foreach my $line (split /\n/, $node->safe_psql($db, recipe('cdc/wal2json-read')))
	{
		my $c = JSON::PP::decode_json($line);
		my %col = map { $_->{name} => $_ } @{ $c->{columns} };
		# the number as wal2json wrote it: unquoted, or null
		my ($raw) = $line =~ /"name":"total_views","type":"bigint","value":([^,}]*)[,}]/;
		push @out, [ $c->{action}, $col{page}{value}, $raw, $col{views}{value},
			[ map { $_->{name} } @{ $c->{columns} } ] ];
	}
	return @out;
}

# pgoutput's messages since the last read (protocol version 1), decoded:
# [action, {column => [text or undef, type oid]}, [column names]].
sub pgoutput_changes
{
	my ($db, $slot, $pub) = @_;
	my (%rel, @out);
	my $rows = $node->safe_psql($db,
		"SELECT encode(data, 'hex') FROM pg_logical_slot_get_binary_changes('$slot', NULL, NULL, "
		  . "'proto_version', '1', 'publication_names', '$pub')");
	foreach my $hex (split /\n/, $rows)
	{
		my $b = pack('H*', $hex);
		my $p = 1;
		my $u8 = sub { my $v = unpack('C', substr($b, $p, 1)); $p += 1; $v };
		my $u16 = sub { my $v = unpack('n', substr($b, $p, 2)); $p += 2; $v };
		my $u32 = sub { my $v = unpack('N', substr($b, $p, 4)); $p += 4; $v };
		my $str = sub {
			my $e = index($b, "\0", $p);
			die "pgoutput: unterminated string" if $e < 0;
			my $s = substr($b, $p, $e - $p);
			$p = $e + 1;
			$s;
		};
		my $tuple = sub {
			my @v;
			foreach (1 .. $u16->())
			{
				my $k = chr($u8->());
				if ($k eq 'n') { push @v, undef; }
				elsif ($k eq 't') { my $l = $u32->(); push @v, substr($b, $p, $l); $p += $l; }
				else { die "pgoutput: column kind '$k' not expected"; }
			}
			\@v;
		};
		my $kind = substr($b, 0, 1);
		if ($kind eq 'R')
		{
			my $id = $u32->();
			$str->();
			my $name = $str->();
			$u8->();
			my @cols;
			foreach (1 .. $u16->())
			{
				$u8->();
				my $cn = $str->();
				push @cols, [ $cn, $u32->() ];
				$u32->();
			}
			$rel{$id} = \@cols;
		}
		elsif ($kind eq 'I' || $kind eq 'U')
		{
			my $cols = $rel{ $u32->() } or die "pgoutput: a change before its Relation";
			my $k = chr($u8->());
			if ($k eq 'K' || $k eq 'O') { $tuple->(); $k = chr($u8->()); }
			die "pgoutput: no new tuple" unless $k eq 'N';
			my $t = $tuple->();
			die "pgoutput: tuple of " . @$t . " columns for a relation of " . @$cols
			  unless @$t == @$cols;
			my %row = map { $cols->[$_][0] => [ $t->[$_], $cols->[$_][1] ] } 0 .. $#$cols;
			push @out, [ $kind, \%row, [ map { $_->[0] } @$cols ] ];
		}
	}
	return @out;
}

# Runs the writes one at a time; after each, reads both slots and checks.
# $pg_value: whether pgoutput's changes must carry total_views.
sub run_writes
{
	my ($db, $label, $pg_value, $pub, $pages) = @_;
	my $bigint_oid = $node->safe_psql($db, q{SELECT 'int8'::regtype::oid});
	foreach my $w (writes(@$pages))
	{
		my ($sql, $want) = @$w;
		my ($action, $page, $value) = @$want;
		my $step = "$label: $action $page -> " . show($value);
		$node->safe_psql($db, $sql);
		is($node->safe_psql($db,
				"SELECT coalesce(total_views::text, 'NULL') || ' ' || coalesce(views::bigint::text, 'NULL')"
				  . " FROM page_views WHERE page = '$page'"),
			show($value) . ' ' . show($value), "$step: the table's total_views is the counter's value");

		SKIP:
		{
			skip $wal2json_skip, 4 if $wal2json_skip;
			my @j = wal2json_changes($db);
			is(scalar(@j), 1, "$step: wal2json gives one change");
			my ($ja, $jp, $jraw, $jviews) = @{ $j[0] // [] };
			is("$ja $jp", "$action $page", "$step: wal2json's action and key");
			is($jraw, defined $value ? $value : 'null',
				"$step: wal2json's total_views is the new value, a JSON number");
			# one writer: its shard's value is the counter's
			like($jviews, defined $value ? qr/^\{[0-9a-f-]{36}:[0-9]+:$value\}$/ : qr/^tombstone$/,
				"$step: wal2json's views column is the text state, not a number");
		}

		my @g = pgoutput_changes($db, 'cdc_check', $pub);
		is(scalar(@g), 1, "$step: pgoutput gives one change");
		my ($ga, $grow, $gcols) = @{ $g[0] // [ '', {}, [] ] };
		is($ga . ' ' . ($grow->{page}[0] // ''), "$action $page", "$step: pgoutput's action and key");
		if ($pg_value)
		{
			is(join(',', @$gcols), 'page,views,total_views', "$step: pgoutput sends total_views");
			is(show($grow->{total_views}[0]), show($value), "$step: pgoutput's total_views is the new value");
			is($grow->{total_views}[1], $bigint_oid, "$step: pgoutput's total_views is an int8 column");
		}
		else
		{
			is(join(',', @$gcols), 'page,views', "$step: pgoutput sends no total_views");
		}
	}
	return;
}

# --- the page top to bottom, in one database ------------------------------
# As a user who reads the page in order and runs every block: the generated
# column, wal2json's slot, the publication of 18 (refused before 18), then
# the column kept by a trigger in its place, the publication (on 18 the one
# of cdc/publication-18 is kept, as the page says), and pgoutput's slot and
# a peek at its messages.  The test's own pgoutput slot, cdc_check, sees
# every change from the start; before 18, with no publication of the page's
# yet, it reads through the test's publication cdc_check (of the table, no
# options), and it always drains through cdc_check.
$node->safe_psql('postgres', 'CREATE DATABASE app');
$node->safe_psql('app', q{
	CREATE EXTENSION counter_crdt;
	CREATE TABLE page_views (page text PRIMARY KEY, views counter_crdt);
	CREATE PUBLICATION cdc_check FOR TABLE page_views;
});
$node->safe_psql('app', q{SELECT pg_create_logical_replication_slot('cdc_check', 'pgoutput')});

# the generated value column
$node->safe_psql('app', recipe('cdc/value-column'));
$node->safe_psql('app', recipe('cdc/wal2json')) unless $wal2json_skip;
if ($pg18)
{
	$node->safe_psql('app', recipe('cdc/publication-18'));
}
else
{
	my ($rc, $out, $err) = $node->psql('app', recipe('cdc/publication-18'));
	isnt($rc, 0, 'before 18: the publication of cdc/publication-18 is refused');
	like($err, qr/unrecognized publication parameter/, 'before 18: ... for its option');
}
run_writes('app', 'generated column', $pg18, $pg18 ? 'cdc' : 'cdc_check', [ 'home', 'about' ]);

# the column kept by a trigger, in its place
$node->safe_psql('app', recipe('cdc/trigger-column'));
is($node->safe_psql('app', q{SELECT string_agg(page || ' ' || coalesce(total_views::text, 'NULL'), ', ' ORDER BY page)
	FROM page_views}),
	'about NULL, home 8', 'the trigger recipe replaces the generated column and fills the rows written before it');
is($node->safe_psql('app', q{SELECT attgenerated FROM pg_attribute
	WHERE attrelid = 'page_views'::regclass AND attname = 'total_views'}),
	'', 'total_views is an ordinary column now');
if ($pg18)
{
	my ($rc, $out, $err) = $node->psql('app', recipe('cdc/publication'));
	like($err, qr/publication "cdc" already exists/,
		'18: a second publication cdc fails, as the page says; the one of cdc/publication-18 is kept');
}
else
{
	$node->safe_psql('app', recipe('cdc/publication'));
}
# what the block's filling of the old rows sent
SKIP:
{
	skip $wal2json_skip, 1 if $wal2json_skip;
	my @j = wal2json_changes('app');
	is(join(' ', map { "$_->[0] $_->[1] " . ($_->[2] // '-') } @j), 'U home 8',
		'wal2json: the trigger block updated the row written before it, with its value');
}
pgoutput_changes('app', 'cdc_check', 'cdc_check');
run_writes('app', 'column kept by a trigger', 1, 'cdc', [ 'contact', 'blog' ]);

# A write to the column itself is overwritten with the counter's value.
$node->safe_psql('app', q{UPDATE page_views SET total_views = 99 WHERE page = 'contact'});
is($node->safe_psql('app', q{SELECT total_views FROM page_views WHERE page = 'contact'}),
	'8', 'a write to total_views is overwritten');

# what pgoutput sends: the page's slot, a write, the peek
$node->safe_psql('app', recipe('cdc/pgoutput'));
$node->safe_psql('app', q{INSERT INTO page_views VALUES ('news', NULL::counter_crdt + 3)});
$node->safe_psql('app', q{UPDATE page_views SET views = views + 5 WHERE page = 'news'});
{
	my $peek = $node->safe_psql('app', recipe('cdc/pgoutput-peek'));
	note("the peek block:\n$peek");
	my @kinds = map { /^(.)\|/ ? $1 : '?' } split /\n/, $peek;
	is("@kinds", 'B Y R I C B U C',
		'the peek shows begin, the type, relation, insert, commit; begin, update, commit');
	like($peek, qr/^Y\|.*counter_crdt\\x00$/m, 'the Y row names counter_crdt');
	like($peek, qr/^R\|.*total_views\\x00\\x00\\x00\\x00\\x14\\xff\\xff\\xff\\xff$/m,
		'the R row: total_views, its end, the oid 20 (\\x00\\x00\\x00\\x14), as the page reads it');
	like($peek, qr/^U\|U(\\x[0-9a-f]{2}|[^\\]){4}N\\x00\\x03t\\x00\\x00\\x00\\x04newst\\x00\\x00\\x00\*\{[^}]+:2:8\}t\\x00\\x00\\x00\\x018$/m,
		'the U row: N, three columns, t, the length and the text of each, total_views 8 last');
	is($node->safe_psql('app', recipe('cdc/pgoutput-peek')), $peek, 'a peek consumes nothing: the same again');
	my @g = pgoutput_changes('app', 'cdc_pgoutput', 'cdc');
	is(join(' ', map { $_->[0] . ' ' . $_->[1]{page}[0] . ' ' . show($_->[1]{total_views}[0]) } @g),
		'I news 3 U news 8', 'decoded, the same slot\'s messages carry total_views 3, then 8');
}
$node->safe_psql('app', q{SELECT pg_drop_replication_slot('cdc_pgoutput')});

# --- what the table of the page says of replicated tables ------------------
# (a database of its own: not a step of the page's flow)
foreach my $db (qw(replicated_gen replicated_trig))
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, q{
		CREATE EXTENSION counter_crdt;
		CREATE TABLE page_views (page text PRIMARY KEY, views counter_crdt);
	});
}
$node->safe_psql('replicated_gen', recipe('cdc/value-column'));
$node->safe_psql('replicated_gen', q{SELECT counter_crdt_enable_replica_merge('page_views')});
pass('a table with the generated value column can be replicated');
$node->safe_psql('replicated_trig', recipe('cdc/trigger-column'));
my ($rc, $out, $err) = $node->psql('replicated_trig',
	q{SELECT counter_crdt_enable_replica_merge('page_views')});
isnt($rc, 0, 'counter_crdt_enable_replica_merge refuses the column kept by a trigger');
like($err, qr/total_views/, '... and names it');

$node->stop;
done_testing();
