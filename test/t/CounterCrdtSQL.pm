# Statements shared by the TAP tests of counter_crdt.
package CounterCrdtSQL;

use strict;
use warnings;

use Exporter 'import';
use IPC::Run ();
use PostgreSQL::Test::Utils ();
our @EXPORT = qw(increment_statement start_script page_view_ids stream_increments
  page_view_rows merge_surplus);

# One increment of key $k of a table by $d, as a statement and the command
# tag psql prints when it did increment: 'upsert' creates the key if it is
# missing (first increments race through ON CONFLICT), 'plus' and 'minus'
# update an existing row (c + d, or c - (-d)).  The table is t (k int,
# c counter_crdt) unless $tbl names another: { table => 'page_views',
# key => 'page', counter => 'views', text_keys => 1 } (text keys are quoted).
sub increment_statement
{
	my ($kind, $k, $d, $tbl) = @_;
	$tbl //= { table => 't', key => 'k', counter => 'c' };
	my ($t, $kc, $c) = @$tbl{qw(table key counter)};
	my $kl = $tbl->{text_keys} ? "'$k'" : $k;
	if ($kind eq 'upsert')
	{
		return (
			"INSERT INTO $t VALUES ($kl, NULL::counter_crdt + ($d)) "
			  . "ON CONFLICT ($kc) DO UPDATE SET $c = $t.$c + ($d);",
			'INSERT 0 1');
	}
	return ("UPDATE $t SET $c = $c + ($d) WHERE $kc = $kl;", 'UPDATE 1')
	  if $kind eq 'plus';
	return ("UPDATE $t SET $c = $c - (" . (-$d) . ") WHERE $kc = $kl;",
		'UPDATE 1')
	  if $kind eq 'minus';
	die "unknown increment kind $kind";
}

# Writes $sql to $file and starts psql running it on $node's database $db
# (postgres unless given), stopping at the first error; returns the IPC::Run handle and
# references to what psql prints (command tags, one a statement) and to its
# standard error.
sub start_script
{
	my ($node, $file, $sql, $db) = @_;
	my ($out, $err) = ('', '');
	PostgreSQL::Test::Utils::append_to_file($file, $sql);
	my $h = IPC::Run::start(
		[
			'psql', '-X', '-v', 'ON_ERROR_STOP=1',
			'-d', $node->connstr($db // 'postgres'), '-f', $file
		],
		'>', \$out, '2>', \$err);
	return ($h, \$out, \$err);
}

# Exactly-once increments of page_views by writer $w at clock $clock (a
# stream's writer, as in doc/beyond-scylladb.md): $mult * i on page /pi for
# i in 1 .. $n.  The statements, and the deltas by page.
sub stream_increments
{
	my ($w, $clock, $mult, $n) = @_;
	my ($sql, %delta) = ('');
	for my $i (1 .. $n)
	{
		my $d = $mult * $i;
		$sql .= "INSERT INTO page_views VALUES ('/p$i', counter_crdt_increment(NULL, $d, '$w', $clock))
		  ON CONFLICT (page) DO UPDATE SET views = counter_crdt_increment(page_views.views, $d, '$w', $clock);\n";
		$delta{"/p$i"} = $d;
	}
	return ($sql, \%delta);
}

# The writer ids that page_views' counters on $node (database $db) carry,
# as shards or in fold records, sorted and comma-separated.
sub page_view_ids
{
	my ($node, $db) = @_;
	return $node->safe_psql($db, q{
		SELECT coalesce(string_agg(DISTINCT x, ',' ORDER BY x), '') FROM (
		  SELECT s.id::text AS x FROM page_views, counter_crdt_shards(views) s
		  UNION ALL
		  SELECT f.retired::text FROM page_views, counter_crdt_folds(views) f
		  UNION ALL
		  SELECT f.target::text FROM page_views, counter_crdt_folds(views) f) i});
}

# page_views on $node (database $db) as a VALUES list of (page, views).
sub page_view_rows
{
	my ($node, $db) = @_;
	return $node->safe_psql($db,
		"SELECT string_agg(format('(%L, %L)', page, views::text), ', ' ORDER BY page) FROM page_views");
}

# What merging the rows $rows (from page_view_rows) into a copy of
# page_views on $node would add to the sum of its values.
sub merge_surplus
{
	my ($node, $db, $rows) = @_;
	return $node->safe_psql($db, qq{
		CREATE TEMP TABLE try (LIKE page_views INCLUDING ALL);
		INSERT INTO try SELECT * FROM page_views;
		INSERT INTO try VALUES $rows
		ON CONFLICT (page) DO UPDATE SET views = counter_crdt_merge(try.views, EXCLUDED.views);
		SELECT (SELECT sum(views::bigint) FROM try) - (SELECT sum(views::bigint) FROM page_views)});
}

1;
