/*
 * type_io.h
 *	  The setting of the binary form that type_io.c's send writes.
 */
#ifndef CC_TYPE_IO_H
#define CC_TYPE_IO_H

/* Defines counter_crdt.binary_format; _PG_init() calls it. */
extern void cc_binary_format_define(void);

#endif							/* CC_TYPE_IO_H */
