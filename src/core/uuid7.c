/*
 * uuid7.c - composing and decomposing 128-bit IDs; see uuid7.h
 */
#include "uuid7.h"

void
idgen_uuid7_compose(const IdgenUuid7Fields *f, uint8_t out[IDGEN_UUID7_LEN])
{
	uint64_t	ms = (uint64_t) f->unix_ms & (uint64_t) IDGEN_UUID7_MAX_UNIX_MS;
	uint32_t	node = f->node & ((UINT32_C(1) << IDGEN_UUID7_NODE_BITS) - 1);
	uint32_t	node_hi = node >> 10;	/* 12 bits */
	uint32_t	node_lo = node & 0x3FF;	/* 10 bits */
	uint64_t	random = f->random & ((UINT64_C(1) << IDGEN_UUID7_RANDOM_BITS) - 1);
	/* the low 64 bits: variant, node low, epoch, random */
	uint64_t	low = (UINT64_C(2) << 62) |
		((uint64_t) node_lo << 52) |
		((uint64_t) (f->epoch & 0xF) << 48) |
		random;
	int			i;

	for (i = 0; i < 6; i++)
		out[i] = (uint8_t) (ms >> (40 - 8 * i));
	out[6] = (uint8_t) (0x70 | (node_hi >> 8));
	out[7] = (uint8_t) (node_hi & 0xFF);
	for (i = 0; i < 8; i++)
		out[8 + i] = (uint8_t) (low >> (56 - 8 * i));
}

void
idgen_uuid7_decompose(const uint8_t in[IDGEN_UUID7_LEN], IdgenUuid7Fields *f)
{
	uint64_t	ms = 0;
	uint64_t	low = 0;
	uint32_t	node_hi;
	int			i;

	for (i = 0; i < 6; i++)
		ms = (ms << 8) | in[i];
	node_hi = ((uint32_t) (in[6] & 0x0F) << 8) | in[7];
	for (i = 0; i < 8; i++)
		low = (low << 8) | in[8 + i];

	f->unix_ms = (int64_t) ms;
	f->node = (node_hi << 10) | (uint32_t) ((low >> 52) & 0x3FF);
	f->epoch = (int) ((low >> 48) & 0xF);
	f->random = low & ((UINT64_C(1) << IDGEN_UUID7_RANDOM_BITS) - 1);
}

bool
idgen_uuid7_is_v7(const uint8_t in[IDGEN_UUID7_LEN])
{
	return (in[6] & 0xF0) == 0x70 && (in[8] & 0xC0) == 0x80;
}
