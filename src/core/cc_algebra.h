/*
 * cc_algebra.h
 *	  The shard-set algebra on canonical states (cc_base.h): merge, the
 *	  increments, difference, equality and the total order.
 */
#ifndef CC_ALGEBRA_H
#define CC_ALGEBRA_H

#include "cc_stored.h"

/*
 * Merge of two live states into out (room for na + nb shards, must not
 * overlap the inputs).  Returns the number of shards written.
 */
size_t		cc_merge(const unsigned char *a, size_t na,
					 const unsigned char *b, size_t nb, unsigned char *out);

/*
 * How to merge two states: one of them may already be the result (a
 * tombstone absorbs everything; a state holding the other wins), otherwise
 * cc_merge() must build it.  When both are the result, a is named.
 */
typedef enum cc_merge_kind
{
	CC_MERGE_TAKE_A,
	CC_MERGE_TAKE_B,
	CC_MERGE_BUILD
} cc_merge_kind;

cc_merge_kind cc_merge_plan(const cc_view *a, const cc_view *b);

/* The number of shards that cc_merge() would write. */
size_t		cc_merge_count(const unsigned char *a, size_t na,
						   const unsigned char *b, size_t nb);

/*
 * Merges b into a in place when every id of b is already in a, returning
 * true.  Returns false when b has an id that a lacks; a may then hold part of
 * the merge, which is still below the full merge, so finishing with
 * cc_merge() gives the same state.
 */
bool		cc_merge_into(unsigned char *a, size_t na,
						  const unsigned char *b, size_t nb);

/*
 * cc_merge_into() for b given as the shards of a stored value as they lie,
 * of layout lay (cc_stored.lay): no widening.  Same contract.
 */
bool		cc_merge_into_stored(unsigned char *a, size_t na,
								 const unsigned char *b, size_t nb, uint8_t lay);

/* Merge result equals a (b adds nothing to a). */
bool		cc_merge_is_noop(const unsigned char *a, size_t na,
							 const unsigned char *b, size_t nb);

/*
 * Leader increment: the shard of writer becomes (clock + 1, value + delta),
 * or value - delta when subtract is set; absent shards count from (0, 0).
 * out has room for n + 1 shards and may not overlap s.  *nout gets the new
 * count.  CC_ERR_OVERFLOW, with nothing guaranteed in out, when the clock or
 * value would leave int64.  The glue increments stored values with
 * cc_increment_stored(); this is its model in the tests.
 */
cc_code		cc_increment(const unsigned char *s, size_t n, const uint8_t *writer,
						 int64_t delta, bool subtract,
						 unsigned char *out, size_t *nout, cc_error *err);

/*
 * cc_increment() on a stored value (cc_stored.h), where it lies: the new
 * value is written into out (room for CC_STORED_BUILD_SIZE(s->n + 1) bytes)
 * and its length into *len, the same bytes that widening, cc_increment() and
 * cc_stored_pack() give, without the widened copy; a tombstone gives a
 * tombstone.  The same errors, with nothing guaranteed in out.  s has no
 * fold records: values with records are incremented by cc_fold.h.
 */
cc_code		cc_increment_stored(const cc_stored *s, const uint8_t *writer,
								int64_t delta, bool subtract,
								unsigned char *out, size_t *len, cc_error *err);

/*
 * Exactly-once increment (contract 8.1): when the writer's shard has a clock
 * below clock (an absent shard counts as (0, 0)), it becomes (clock,
 * value + delta) and *applied is set; otherwise the state is copied as it is
 * (a replay) and *applied is cleared.  out has room for n + 1 shards and may
 * not overlap s.  CC_ERR_ARGUMENT when clock < 1, CC_ERR_OVERFLOW when the
 * value would leave int64 (a replay never overflows); nothing is guaranteed
 * in out then.
 */
cc_code		cc_increment_at(const unsigned char *s, size_t n,
							const uint8_t *writer, int64_t delta, int64_t clock,
							unsigned char *out, size_t *nout, bool *applied,
							cc_error *err);

/*
 * cc_increment_at() on a stored value, as cc_increment_stored() is
 * cc_increment(): when *applied is set, out holds the new value (the bytes
 * that cc_increment_at() and cc_stored_pack() give) and *len its length;
 * otherwise, a replay or a tombstone, out is untouched and the value stays
 * as it is.  The same errors (CC_ERR_ARGUMENT for clock < 1 also on a
 * tombstone).
 */
cc_code		cc_increment_at_stored(const cc_stored *s, const uint8_t *writer,
								   int64_t delta, int64_t clock,
								   unsigned char *out, size_t *len,
								   bool *applied, cc_error *err);

/* State equality of two canonical states. */
bool		cc_equal(const unsigned char *a, size_t na, bool ta,
					 const unsigned char *b, size_t nb, bool tb);

/*
 * The total order of states, consistent with cc_equal(): live states by the
 * exact sum of their values (also outside int64), tombstones after all of
 * them; live states of equal sums by their shards in id order, each compared
 * as (id, clock, value), a state that is a prefix of the other first.
 * Returns a negative number, 0 (exactly when cc_equal()) or a positive one;
 * it never fails.
 */
int			cc_compare(const unsigned char *a, size_t na, bool ta,
					   const unsigned char *b, size_t nb, bool tb);

/*
 * Difference (ScyllaDB's counter difference, what a repair ships): what a
 * adds to b.  CC_DIFF_NONE when merge(a, b) = b; CC_DIFF_TOMBSTONE when a is
 * a tombstone and b is not; otherwise CC_DIFF_SHARDS with the shards of a
 * that win over b's (id absent in b, higher clock, or equal clock and higher
 * value) in out, room for a->n shards, *nout of them.  In every case
 * merge(b, difference) = merge(a, b).
 */
typedef enum cc_diff_kind
{
	CC_DIFF_NONE,
	CC_DIFF_TOMBSTONE,
	CC_DIFF_SHARDS
} cc_diff_kind;

cc_diff_kind cc_difference(const cc_view *a, const cc_view *b,
						   unsigned char *out, size_t *nout);

#endif							/* CC_ALGEBRA_H */
