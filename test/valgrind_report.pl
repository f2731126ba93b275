#!/usr/bin/perl
# valgrind_report.pl: reads the Valgrind memcheck logs of a server run
# (one file per process, --log-file=DIR/%p.log) and decides whether
# counter_crdt's code is clean.
#
#   perl test/valgrind_report.pl LOGDIR counter_crdt.so MIN_PROCESSES
#
# An error is counter_crdt's when one of its frames is a function that
# counter_crdt.so defines (nm): PostgreSQL's code misused by ours counts.  A
# definitely lost block is counter_crdt's when the first frame of its
# allocation stack that is not an allocator (malloc, palloc, pstrdup, ...)
# is ours: a block that PostgreSQL allocated for itself while our code
# called it (a relcache entry built by our table_open, say) is PostgreSQL's.
# The others are PostgreSQL's own, printed with their stacks but not counted
# as failures.  Checks, each one line "ok - ..." or "FAILED - ...":
#   1. memcheck ran in at least MIN_PROCESSES server processes (each log
#      ends with its ERROR SUMMARY), so that 0 errors means something;
#   2. no memcheck error has a frame of counter_crdt;
#   3. no definitely lost block was allocated under a frame of counter_crdt.
# Last line: "valgrind: N passed, N failed".
use strict;
use warnings;

my ($dir, $so, $min) = @ARGV;
die "usage: $0 LOGDIR counter_crdt.so MIN_PROCESSES\n" unless defined $min;

my %ours;
open(my $nm, '-|', 'nm', '--defined-only', $so) or die "nm $so: $!\n";
while (<$nm>)
{
	$ours{$1} = 1 if /^[0-9a-f]+ [tT] (\S+)$/;
}
close $nm;
die "no function of counter_crdt found in $so\n" unless %ours;

# The functions that only hand out memory: a block's owner is who called them.
sub allocator
{
	my ($f) = @_;
	return $f =~ /^(?:malloc|calloc|realloc|strdup|strndup|operator|MemoryContext(?:Alloc\w*|Strdup)
		|palloc\w*|repalloc\w*|pstrdup|pnstrdup|psprintf|pvsprintf|AllocSet\w+|Generation\w+|Slab\w+
		|enlargeStringInfo|appendBinaryStringInfo|appendStringInfo\w*|initStringInfo|makeStringInfo)$/x;
}

my ($processes, $theirs_leaks, @mine_err, @mine_leak, @theirs) = (0, 0);
for my $file (sort glob("$dir/*.log"))
{
	open(my $fh, '<', $file) or die "$file: $!\n";
	my @lines = <$fh>;
	close $fh;
	$processes++ if grep { /== ERROR SUMMARY: / } @lines;
	# records: runs of "==PID== " lines between blank "==PID==" lines
	my (@rec, @recs);
	for my $l (@lines, "==0== \n")
	{
		next unless $l =~ /^==\d+== ?(.*)$/;
		my $t = $1;
		if ($t =~ /^\s*$/)
		{
			push @recs, [@rec] if @rec;
			@rec = ();
		}
		else
		{
			push @rec, $t;
		}
	}
	for my $r (@recs)
	{
		my $head = $r->[0];
		my $leak = $head =~ /definitely lost in loss record/;
		# an error: a heading followed by an "at 0x..." frame
		next unless $leak || (@$r > 1 && $r->[1] =~ /^\s+at 0x/);
		my @frames = map { /^\s+(?:at|by) 0x[0-9A-F]+: (\S+) / ? ($1) : () } @$r;
		my $mine;
		if ($leak)
		{
			my ($first) = grep { !allocator($_) } @frames;
			$mine = defined $first && $ours{$first};
		}
		else
		{
			$mine = grep { $ours{$_} } @frames;
		}
		my $text = join('', map { "  $_\n" } @$r) . "  (" . (split m{/}, $file)[-1] . ")\n";
		if (!$mine) { push @theirs, $text; $theirs_leaks++ if $leak }
		elsif ($leak) { push @mine_leak, $text }
		else { push @mine_err, $text }
	}
}

my ($pass, $fail) = (0, 0);
sub check
{
	my ($ok, $what) = @_;
	if ($ok) { $pass++; print "valgrind: ok - $what\n" }
	else { $fail++; print "valgrind: FAILED - $what\n" }
}

print "--- counter_crdt's ---\n", @mine_err, @mine_leak if @mine_err || @mine_leak;
if (@theirs)
{
	my $n = @theirs > 10 ? 10 : @theirs;
	print "--- PostgreSQL's own (no frame of counter_crdt; first $n of ", scalar(@theirs), ") ---\n",
	  @theirs[0 .. $n - 1];
}
check($processes >= $min, "memcheck ran in $processes server processes (at least $min)");
check(!@mine_err, scalar(@mine_err) . " memcheck errors with a frame of counter_crdt");
check(!@mine_leak, scalar(@mine_leak) . " definitely lost blocks that counter_crdt allocated");
printf "valgrind: %d records of PostgreSQL's own code (%d errors, %d definitely lost blocks)\n",
  scalar(@theirs), @theirs - $theirs_leaks, $theirs_leaks;
print "valgrind: $pass passed, $fail failed\n";
exit($fail ? 1 : 0);
