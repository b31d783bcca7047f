/*
 * sql_decode.h - taking a 64-bit ID apart with the layout epoch it was issued under
 */
#ifndef IDGEN_DECODE_H
#define IDGEN_DECODE_H

#include "postgres.h"

#include "core/epochs.h"
#include "core/layout.h"

extern const IdgenEpoch *idgen_decode_id(int64 id, IdgenFields *fields);

#endif							/* IDGEN_DECODE_H */
