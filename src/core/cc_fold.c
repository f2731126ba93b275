/*
 * cc_fold.c
 *	  Retired writers: fold records and their check, their merge, the total
 *	  they keep exact, the fold of one writer, increments and the stored
 *	  form of a folded state (cc_fold.h).  The fold of many writers in one
 *	  pass is cc_fold_many.c, forgetting cc_fold_forget.c, order and
 *	  difference cc_fold_compare.c.
 */
#include "cc_fold_internal.h"

#include <limits.h>
#include <stdlib.h>

bool
cc_fold_is_retired(const unsigned char *folds, size_t nf, const uint8_t *id)
{
	size_t		lo = cc_id_lower_bound(folds, nf, CC_FOLD_SIZE, id);

	return lo < nf && cc_id_eq(folds + lo * CC_FOLD_SIZE, id);
}

/* The highest aclock among the records [lo, hi) and that record's avalue. */
static void
cc_fold_latest(const unsigned char *folds, size_t lo, size_t hi,
			   int64_t *aclock, int64_t *avalue)
{
	*aclock = 0;
	*avalue = 0;
	for (size_t i = lo; i < hi; i++)
	{
		cc_fold		f;

		cc_fold_load(folds, i, &f);
		cc_fold_later(aclock, avalue, f.aclock, f.avalue);
	}
}

/* "RETIRED>TARGET" of a record, for error messages: 74 bytes with the NUL. */
#define CC_FOLD_NAME_LEN (2 * CC_UUID_TEXT_LEN + 2)

static const char *
cc_fold_name(const cc_fold *f, char *buf)
{
	cc_uuid_format(f->retired, buf);
	buf[CC_UUID_TEXT_LEN] = '>';
	cc_uuid_format(f->target, buf + CC_UUID_TEXT_LEN + 1);
	return buf;
}

/*
 * Every refusal names the record ("fold record A>T") or the writer it is
 * about, as the shards' checks name their writer.  One pass over the
 * records, each looked up by binary search: O(nf (log n + log nf)).
 */
cc_code
cc_fold_check(const cc_folded *s, cc_code fail, cc_error *err)
{
	char		name[CC_FOLD_NAME_LEN];

	for (size_t i = 0; i < s->nf; i++)
	{
		const unsigned char *p = s->folds + i * CC_FOLD_SIZE;
		cc_fold		f;

		cc_fold_load(s->folds, i, &f);
		if (cc_id_eq(f.retired, f.target))
			return cc_fail(err, fail,
						   "Fold record %s names one writer as retired and target.",
						   cc_fold_name(&f, name));
		if (f.tclock < 1 || f.aclock < 1)
			return cc_fail(err, fail,
						   "Fold record %s has %s %lld; clocks start at 1.",
						   cc_fold_name(&f, name),
						   f.tclock < 1 ? "tclock" : "aclock",
						   (long long) (f.tclock < 1 ? f.tclock : f.aclock));
		if (i > 0 && cc_fold_key_cmp(p - CC_FOLD_SIZE, p) >= 0)
			return cc_fail(err, fail,
						   cc_fold_key_cmp(p - CC_FOLD_SIZE, p) == 0
						   ? "Fold record %s appears more than once."
						   : "Fold record %s is out of ascending (retired, target) order.",
						   cc_fold_name(&f, name));
	}
	for (size_t i = 0; i < s->nf;)
	{
		cc_fold		f;
		size_t		end,
					pos;
		int64_t		aclock,
					avalue;

		cc_fold_load(s->folds, i, &f);
		(void) cc_fold_range(s->folds, s->nf, f.retired, &end);
		cc_fold_latest(s->folds, i, end, &aclock, &avalue);
		if (cc_fold_find_shard(s->shards, s->n, f.retired, &pos))
		{
			cc_shard	sh;

			cc_load(s->shards, pos, &sh);
			if (sh.clock <= aclock)
			{
				cc_uuid_format(f.retired, name);
				return cc_fail(err, fail,
							   "Retired writer %s keeps its shard of clock %lld, which its fold records have seen (aclock %lld).",
							   name, (long long) sh.clock, (long long) aclock);
			}
		}
		for (size_t j = i; j < end; j++)
		{
			cc_shard	sh;

			cc_fold_load(s->folds, j, &f);
			if (cc_fold_is_retired(s->folds, s->nf, f.target))
				continue;
			if (!cc_fold_find_shard(s->shards, s->n, f.target, &pos))
				return cc_fail(err, fail,
							   "The target of fold record %s has no shard.",
							   cc_fold_name(&f, name));
			cc_load(s->shards, pos, &sh);
			if (sh.clock < f.tclock)
				return cc_fail(err, fail,
							   "Fold record %s has tclock %lld, newer than its target's shard (clock %lld).",
							   cc_fold_name(&f, name), (long long) f.tclock,
							   (long long) sh.clock);
		}
		i = end;
	}
	return CC_OK;
}

