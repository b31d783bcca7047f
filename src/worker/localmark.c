/*
 * localmark.c - the node's own durable high-water mark (localmark.h)
 *
 * The file is replaced whole: written beside it, then durable_rename(),
 * so a crash leaves the old note or the new one, never half of one.
 */
#include "worker.h"

#include "storage/fd.h"

#include "localmark.h"

int64
localmark_read(void)
{
	FILE	   *f = AllocateFile(IDGEN_LOCAL_HW_FILE, "r");
	long long	value = -1;

	if (f == NULL)
	{
		if (errno != ENOENT)
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("idgen: could not read \"%s\": %m", IDGEN_LOCAL_HW_FILE)));
		return -1;
	}
	if (fscanf(f, "%lld", &value) != 1 || value < 0)
	{
		ereport(WARNING,
				(errmsg("idgen: ignoring malformed \"%s\"", IDGEN_LOCAL_HW_FILE)));
		value = -1;
	}
	FreeFile(f);
	return (int64) value;
}

void
localmark_set(IdgenWorker *w, int64 mark)
{
	char		tmp[MAXPGPATH];
	FILE	   *f;
	int64		value;

	if (mark <= w->local_hw)
		return;
	value = mark;
	snprintf(tmp, sizeof(tmp), "%s.tmp", IDGEN_LOCAL_HW_FILE);
	f = AllocateFile(tmp, PG_BINARY_W);
	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", tmp)));
	fprintf(f, "%lld\n", (long long) value);
	if (FreeFile(f) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("idgen: could not write \"%s\": %m", tmp)));
	/* durable_rename syncs the file and the directory */
	durable_rename(tmp, IDGEN_LOCAL_HW_FILE, ERROR);
	w->local_hw = value;
}
