# idgen.mk - the idgen command-line tool (idgen decode, idgen status),
# built from idgen_cli.c with the extension's pure-C layout, epoch, ID-text
# and UUIDv7 code compiled in (from src/, never copied), and libpq.
#
#   make -C gateway -f idgen.mk              build gateway/idgen
#   make -C gateway -f idgen.mk install-idgen   install it into `pg_config --bindir`
#   make -C gateway -f idgen.mk clean-idgen
#
# or `include idgen.mk` in gateway/Makefile and make all/install/clean
# depend on idgen/install-idgen/clean-idgen.  Every variable here starts
# with IDGEN_CLI_ so that it sits beside the daemon's rules.  PG_CONFIG
# picks the PostgreSQL whose libpq and bindir are used.

PG_CONFIG ?= $(firstword $(wildcard /usr/lib/postgresql/15/bin/pg_config) pg_config)
IDGEN_CLI_PQ_INC := $(shell $(PG_CONFIG) --includedir)
IDGEN_CLI_PQ_LIB := $(shell $(PG_CONFIG) --libdir)
IDGEN_CLI_BINDIR := $(shell $(PG_CONFIG) --bindir)
IDGEN_CLI_CORE   = ../src/core
# the extension's version, for --version (gateway/Makefile sets it too)
IDGEN_VERSION ?= $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" ../idgen.control)
IDGEN_CLI_DEFS   = -DIDGEN_VERSION='"$(IDGEN_VERSION)"'
IDGEN_CLI_CFLAGS = -std=c99 -O2 -g -Wall -Wextra -I. -I$(IDGEN_CLI_CORE) -I$(IDGEN_CLI_PQ_INC)

# request parsing and decoding (shared with idgen-gateway), the pure cores
IDGEN_CLI_SRCS = idgen_cli.c gwrequest.c gwjson.c gwsha256.c gwdecode.c \
                 $(IDGEN_CLI_CORE)/layout.c $(IDGEN_CLI_CORE)/epochs.c \
                 $(IDGEN_CLI_CORE)/idtext.c $(IDGEN_CLI_CORE)/uuid7.c

.PHONY: install-idgen clean-idgen

idgen: $(IDGEN_CLI_SRCS) $(wildcard *.h) $(wildcard $(IDGEN_CLI_CORE)/*.h) $(wildcard ../idgen.control)
	$(CC) $(IDGEN_CLI_DEFS) $(IDGEN_CLI_CFLAGS) -o $@ $(IDGEN_CLI_SRCS) -L$(IDGEN_CLI_PQ_LIB) -Wl,-rpath,$(IDGEN_CLI_PQ_LIB) -lpq

install-idgen: idgen
	install -d '$(DESTDIR)$(IDGEN_CLI_BINDIR)'
	install -m 755 idgen '$(DESTDIR)$(IDGEN_CLI_BINDIR)/idgen'

clean-idgen:
	rm -f idgen
