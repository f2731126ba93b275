#!/usr/bin/perl
#
# meta_check.pl: checks META.json (the PGXN metadata, Meta Spec 1.0.0)
# against the tree it describes.
#
#   perl test/meta_check.pl [ROOT]
#
# - META.json is valid JSON, every key the spec requires is there with the
#   right shape, and no top-level key is outside the spec (custom keys start
#   with x_ or X_);
# - its version, and the version of the counter_crdt extension it provides,
#   are counter_crdt.control's default_version and the Makefile's EXTVERSION
#   (1.2 there is 1.2.0 in SemVer), and the upstream part of the version
#   in debian/changelog is the same;
# - x_postgresql_tested lists the major versions that debian/pgversions
#   builds and scripts/test.sh tests; the PostgreSQL range of prereqs admits
#   exactly those and the ones of x_postgresql_untested (majors between
#   tested ones that should build but have no server to test on), all of
#   their minors (checked for majors 10 to 30);
# - the files it names exist;
# - its license is "postgresql", as LICENSE (the PostgreSQL License) and
#   debian/copyright (Files: *, License: PostgreSQL, with its text) say;
# - CHANGELOG.md's release headings read "## X.Y — YYYY-MM-DD", newest first;
#   the newest is the version above, and every version that has an install
#   or upgrade script (counter_crdt--X.sql, counter_crdt--A--X.sql) has one.
# Then it checks itself: copies of META.json and of those files with one slip
# each (a version off by one, a required key dropped, a wider PostgreSQL
# range, a CHANGELOG.md section missing, ...) must each be rejected, so a
# check that passes everything cannot go unnoticed.
#
# Prints "ok N - ..." / "not ok N - ..." and ends with "meta: N passed,
# N failed"; exits non-zero on a failure.  Needs only core Perl (JSON::PP).

use strict;
use warnings;
use JSON::PP;
use File::Spec;
use FindBin;

binmode STDOUT, ':encoding(UTF-8)';

my $root = $ARGV[0] // File::Spec->catdir($FindBin::Bin, '..');
my ($passed, $failed, $n) = (0, 0, 0);

sub report
{
	my ($ok, $what, @why) = @_;
	$n++;
	if ($ok)
	{
		$passed++;
		print "ok $n - $what\n";
	}
	else
	{
		$failed++;
		print "not ok $n - $what\n";
		print "#   $_\n" for @why;
	}
}

sub slurp
{
	my ($rel) = @_;
	my $path = File::Spec->catfile($root, $rel);
	open(my $fh, '<', $path) or die "meta_check: cannot read $path: $!\n";
	local $/;
	my $text = <$fh>;
	close $fh;
	return $text;
}

# The file's text, decoded from UTF-8, or undef when it is not in the tree.
sub slurp_if_there
{
	my ($rel) = @_;
	my $path = File::Spec->catfile($root, $rel);
	return undef unless -f $path;
	open(my $fh, '<:encoding(UTF-8)', $path) or die "meta_check: cannot read $path: $!\n";
	local $/;
	my $text = <$fh>;
	close $fh;
	return $text;
}

# --- what the rest of the tree says --------------------------------------

my %tree;
{
	my $control = slurp('counter_crdt.control');
	($tree{control_version}) = $control =~ /^\s*default_version\s*=\s*'([^']*)'/m;
	my $makefile = slurp('Makefile');
	($tree{make_version}) = $makefile =~ /^EXTVERSION\s*[:?]?=\s*(\S+)\s*$/m;
	($tree{extension}) = $makefile =~ /^EXTENSION\s*[:?]?=\s*(\S+)\s*$/m;
	my $changelog = slurp('debian/changelog');
	($tree{deb_upstream}) = $changelog =~ /\A\S+ \(([^)-]+)(?:-[^)]*)?\)/;
	my @majors;
	for my $line (split /\n/, slurp('debian/pgversions'))
	{
		$line =~ s/#.*//;
		$line =~ s/^\s+|\s+$//g;
		next if $line eq '';
		die "meta_check: debian/pgversions: only plain major versions are handled here, not '$line'\n"
		  unless $line =~ /^\d+$/;
		push @majors, $line;
	}
	$tree{pg_majors} = [ sort { $a <=> $b } @majors ];
	$tree{changelog_md} = slurp_if_there('CHANGELOG.md');
	$tree{license} = slurp_if_there('LICENSE');
	$tree{deb_copyright} = slurp_if_there('debian/copyright');
	# the versions the install and upgrade scripts lead to
	opendir(my $dh, $root) or die "meta_check: cannot list $root: $!\n";
	$tree{script_versions} = [ sort { version_cmp($a, $b) } map {
		/^\Q$tree{extension}\E--(?:[0-9.]+--)?([0-9.]+)\.sql$/ ? $1 : ()
	} readdir $dh ];
	closedir $dh;
}

