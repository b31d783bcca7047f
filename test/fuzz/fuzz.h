/*
 * fuzz.h - shared bits of idgen's libFuzzer targets
 *
 * FUZZ_ASSERT aborts with the broken invariant on stderr, so libFuzzer
 * saves the input that broke it as a crash artifact.
 */
#ifndef IDGEN_FUZZ_H
#define IDGEN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_ASSERT(cond) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", \
					__FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/* reads the fuzzer's bytes front to back; past the end every byte is 0 */
typedef struct FuzzReader
{
	const uint8_t *p;
	size_t		left;
} FuzzReader;

static inline uint8_t
fuzz_u8(FuzzReader *r)
{
	if (r->left == 0)
		return 0;
	r->left--;
	return *r->p++;
}

static inline uint64_t
fuzz_u64(FuzzReader *r)
{
	uint64_t	v = 0;
	int			i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | fuzz_u8(r);
	return v;
}

#endif							/* IDGEN_FUZZ_H */
