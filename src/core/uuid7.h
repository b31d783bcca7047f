/*
 * uuid7.h - the bit layout of a 128-bit idgen128, a valid RFC 9562 UUIDv7
 *
 * Pure C, no PostgreSQL headers.  Big-endian bit positions:
 *
 *     0-47    Unix time in milliseconds              (unix_ts_ms)
 *     48-51   version, 0111                           (ver)
 *     52-63   node field, high 12 bits                (rand_a)
 *     64-65   variant, 10                             (var)
 *     66-75   node field, low 10 bits                 (rand_b, first 10 bits)
 *     76-79   layout epoch of the node field, 1-15    (rand_b)
 *     80-127  48 bits from pg_strong_random           (rand_b)
 *
 * The node field is the 64-bit layout's region | worker | sequence, 22 bits
 * with the default layout, so a 128-bit ID is unique for the same reason
 * its 64-bit sibling is; the random tail only makes neighbours unguessable.
 * Comparing the bytes (as uuid does) orders IDs by time, then node field,
 * so one node's IDs ascend.
 */
#ifndef IDGEN_UUID7_H
#define IDGEN_UUID7_H

#include <stdbool.h>
#include <stdint.h>

#define IDGEN_UUID7_LEN 16
#define IDGEN_UUID7_NODE_BITS 22
#define IDGEN_UUID7_RANDOM_BITS 48
#define IDGEN_UUID7_MAX_UNIX_MS ((INT64_C(1) << 48) - 1)

typedef struct IdgenUuid7Fields
{
	int64_t		unix_ms;
	uint32_t	node;			/* region | worker | sequence */
	int			epoch;			/* layout epoch, 1-15 */
	uint64_t	random;			/* low 48 bits */
} IdgenUuid7Fields;

extern void idgen_uuid7_compose(const IdgenUuid7Fields *fields,
								uint8_t out[IDGEN_UUID7_LEN]);
extern void idgen_uuid7_decompose(const uint8_t in[IDGEN_UUID7_LEN],
								  IdgenUuid7Fields *fields);

/* version 7 and variant 10: what any UUIDv7 has */
extern bool idgen_uuid7_is_v7(const uint8_t in[IDGEN_UUID7_LEN]);

#endif							/* IDGEN_UUID7_H */
