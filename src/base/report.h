/*
 * report.h
 *	  Core errors (core/cc_base.h) as PostgreSQL errors (report.c), and the
 *	  mark of a function that does not return on every version.
 */
#ifndef CC_REPORT_H
#define CC_REPORT_H

#include "postgres.h"

#include "core/cc_base.h"

/*
 * A function that does not return: PostgreSQL 18 marks it before the
 * declaration (pg_noreturn), earlier versions after it.  Before all of it,
 * storage class included: 19 built as C23 makes pg_noreturn [[noreturn]],
 * an attribute that may only start a declaration.
 */
#ifdef pg_noreturn
#define CC_NORETURN pg_noreturn
#define CC_NORETURN_AFTER
#else
#define CC_NORETURN
#define CC_NORETURN_AFTER pg_attribute_noreturn()
#endif

CC_NORETURN extern void cc_report(const cc_error *err, const char *input) CC_NORETURN_AFTER;
CC_NORETURN extern void cc_corrupt(const cc_error *err) CC_NORETURN_AFTER;

#endif							/* CC_REPORT_H */
