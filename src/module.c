/*
 * module.c
 *	  The module of counter_crdt: its magic block, and _PG_init(), which
 *	  defines the settings (counter_crdt.node_id, counter_crdt.binary_format)
 *	  and reserves their prefix.
 */
#include "postgres.h"

#include "type/type_io.h"
#include "writers/retired.h"
#include "writers/writer_ids.h"

#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	cc_node_id_define();
	cc_binary_format_define();
	cc_retired_init();
#if PG_VERSION_NUM >= 150000
	MarkGUCPrefixReserved("counter_crdt");
#else
	EmitWarningsOnPlaceholders("counter_crdt");
#endif
}
