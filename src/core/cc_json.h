/*
 * cc_json.h
 *	  The JSON form of counter_crdt (contract 8.2), on JSON text:
 *
 *	  live       {"shards": [{"id": "<uuid>", "clock": <n>, "value": <n>}, ...]}
 *	  tombstone  {"tombstone": true}
 *
 * and a live value with fold records (cc_fold.h) adds, in jsonb's key order,
 *
 *	  {"folds": [{"aclock": <n>, "avalue": <n>, "target": "<uuid>",
 *				  "tclock": <n>, "retired": "<uuid>", "absorbed": <n>}, ...],
 *	   "shards": [...]}
 *
 * with records in (retired, target) order.  Input takes keys in any order,
 * each record with exactly its six keys, records in any order, checked as
 * cc_fold_check() does; "folds" is refused empty (a value without records
 * has no "folds", so that every value has one form) and with a tombstone.
 */
#ifndef CC_JSON_H
#define CC_JSON_H

#include "cc_text.h"

/* Upper bound on the shards that JSON text of this length can hold. */
size_t		cc_json_parse_capacity(const char *str, size_t len);

/*
 * Parses the JSON form (contract 8.2) into canonical shards, rejecting any
 * other shape with CC_ERR_SYNTAX.  out has room for cc_json_parse_capacity()
 * shards.
 */
cc_code		cc_json_parse(cc_id_cache *ids, const char *str, size_t len,
						  unsigned char *out, size_t *n, bool *tombstone,
						  cc_error *err);

/*
 * The same with fold records: a checked folded state in *st, pointing into
 * out, which has room for cc_json_parse_capacity() shards: the shards at
 * its start, the records right after them (they fit).  "folds" is an
 * unknown key to cc_json_parse().
 */
cc_code		cc_json_parse_folded(cc_id_cache *ids, const char *str, size_t len,
								 unsigned char *out, cc_folded *st,
								 bool *tombstone, cc_error *err);

/*
 * Bytes needed for the JSON text of n shards, with the terminating NUL; and
 * of n shards and nf records.
 */
size_t		cc_json_format_capacity(size_t n);
size_t		cc_json_format_folded_capacity(size_t n, size_t nf);

/*
 * Writes the JSON form, as jsonb prints it, and a NUL; returns the length.
 * Of n shards, or of a live folded state.
 */
size_t		cc_json_format(cc_id_cache *ids, const unsigned char *s, size_t n,
						   bool tombstone, char *buf);
size_t		cc_json_format_folded(cc_id_cache *ids, const cc_folded *s,
								  char *buf);

#endif							/* CC_JSON_H */