void
cc_fold_total(const cc_folded *s, int64_t *wraps, int64_t *low)
{
	cc_wide_sum(s->shards, s->n, wraps, low);
	for (size_t i = 0; i < s->nf;)
	{
		cc_fold		f;
		size_t		end,
					pos;
		int64_t		aclock,
					avalue;

		cc_fold_load(s->folds, i, &f);
		(void) cc_fold_range(s->folds, s->nf, f.retired, &end);
		if (!cc_fold_find_shard(s->shards, s->n, f.retired, &pos))
		{
			cc_fold_latest(s->folds, i, end, &aclock, &avalue);
			cc_acc_add(wraps, low, avalue);
		}
		for (; i < end; i++)
		{
			cc_fold_load(s->folds, i, &f);
			cc_acc_sub(wraps, low, f.absorbed);
		}
	}
}

void
cc_fold_outstanding(const cc_folded *s, const uint8_t *a,
					bool *present, int64_t *wraps, int64_t *low)
{
	size_t		end,
				lo = cc_fold_range(s->folds, s->nf, a, &end),
				pos;
	int64_t		aclock,
				avalue;

	*wraps = 0;
	*low = 0;
	*present = cc_fold_find_shard(s->shards, s->n, a, &pos);
	if (*present)
	{
		cc_shard	sh;

		cc_load(s->shards, pos, &sh);
		*low = sh.value;
	}
	else if (lo < end)
	{
		cc_fold_latest(s->folds, lo, end, &aclock, &avalue);
		*low = avalue;
	}
	for (size_t i = lo; i < end; i++)
	{
		cc_fold		f;

		cc_fold_load(s->folds, i, &f);
		cc_acc_sub(wraps, low, f.absorbed);
	}
}

size_t
cc_fold_normalize(unsigned char *s, size_t n,
				  const unsigned char *folds, size_t nf)
{
	size_t		k = 0;

	for (size_t i = 0; i < n; i++)
	{
		const unsigned char *p = s + i * CC_SHARD_SIZE;
		size_t		end,
					lo = cc_fold_range(folds, nf, p, &end);
		bool		keep = true;

		if (lo < end)
		{
			cc_shard	sh;
			int64_t		aclock,
						avalue;

			cc_load(s, i, &sh);
			cc_fold_latest(folds, lo, end, &aclock, &avalue);
			keep = sh.clock > aclock;
		}
		if (keep)
		{
			if (k != i)
				memmove(s + k * CC_SHARD_SIZE, p, CC_SHARD_SIZE);
			k++;
		}
	}
	return k;
}

void
cc_fold_merge(const cc_folded *a, const cc_folded *b,
			  unsigned char *out, size_t *nout,
			  unsigned char *fout, size_t *nfout)
{
	size_t		i = 0,
				j = 0,
				k = 0;

	while (i < a->nf || j < b->nf)
	{
		const unsigned char *pick;
		int			c;

		if (i == a->nf)
			c = 1;
		else if (j == b->nf)
			c = -1;
		else
			c = cc_fold_key_cmp(a->folds + i * CC_FOLD_SIZE,
								b->folds + j * CC_FOLD_SIZE);
		if (c == 0)
		{
			cc_fold		fa,
						fb;

			cc_fold_load(a->folds, i, &fa);
			cc_fold_load(b->folds, j, &fb);
			pick = cc_fold_b_wins(&fa, &fb) ? b->folds + j * CC_FOLD_SIZE
				: a->folds + i * CC_FOLD_SIZE;
			i++;
			j++;
		}
		else if (c < 0)
			pick = a->folds + i++ * CC_FOLD_SIZE;
		else
			pick = b->folds + j++ * CC_FOLD_SIZE;
		memcpy(fout + k++ * CC_FOLD_SIZE, pick, CC_FOLD_SIZE);
	}
	*nfout = k;
	*nout = cc_merge(a->shards, a->n, b->shards, b->n, out);
	if (k > 0)
		*nout = cc_fold_normalize(out, *nout, fout, k);
}

