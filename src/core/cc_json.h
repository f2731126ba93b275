/*
 * cc_json.h
 *	  The JSON form of counter_crdt (contract 8.2), on JSON text:
 *
 *	  live       {"shards": [{"id": "<uuid>", "clock": <n>, "value": <n>}, ...]}
 *	  tombstone  {"tombstone": true}
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

/* Bytes needed for the JSON text of n shards, with the terminating NUL. */
size_t		cc_json_format_capacity(size_t n);

/* Writes the JSON form, as jsonb prints it, and a NUL; returns the length. */
size_t		cc_json_format(cc_id_cache *ids, const unsigned char *s, size_t n,
						   bool tombstone, char *buf);

#endif							/* CC_JSON_H */
