/*
 * sql_epoch.h - the layout epochs that decode IDs in this database
 */
#ifndef IDGEN_EPOCH_SQL_H
#define IDGEN_EPOCH_SQL_H

#include "postgres.h"

#include "core/epochs.h"

extern const IdgenEpochList *idgen_epoch_list(void);
extern void idgen_epochs_read_spi(IdgenEpochList *list);
extern void idgen_epochs_from_rows(IdgenEpochList *list, const IdgenEpoch *rows,
								   int nrows);

#endif							/* IDGEN_EPOCH_SQL_H */