/*
 * Copies s's shards into out with shard sh put at pos (replacing the one
 * there when replace) and the shard of drop_id, if any, left out; returns
 * the count.
 */
static size_t
cc_copy_put_drop(const unsigned char *s, size_t n, size_t pos, bool replace,
				 const cc_shard *sh, const uint8_t *drop_id,
				 unsigned char *out)
{
	size_t		k = 0;

	for (size_t i = 0; i <= n; i++)
	{
		if (i == pos)
			cc_store(out, k++, sh);
		if (i == n)
			break;
		if (i == pos && replace)
			continue;
		if (drop_id && cc_id_eq(s + i * CC_SHARD_SIZE, drop_id))
			continue;
		memcpy(out + k++ * CC_SHARD_SIZE, s + i * CC_SHARD_SIZE,
			   CC_SHARD_SIZE);
	}
	return k;
}

cc_code
cc_fold_apply(const cc_folded *s, const uint8_t *a, const uint8_t *t,
			  unsigned char *out, size_t *nout,
			  unsigned char *fout, size_t *nfout,
			  bool *changed, cc_error *err)
{
	size_t		end,
				lo,
				apos,
				tpos,
				fpos;
	bool		present,
				have_t = false,
				holder = true,
				t_there;
	cc_shard	ash = {{0}, 0, 0},
				tsh;
	int64_t		known_clock,
				known_value,
				absorbed_t = 0,
				others = 0,
				others_wraps = 0,
				wraps,
				low,
				delta;
	cc_fold		rec;

	*changed = false;
	if (cc_id_eq(a, t))
		return cc_fail(err, CC_ERR_ARGUMENT,
					   "A writer cannot be folded into itself.");
	if (cc_fold_is_retired(s->folds, s->nf, t))
		return cc_fail(err, CC_ERR_ARGUMENT,
					   "The target writer is itself retired in this counter.");
	lo = cc_fold_range(s->folds, s->nf, a, &end);
	present = cc_fold_find_shard(s->shards, s->n, a, &apos);
	if (!present && lo == end)
		return CC_OK;			/* the counter never knew a */
	if (present)
		cc_load(s->shards, apos, &ash);
	cc_fold_latest(s->folds, lo, end, &known_clock, &known_value);
	if (present)
	{
		known_clock = ash.clock;
		known_value = ash.value;
	}

	/*
	 * t's own record of a; whether a live target of a lower id holds a; what
	 * the live targets other than t hold (they give it back).
	 */
	fpos = end;
	for (size_t i = lo; i < end; i++)
	{
		cc_fold		f;
		int			c;

		cc_fold_load(s->folds, i, &f);
		c = cc_id_cmp(f.target, t);
		if (c == 0)
		{
			have_t = true;
			absorbed_t = f.absorbed;
			fpos = i;
		}
		else if (!cc_fold_is_retired(s->folds, s->nf, f.target))
		{
			if (c < 0)
				holder = false;
			cc_acc_add(&others_wraps, &others, f.absorbed);
		}
		if (c > 0 && fpos == end)
			fpos = i;
	}

	if (holder)
	{
		/* t takes all of a but what live targets hold until they give back */
		cc_fold_outstanding(s, a, &present, &wraps, &low);
		cc_acc_add(&wraps, &low, others);
		wraps += others_wraps;
		if (wraps != 0)
			return cc_fail(err, CC_ERR_OVERFLOW,
						   "The count to fold leaves the bigint range.");
		delta = low;
		if (delta == 0 && !present)
			return CC_OK;		/* finished already */
	}
	else
	{
		if (absorbed_t == 0)
			return CC_OK;		/* another target holds a; t holds nothing */
		if (absorbed_t == INT64_MIN)
			return cc_fail(err, CC_ERR_OVERFLOW,
						   "The count to give back leaves the bigint range.");
		delta = -absorbed_t;
	}

	t_there = cc_target_shard(s, t, &tpos, &tsh);
	if (tsh.clock == INT64_MAX)
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The target's clock would leave the bigint range.");
	if (__builtin_add_overflow(tsh.value, delta, &tsh.value))
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The target's value would leave the bigint range.");
	if (__builtin_add_overflow(absorbed_t, delta, &rec.absorbed))
		return cc_fail(err, CC_ERR_OVERFLOW,
					   "The folded count would leave the bigint range.");
	tsh.clock++;
	memcpy(rec.retired, a, CC_ID_LEN);
	memcpy(rec.target, t, CC_ID_LEN);
	rec.tclock = tsh.clock;
	rec.aclock = known_clock;
	rec.avalue = known_value;

	/*
	 * The new shards: t's put in place, a's dropped (its clock is the
	 * record's aclock now).  Dropping a shard in front of t's moves t's
	 * place by one, which cc_copy_put_drop() handles by position in s.
	 */
	*nout = cc_copy_put_drop(s->shards, s->n, tpos, t_there, &tsh,
							 present ? a : NULL, out);

	/* The new records: (a, t) put in place. */
	{
		size_t		k = 0;

		for (size_t i = 0; i <= s->nf; i++)
		{
			if (i == fpos)
				cc_fold_store(fout, k++, &rec);
			if (i == s->nf)
				break;
			if (i == fpos && have_t)
				continue;
			memcpy(fout + k++ * CC_FOLD_SIZE, s->folds + i * CC_FOLD_SIZE,
				   CC_FOLD_SIZE);
		}
		*nfout = k;
	}
	*changed = true;
	return CC_OK;
}