for my $k (qw(control_version make_version extension deb_upstream))
{
	die "meta_check: could not find $k in the tree\n" unless defined $tree{$k};
}

# --- the checks, on a decoded META.json -----------------------------------

my $semver = qr/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/;

# The licenses Meta Spec 1.0.0 names.
my %licenses = map { $_ => 1 } qw(
  agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2 bsd freebsd gfdl_1_2
  gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0 mozilla_1_1
  openssl perl_5 postgresql qpl_1_0 ssleay sun zlib open_source restricted
  unrestricted unknown);

my %top_keys = map { $_ => 1 } qw(
  name abstract description version maintainer license provides prereqs
  no_index resources generated_by meta-spec tags release_status);

# Compares two dotted versions ("1.10" after "1.9"; "1.2" equal to "1.2.0").
sub version_cmp
{
	my @a = split /\./, $_[0];
	my @b = split /\./, $_[1];
	for my $i (0 .. ($#a > $#b ? $#a : $#b))
	{
		my $c = ($a[$i] // 0) <=> ($b[$i] // 0);
		return $c if $c;
	}
	return 0;
}

# CHANGELOG.md's release headings, in the order they stand: a list of
# [heading text, version or undef, date or undef].  A release heading is a
# level-2 heading "## X.Y — YYYY-MM-DD" (an em dash); any other level-2
# heading ("## Unreleased", "## [1.4] - ...") comes back without a version.
sub changelog_releases
{
	my ($text) = @_;
	my @r;
	for my $h ($text =~ /^##[ \t]+(.*?)[ \t]*$/mg)
	{
		my ($v, $d) = $h =~ /^(\d+\.\d+(?:\.\d+)?) \x{2014} (\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))$/;
		push @r, [ $h, $v, $d ];
	}
	return @r;
}

# "1.2" -> "1.2.0": an extension version as the SemVer PGXN wants.
sub as_semver
{
	my ($v) = @_;
	my @p = split /\./, $v;
	push @p, 0 while @p < 3;
	return join '.', @p;
}

# Does a Meta Spec version range ("15.0.0", ">= 15.0.0, < 16.0.0", "0")
# admit the version $v (x.y.z)?  undef if the range does not parse.
sub range_admits
{
	my ($range, $v) = @_;
	my $cmp = sub {
		my @a = split /\./, $_[0];
		my @b = split /\./, $_[1];
		for my $i (0 .. 2) { return $a[$i] <=> $b[$i] if $a[$i] != $b[$i]; }
		return 0;
	};
	return 1 if $range eq '0';
	for my $part (split /\s*,\s*/, $range)
	{
		my ($op, $bound) = $part =~ /^\s*(==|!=|<=|>=|<|>)?\s*(\d+\.\d+\.\d+)\s*$/
		  or return undef;
		$op //= '>=';
		my $c = $cmp->($v, $bound);
		my $ok =
		    $op eq '==' ? $c == 0
		  : $op eq '!=' ? $c != 0
		  : $op eq '<'  ? $c < 0
		  : $op eq '<=' ? $c <= 0
		  : $op eq '>'  ? $c > 0
		  :               $c >= 0;
		return 0 unless $ok;
	}
	return 1;
}

# Returns a list of [check name, problem or undef] for one decoded META.json.
sub check_meta
{
	my ($m, $t) = @_;
	my @r;
	my $add = sub { push @r, [ $_[0], $_[1] ] };
	my $is_str = sub { defined $_[0] && !ref $_[0] && $_[0] ne '' };

	if (ref $m ne 'HASH')
	{
		$add->('META.json is a JSON object', 'the top level is not an object');
		return @r;
	}

	my @missing = grep { !exists $m->{$_} }
	  qw(name abstract maintainer license provides version meta-spec);
	$add->('required keys present', @missing ? "missing: @missing" : undef);

	my @unknown = grep { !$top_keys{$_} && !/^[xX]_./ } sort keys %$m;
	$add->('no top-level key outside the spec', @unknown ? "unknown: @unknown" : undef);

	my $ms = $m->{'meta-spec'};
	$add->('meta-spec version is 1.0.0',
		(ref $ms eq 'HASH' && ($ms->{version} // '') eq '1.0.0') ? undef
		: 'meta-spec must be {"version": "1.0.0", ...}');

	$add->("name is the extension's ($t->{extension})",
		($m->{name} // '') eq $t->{extension} ? undef : "name is " . ($m->{name} // 'absent'));

	$add->('abstract is a non-empty string', $is_str->($m->{abstract}) ? undef : 'abstract');

	my $mt = $m->{maintainer};
	my @mt = ref $mt eq 'ARRAY' ? @$mt : ($mt);
	$add->('maintainer is one or more non-empty strings',
		(@mt && !grep { !$is_str->($_) } @mt) ? undef : 'maintainer');

	my $lic = $m->{license};
	my $lic_ok =
	    (defined $lic && !ref $lic) ? $licenses{$lic}
	  : ref $lic eq 'ARRAY' ? (@$lic && !grep { ref $_ || !$licenses{$_} } @$lic)
	  : ref $lic eq 'HASH' ? (%$lic && !grep { !$is_str->($_) } values %$lic)
	  : 0;
	$add->('license is one the spec names (or a name => URL map)',
		$lic_ok ? undef : 'license ' . JSON::PP->new->canonical->allow_nonref->encode($lic));

	my $want = as_semver($t->{control_version});
	my $v = $m->{version} // '';
	$add->('version is SemVer', $v =~ $semver ? undef : "version '$v'");
	$add->("version is counter_crdt.control's default_version ($t->{control_version} = $want)",
		$v eq $want ? undef : "version '$v'");
	$add->("version is the Makefile's EXTVERSION ($t->{make_version})",
		$v eq as_semver($t->{make_version}) ? undef : "version '$v'");
	$add->("version is debian/changelog's upstream version ($t->{deb_upstream})",
		$v eq as_semver($t->{deb_upstream}) ? undef : "version '$v'");

	my $pv = ref $m->{provides} eq 'HASH' ? $m->{provides} : {};
	my $ext = $pv->{ $t->{extension} };
	if (ref $ext ne 'HASH')
	{
		$add->("provides $t->{extension}", 'not provided');
	}
	else
	{
		my @bad = grep { !$is_str->($ext->{$_}) } qw(file version);
		$add->("provides $t->{extension} with file and version", @bad ? "missing: @bad" : undef);
		$add->("provides $t->{extension} at the distribution's version",
			($ext->{version} // '') eq $v ? undef : 'version ' . ($ext->{version} // 'absent'));
		my @absent = grep { $is_str->($ext->{$_}) && !-f File::Spec->catfile($root, $ext->{$_}) }
		  qw(file docfile);
		$add->('the files provides names exist',
			@absent ? join(', ', map { "$_ $ext->{$_}" } @absent) . ' not in the tree' : undef);
	}

	my $range = eval { $m->{prereqs}{runtime}{requires}{PostgreSQL} };
	if (!$is_str->($range))
	{
		$add->('prereqs runtime requires PostgreSQL', 'absent');
	}
	else
	{
		my @admitted = grep { range_admits($range, "$_.0.0") } 10 .. 30;
		my $parsed = !grep { !defined range_admits($range, "$_.0.0") } 10 .. 30;
		# every minor of an admitted major, too ("15.20.0")
		my @partial = grep { !range_admits($range, "$_.99.0") } @admitted;
		my $untested = ref $m->{x_postgresql_untested} eq 'ARRAY' ? $m->{x_postgresql_untested} : [];
		my %tested = map { $_ => 1 } @{ $t->{pg_majors} };
		my @both = grep { $tested{$_} } @$untested;
		my @want = sort { $a <=> $b } @{ $t->{pg_majors} }, @$untested;
		$add->("the PostgreSQL range admits exactly the tested majors (@{$t->{pg_majors}}) and the untested ones (@$untested)",
			($parsed && "@admitted" eq "@want" && !@partial && !@both) ? undef
			: "'$range' admits majors (@admitted)" . (@partial ? ", not all minors of @partial" : '')
			  . (@both ? ", and @both are said to be tested and untested" : ''));
	}
	my $tested = $m->{x_postgresql_tested};
	$add->("x_postgresql_tested is debian/pgversions (@{$t->{pg_majors}})",
		(ref $tested eq 'ARRAY' && join(' ', sort { $a <=> $b } @$tested) eq "@{$t->{pg_majors}}") ? undef
		: 'x_postgresql_tested ' . JSON::PP->new->canonical->allow_nonref->encode($tested));

	my $res = $m->{resources};
	my @bad_res = ref $res eq 'HASH'
	  ? grep { !/^(homepage|bugtracker|repository)$/ && !/^[xX]_./ } keys %$res : ();
	$add->('resources has only the keys the spec names',
		(!defined $res || (ref $res eq 'HASH' && !@bad_res)) ? undef : "resources: @bad_res");

	my $tags = $m->{tags};
	$add->('tags is a list of non-empty strings',
		(!defined $tags || (ref $tags eq 'ARRAY' && !grep { !$is_str->($_) || length > 255 } @$tags))
		? undef : 'tags');

	# The license: META.json, LICENSE and debian/copyright say the same.
	my @lic;
	push @lic, 'META.json says ' . JSON::PP->new->canonical->allow_nonref->encode($lic)
	  unless (defined $lic && !ref $lic && $lic eq 'postgresql')
	  || (ref $lic eq 'ARRAY' && "@$lic" eq 'postgresql');
	push @lic, 'LICENSE is not in the tree' unless defined $t->{license};
	push @lic, 'LICENSE does not name the PostgreSQL License'
	  if defined $t->{license} && $t->{license} !~ /\bPostgreSQL License\b/;
	if (!defined $t->{deb_copyright})
	{
		push @lic, 'debian/copyright is not in the tree';
	}
	else
	{
		# DEP-5: paragraphs apart by blank lines; continuation lines indented
		my @paras = split /\n[ \t]*\n/, $t->{deb_copyright};
		my ($all) = grep { /^Files:[ \t]*\*[ \t]*$/m } @paras;
		my ($short) = defined $all ? $all =~ /^License:[ \t]*(\S.*?)[ \t]*$/m : ();
		push @lic, 'debian/copyright: Files: * is under License: ' . ($short // '(none)')
		  unless ($short // '') eq 'PostgreSQL';
		push @lic, 'debian/copyright: no License: PostgreSQL with its text'
		  unless grep { /^License:[ \t]*PostgreSQL[ \t]*\n(?:[ \t].*\n?)*^[ \t]+Permission to use, copy, modify, and distribute/m } @paras;
	}
	$add->('license is postgresql, as LICENSE and debian/copyright say', @lic ? join('; ', @lic) : undef);

	# CHANGELOG.md: one section per release, newest first.
	if (!defined $t->{changelog_md})
	{
		$add->('CHANGELOG.md: release headings', 'CHANGELOG.md is not in the tree');
		return @r;
	}
	my @rel = changelog_releases($t->{changelog_md});
	my @heading_bad;
	push @heading_bad, 'no release heading' unless @rel;
	push @heading_bad, map { "'## $_->[0]' is not '## X.Y \x{2014} YYYY-MM-DD'" } grep { !defined $_->[1] } @rel;
	my @good = grep { defined $_->[1] } @rel;
	for my $i (1 .. $#good)
	{
		my ($newer, $older) = @good[ $i - 1, $i ];
		push @heading_bad, "$older->[1] stands after $newer->[1]"
		  unless version_cmp($newer->[1], $older->[1]) > 0;
		push @heading_bad, "$older->[1] is dated after $newer->[1] ($older->[2], $newer->[2])"
		  if $older->[2] gt $newer->[2];
	}
	$add->("CHANGELOG.md: release headings '## X.Y \x{2014} YYYY-MM-DD', newest first",
		@heading_bad ? join('; ', @heading_bad) : undef);

	my $newest = @rel ? $rel[0][1] : undef;
	$add->("CHANGELOG.md's newest release is the version ($want)",
		(defined $newest && as_semver($newest) eq $want) ? undef
		: 'newest ' . (@rel ? "'## $rel[0][0]'" : 'none'));

	my %section = map { as_semver($_->[1]) => 1 } @good;
	my @no_section = grep { !$section{ as_semver($_) } } @{ $t->{script_versions} };
	$add->('every version with an install or upgrade script has a CHANGELOG.md section (' .
		join(' ', @{ $t->{script_versions} }) . ')',
		@no_section ? "no section for @no_section" : undef);

	return @r;
}

# --- the real META.json -----------------------------------------------------

my $text = slurp('META.json');
my $meta = eval { JSON::PP->new->relaxed(0)->decode($text) };
report(defined $meta, 'META.json is valid JSON', $@ ? ($@ =~ s/\s+$//r) : ());
if (defined $meta)
{
	report(!defined $_->[1], $_->[0], defined $_->[1] ? ($_->[1]) : ()) for check_meta($meta, \%tree);
}

# --- the checks reject slips ------------------------------------------------
# Each mutation of a good META.json (the first argument) or of what the tree
# says (the second: the texts of CHANGELOG.md, LICENSE, debian/copyright and
# the script versions) must make at least the named check fail.

# CHANGELOG.md cut at its level-2 headings: the text before the first, then
# one piece per section.
sub changelog_pieces
{
	return split /^(?=##[ \t])/m, $_[0];
}

my @slips = (
	[ 'version off by one', 'version is counter_crdt.control', sub { $_[0]{version} =~ s/^(\d+)\.(\d+)\.(\d+)/"$1.$2." . ($3 + 1)/e } ],
	[ 'version not SemVer', 'version is SemVer', sub { $_[0]{version} = $tree{control_version} } ],
	[ 'provides at an old version', "provides $tree{extension} at the distribution", sub { $_[0]{provides}{ $tree{extension} }{version} = '1.1.0' } ],
	[ 'no license', 'required keys present', sub { delete $_[0]{license} } ],
	[ 'no meta-spec', 'required keys present', sub { delete $_[0]{'meta-spec'} } ],
	[ 'a license the spec does not name', 'license is one', sub { $_[0]{license} = 'GPL' } ],
	[ 'PostgreSQL range wider than tested', 'the PostgreSQL range admits', sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = '>= 13.0.0, < 18.0.0' } ],
	[ 'PostgreSQL range of one minor', 'the PostgreSQL range admits', sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = '== 15.0.0' } ],
	[ 'an untested major dropped from the list', 'the PostgreSQL range admits', sub { $_[0]{x_postgresql_untested} = [] } ],
	[ 'a tested major also called untested', 'the PostgreSQL range admits', sub { push @{ $_[0]{x_postgresql_untested} }, '17' } ],
	[ 'a tested major missing', 'x_postgresql_tested is', sub { pop @{ $_[0]{x_postgresql_tested} } } ],
	[ 'a misspelled top-level key', 'no top-level key outside', sub { $_[0]{licence} = delete $_[0]{license}; $_[0]{license} = 'unknown' } ],
	[ 'a file that is not there', 'the files provides names exist', sub { $_[0]{provides}{ $tree{extension} }{file} = 'counter_crdt--9.9.sql' } ],
	[ 'another license in META.json', 'license is postgresql', sub { $_[0]{license} = 'mit' } ],
	[ 'no LICENSE file', 'license is postgresql', sub { $_[1]{license} = undef } ],
	[ 'LICENSE of another license', 'license is postgresql', sub { $_[1]{license} =~ s/PostgreSQL License/MIT License/g } ],
	[ 'debian/copyright without a license', 'license is postgresql', sub { $_[1]{deb_copyright} =~ s/^License: PostgreSQL$/License: not-stated/mg } ],
	[ 'no CHANGELOG.md', 'CHANGELOG.md: release headings', sub { $_[1]{changelog_md} = undef } ],
	[ "CHANGELOG.md's newest release one behind (its section dropped)", "CHANGELOG.md's newest release", sub {
		my ($pre, $first, @rest) = changelog_pieces($_[1]{changelog_md});
		$_[1]{changelog_md} = join '', $pre, @rest;
	} ],
	[ "CHANGELOG.md's newest release a version ahead", "CHANGELOG.md's newest release", sub { $_[1]{changelog_md} =~ s/^## (\d+)\.(\d+)/"## $1." . ($2 + 1)/me } ],
	[ 'a version with a script but no CHANGELOG.md section (the oldest heading dropped)', 'every version with an install or upgrade script', sub { $_[1]{changelog_md} =~ s/^##[ \t][^\n]*\n(?![\s\S]*^##[ \t])//m } ],
	[ 'an upgrade script to a version CHANGELOG.md lacks', 'every version with an install or upgrade script', sub { push @{ $_[1]{script_versions} }, '9.9' } ],
	[ 'CHANGELOG.md oldest first', 'CHANGELOG.md: release headings', sub {
		my ($pre, @sections) = changelog_pieces($_[1]{changelog_md});
		$_[1]{changelog_md} = join '', $pre, map { /\n\z/ ? $_ : "$_\n" } reverse @sections;
	} ],
	[ 'a CHANGELOG.md section dated after a newer one', 'CHANGELOG.md: release headings', sub {
		my ($pre, $first, $second, @rest) = changelog_pieces($_[1]{changelog_md});
		$second =~ s/\d{4}-\d\d-\d\d/9999-12-31/;
		$_[1]{changelog_md} = join '', $pre, $first, $second, @rest;
	} ],
	[ 'an Unreleased section', 'CHANGELOG.md: release headings', sub { $_[1]{changelog_md} =~ s/^(?=##[ \t])/## Unreleased\n\n- something\n\n/m } ],
	[ 'a heading of another form', 'CHANGELOG.md: release headings', sub { $_[1]{changelog_md} =~ s/^## (\d+\.\d+) \x{2014} /## [$1] - /m } ],
);
if (defined $meta)
{
	for my $s (@slips)
	{
		my ($what, $check, $mutate) = @$s;
		my $copy = JSON::PP->new->decode(JSON::PP->new->encode($meta));
		my $tree_copy = JSON::PP->new->allow_nonref->decode(JSON::PP->new->encode(\%tree));
		my $before = JSON::PP->new->canonical->encode([ $copy, $tree_copy ]);
		{
			# a slip of a file the tree lacks edits undef: the real check
			# above has failed already, and the line below says so
			local $SIG{__WARN__} = sub { };
			$mutate->($copy, $tree_copy);
		}
		if (JSON::PP->new->canonical->encode([ $copy, $tree_copy ]) eq $before)
		{
			report(0, "rejects a slip: $what", 'the slip changed nothing (the tree no longer has what it edits)');
			next;
		}
		my @hit = grep { defined $_->[1] && index($_->[0], $check) == 0 } check_meta($copy, $tree_copy);
		report(scalar @hit, "rejects a slip: $what", @hit ? () : ("check '$check' did not fail"));
	}
}
my $bad = eval { JSON::PP->new->decode($text =~ s/\}\s*\z/,}/r) };
report(!defined $bad, 'rejects a slip: a trailing comma (not JSON)');

print "meta: $passed passed, $failed failed\n";
exit($failed ? 1 : 0);
