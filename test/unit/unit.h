/*
 * unit.h - the check harness of idgen's pure-C unit tests
 *
 * Each test program includes this header once, calls the CHECK macros and
 * ends main() with "return unit_finish("name");".  A failed check is
 * reported on stderr as it happens (file, line, expression, values and the
 * context last set with unit_context()); the last line on stdout is
 * "name: N passed, M failed", which test/unit/Makefile adds up.
 *
 * Randomized tests draw from unit_rand(), a splitmix64 stream with a fixed
 * seed, so every run checks the same cases and a failure reproduces.
 */
#ifndef IDGEN_UNIT_H
#define IDGEN_UNIT_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* after this many failures stop describing them: a broken loop stays short */
#define UNIT_MAX_REPORTS 25

static unsigned long unit_passed;
static unsigned long unit_failed;
static char unit_ctx[200];

/* Describe what the following checks are looking at ("" to clear). */
static inline void
unit_context(const char *fmt, ...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(unit_ctx, sizeof(unit_ctx), fmt, ap);
	va_end(ap);
}

static inline int
unit_report(int ok, const char *file, int line, const char *expr,
			const char *values)
{
	if (ok)
	{
		unit_passed++;
		return 1;
	}
	unit_failed++;
	if (unit_failed <= UNIT_MAX_REPORTS)
	{
		fprintf(stderr, "%s:%d: check failed: %s", file, line, expr);
		if (values[0] != '\0')
			fprintf(stderr, " [%s]", values);
		if (unit_ctx[0] != '\0')
			fprintf(stderr, " (%s)", unit_ctx);
		fputc('\n', stderr);
	}
	else if (unit_failed == UNIT_MAX_REPORTS + 1)
		fprintf(stderr, "... further failures not shown\n");
	return 0;
}

#define CHECK(cond) \
	((void) unit_report((cond) ? 1 : 0, __FILE__, __LINE__, #cond, ""))

/* CHECK_U64(a, <=, b): a comparison that prints both sides when it fails */
#define CHECK_U64(a, op, b) \
	do { \
		uint64_t	unit_a_ = (uint64_t) (a); \
		uint64_t	unit_b_ = (uint64_t) (b); \
		char		unit_v_[64] = ""; \
		int			unit_ok_ = (unit_a_ op unit_b_); \
		if (!unit_ok_) \
			snprintf(unit_v_, sizeof(unit_v_), "%" PRIu64 " vs %" PRIu64, \
					 unit_a_, unit_b_); \
		(void) unit_report(unit_ok_, __FILE__, __LINE__, \
						   #a " " #op " " #b, unit_v_); \
	} while (0)

#define CHECK_I64(a, op, b) \
	do { \
		int64_t		unit_a_ = (int64_t) (a); \
		int64_t		unit_b_ = (int64_t) (b); \
		char		unit_v_[64] = ""; \
		int			unit_ok_ = (unit_a_ op unit_b_); \
		if (!unit_ok_) \
			snprintf(unit_v_, sizeof(unit_v_), "%" PRId64 " vs %" PRId64, \
					 unit_a_, unit_b_); \
		(void) unit_report(unit_ok_, __FILE__, __LINE__, \
						   #a " " #op " " #b, unit_v_); \
	} while (0)

/* the check functions return NULL for "fine" and a reason otherwise */
#define CHECK_ACCEPTS(reason) \
	do { \
		const char *unit_r_ = (reason); \
		(void) unit_report(unit_r_ == NULL, __FILE__, __LINE__, \
						   #reason " accepts", \
						   unit_r_ != NULL ? unit_r_ : ""); \
	} while (0)

#define CHECK_REFUSES(reason) \
	do { \
		const char *unit_r_ = (reason); \
		(void) unit_report(unit_r_ != NULL && unit_r_[0] != '\0', \
						   __FILE__, __LINE__, #reason " refuses", ""); \
	} while (0)

#define CHECK_STR(a, b) \
	do { \
		const char *unit_a_ = (a); \
		const char *unit_b_ = (b); \
		char		unit_v_[96] = ""; \
		int			unit_ok_ = strcmp(unit_a_, unit_b_) == 0; \
		if (!unit_ok_) \
			snprintf(unit_v_, sizeof(unit_v_), "\"%.40s\" vs \"%.40s\"", \
					 unit_a_, unit_b_); \
		(void) unit_report(unit_ok_, __FILE__, __LINE__, #a " == " #b, \
						   unit_v_); \
	} while (0)

static uint64_t unit_rng_state = UINT64_C(0x1d9e2025c0ffee01);

/* splitmix64: small, fast and good enough to spread test cases */
static inline uint64_t
unit_rand(void)
{
	uint64_t	z = (unit_rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* uniform enough in [0, n) for n > 0; the tiny modulo bias does not matter */
static inline uint64_t
unit_below(uint64_t n)
{
	return unit_rand() % n;
}

/* a value of the given width, biased toward 0, 1 and the maximum */
static inline uint64_t
unit_bits(int bits)
{
	uint64_t	max = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

	switch (unit_below(8))
	{
		case 0:
			return 0;
		case 1:
			return max;
		case 2:
			return max > 0 ? 1 : 0;
		default:
			return unit_rand() & max;
	}
}

static inline int
unit_finish(const char *suite)
{
	printf("%s: %lu passed, %lu failed\n", suite, unit_passed, unit_failed);
	fflush(stdout);
	return unit_failed == 0 ? 0 : 1;
}

#endif							/* IDGEN_UNIT_H */
