/*
 * writer_ids.h
 *	  This server's writer id and its setting (writer_ids.c).
 */
#ifndef CC_WRITER_IDS_H
#define CC_WRITER_IDS_H

#include "core/cc_base.h"

extern void cc_node_id_define(void);
extern const uint8_t *cc_node_id(void);

#endif							/* CC_WRITER_IDS_H */
