/*
 * siphash.h - SipHash-2-4, the keyed 64-bit pseudorandom function of
 * Aumasson and Bernstein ("SipHash: a fast short-input PRF", 2012)
 *
 * Pure C, no PostgreSQL headers.  A 128-bit key and a message of any
 * length give 64 bits.  As in the paper, the key's 16 bytes are read as two
 * little-endian words k0 and k1, and the output's 8 bytes are the result
 * word written little-endian: idgen_siphash24_bytes() gives exactly the
 * byte strings the paper's appendix lists.
 *
 * SipHash is a PRF, not a hash for untrusted keys: whoever knows the key
 * can make collisions.  idgen uses it only under secret keys (mask.c).
 */
#ifndef IDGEN_SIPHASH_H
#define IDGEN_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define IDGEN_SIPHASH_KEY_LEN 16
#define IDGEN_SIPHASH_OUT_LEN 8

/* the output as a number: byte i of the paper's output is bits 8i..8i+7 */
extern uint64_t idgen_siphash24(const uint8_t key[IDGEN_SIPHASH_KEY_LEN],
								const void *msg, size_t len);

/* the output as the paper writes it, 8 bytes, least significant first */
extern void idgen_siphash24_bytes(const uint8_t key[IDGEN_SIPHASH_KEY_LEN],
								  const void *msg, size_t len,
								  uint8_t out[IDGEN_SIPHASH_OUT_LEN]);

#endif							/* IDGEN_SIPHASH_H */