size_t
cc_stored_pack_folded(unsigned char *data, const cc_folded *s)
{
	unsigned char *p;
	uint32_t	nf = (uint32_t) s->nf,
				pad = 0;
	int64_t		wraps,
				low;

	if (s->nf == 0)
	{
		memcpy(cc_stored_build_start(data, false), s->shards,
			   s->n * CC_SHARD_SIZE);
		return cc_stored_pack(data, s->n, false);
	}
	cc_fold_total(s, &wraps, &low);
	data[0] = CC_STORED_V2;
	data[1] = CC_STORED_FLAG_FOLDS | (wraps != 0 ? CC_STORED_FLAG_OVERFLOW : 0);
	data[2] = 0;
	data[3] = 0;
	if (wraps != 0)
		low = 0;
	memcpy(data + CC_STORED_V1_HEADER, &low, sizeof(low));
	p = data + CC_STORED_HEADER;
	memcpy(p, &nf, sizeof(nf));
	memcpy(p + sizeof(nf), &pad, sizeof(pad));
	p += CC_STORED_FOLDS_HEADER;
	memcpy(p, s->folds, s->nf * CC_FOLD_SIZE);
	p += s->nf * CC_FOLD_SIZE;
	memcpy(p, s->shards, s->n * CC_SHARD_SIZE);
	return CC_STORED_FOLDED_SIZE(s->n, s->nf);
}

void
cc_stored_folded(const cc_stored *s, unsigned char *buf, cc_folded *out)
{
	if (s->lay != CC_LAY_WIDE)
	{
		cc_stored_widen(s, buf);
		out->shards = buf;
	}
	else
		out->shards = s->shards;
	out->n = s->n;
	out->folds = s->folds;
	out->nf = s->nf;
}

cc_code
cc_fold_increment(const cc_folded *s, const uint8_t *writer, int64_t delta,
				  bool subtract, unsigned char *out, size_t *nout,
				  cc_error *err)
{
	if (cc_fold_is_retired(s->folds, s->nf, writer))
		return cc_fail(err, CC_ERR_RETIRED,
					   "The writer was folded into another in this counter.");
	return cc_increment(s->shards, s->n, writer, delta, subtract, out, nout, err);
}

cc_code
cc_fold_increment_at(const cc_folded *s, const uint8_t *writer, int64_t delta,
					 int64_t clock, unsigned char *out, size_t *nout,
					 bool *applied, cc_error *err)
{
	*applied = false;
	if (cc_fold_is_retired(s->folds, s->nf, writer))
		return cc_fail(err, CC_ERR_RETIRED,
					   "The writer was folded into another in this counter.");
	return cc_increment_at(s->shards, s->n, writer, delta, clock, out, nout,
						   applied, err);
}
