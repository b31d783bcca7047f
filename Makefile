# idgen - PGXS build.  `make demo` and `make test` install what they need,
# the gateway included.

EXTENSION  = idgen
EXTVERSION = 0.9

# the header rule below comes before PGXS's own targets: plain `make` still
# means `make all`
.DEFAULT_GOAL := all

MODULE_big = idgen
# the layers, by folder (docs/development.md): src/core/ pure C shared with
# the gateway, src/adt/ the SQL-callable types and functions, src/worker/
# the background worker and its lease client, and the node runtime in src/
CORE_OBJS   = $(patsubst %.c,%.o,$(sort $(wildcard src/core/*.c)))
ADT_OBJS    = $(patsubst %.c,%.o,$(sort $(wildcard src/adt/*.c)))
WORKER_OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/worker/*.c)))
NODE_OBJS   = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))
OBJS = $(NODE_OBJS) $(ADT_OBJS) $(WORKER_OBJS) $(CORE_OBJS)
# The SQL scripts (docs/development.md, "Where the SQL lives"), all in sql/.
# The install script of EXTVERSION, the one a fresh CREATE EXTENSION runs,
# is assembled from the topic pieces sql/install/NN_*.sql in the order of
# their numbers; the upgrade scripts, for ALTER EXTENSION UPDATE, are made
# from their templates in sql/updates/; sql/idgen--0.1.sql, the oldest
# install, is kept as it was.  The long functions are written once, in
# sql/udfs/<function>/<version>.sql, and included (an "\ir" line, expanded by
# scripts/sql_include.sh).  test/sql/upgrade.sql checks that a fresh install
# and the walked chain give the same objects.
SQL_INSTALL = $(sort $(wildcard sql/install/[0-9][0-9]_*.sql))
SQL_UPDATES = $(patsubst sql/updates/%,sql/%,$(wildcard sql/updates/$(EXTENSION)--*--*.sql))
SQL_UDFS    = $(wildcard sql/udfs/*/*.sql)
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql $(SQL_UPDATES)
DATA = sql/$(EXTENSION)--0.1.sql
# PGXS tracks no header dependencies: rebuild everything when a header changes
$(OBJS): $(wildcard src/*.h src/*/*.h)
PGFILEDESC = "idgen - unique, time-sortable IDs"

# test/sql/*.sql with test/expected/*.out, in one database: setup checks the
# installation pg_regress made, so it runs first; idgen_layout adds layouts
# the others' outputs do not expect, so it runs last
REGRESS_FIRST = setup
REGRESS_LAST  = idgen_layout
REGRESS      = $(REGRESS_FIRST) \
               $(filter-out $(REGRESS_FIRST) $(REGRESS_LAST),$(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))) \
               $(REGRESS_LAST)
REGRESS_OPTS = --inputdir=test --load-extension=idgen
ISOLATION    = generate_concurrent batch_key_concurrent mask_rotation
ISOLATION_OPTS = --inputdir=test
# specs that lease workers run in the registry database, postgres, where the
# background worker creates the extension by itself
ISOLATION_REGISTRY = lease_concurrent region_lease_concurrent
TAP_TESTS    = 1
# The TAP files run TAP_JOBS at a time (test/t/README.md): each has its own
# clusters, ports (from get_free_port, whose lock files in tmp_check/portlock
# the files of a run share) and directories, and most of their time is spent
# waiting on timers, not on the CPU.  TAP_FIRST, the longest files, start
# first so that the short ones fill the gaps; TAP_SERIAL run after all the
# others, one at a time and alone.  TAP_JOBS=1 runs them all one by one.
TAP_JOBS    ?= 4
TAP_FIRST    = test/t/180_rolling_upgrade.pl test/t/081_registry_dump.pl \
               test/t/104_fleet_ride_through.pl test/t/111_patroni_outage.pl \
               test/t/160_gateway_lease_client.pl test/t/022_clock_jump.pl \
               test/t/041_lease_expiry.pl test/t/107_fleet_lost_fence.pl \
               test/t/192_region_cutoff.pl test/t/190_regional_registry.pl \
               test/t/191_region_handoff.pl test/t/193_regional_patroni.pl \
               test/t/031_failover_timelines.pl test/t/063_layout_restart.pl \
               test/t/165_gateway_registry_lock.pl test/t/021_clock_source.pl \
               test/t/101_fleet_outage.pl test/t/042_audit_text.pl \
               test/t/158_gateway_hold_floor.pl test/t/110_patroni_failover.pl \
               test/t/120_gateway.pl test/t/103_fleet_layout.pl \
               test/t/167_gateway_key_records.pl test/t/150_registry_restore_logical.pl \
               test/t/151_registry_restore_physical.pl test/t/171_gateway_options.pl
TAP_SERIAL   = test/t/011_crash_under_load.pl test/t/170_gateway_slowloris.pl
PROVE_TESTS  = $(TAP_FIRST) $(filter-out $(TAP_FIRST),$(sort $(wildcard test/t/*.pl)))
# in PROVE_TESTS' order, which prove's scheduler follows; TAP_EXCLUDE: files
# a caller runs apart (make test: 180, once the previous release is built)
TAP_EXCLUDE ?=
TAP_PARALLEL = $(filter-out $(TAP_SERIAL) $(TAP_EXCLUDE),$(PROVE_TESTS))

# -Wno-unused-parameter: PostgreSQL's own headers (ilist.h, bufpage.h) and the fmgr
# calling convention leave parameters unused; every other -Wextra warning is on.
PG_CFLAGS = -Wall -Wextra -Wno-unused-parameter

# the background worker reaches a shared registry (idgen.registry) through
# libpq, as contrib/postgres_fdw and dblink do
PG_CPPFLAGS = -I$(srcdir)/src -I$(libpq_srcdir)
SHLIB_LINK_INTERNAL = $(libpq)

# The default target is PostgreSQL 15 (Debian 12); 17 and 18 are tested too
# (scripts/versions.sh): make PG_CONFIG=/usr/lib/postgresql/17/bin/pg_config.
PG_CONFIG ?= $(firstword $(wildcard /usr/lib/postgresql/15/bin/pg_config) pg_config)
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)

ifneq ($(wildcard $(PGXS)),)
include $(PGXS)

# after the include, which empties PROVE_FLAGS; added to any given on the
# command line (PROVE_FLAGS=--timer), where a -j wins over TAP_JOBS
TAP_GIVEN_FLAGS := $(PROVE_FLAGS)
override PROVE_FLAGS += $(if $(filter -j%,$(TAP_GIVEN_FLAGS)),,-j$(TAP_JOBS)) \
                        $(addprefix --rules=par=,$(TAP_PARALLEL))
else
# No server headers yet (a fresh machine): only demo and test, which install them.
all install installcheck:
	@echo "PostgreSQL server development files are missing: run 'make demo' or 'make test', or install postgresql-server-dev-15." >&2; exit 1
endif

sql/$(EXTENSION)--$(EXTVERSION).sql: $(SQL_INSTALL) $(SQL_UDFS) scripts/sql_include.sh
	$(SHELL) scripts/sql_include.sh $(SQL_INSTALL) > $@.tmp && mv $@.tmp $@

sql/$(EXTENSION)--%.sql: sql/updates/$(EXTENSION)--%.sql $(SQL_INSTALL) $(SQL_UDFS) scripts/sql_include.sh
	$(SHELL) scripts/sql_include.sh $< > $@.tmp && mv $@.tmp $@

# idgen-gateway, the HTTP daemon, and the idgen command-line tool
# (gateway/Makefile) need libmicrohttpd as well, so plain `make` and `make
# install` leave them out: the extension builds with the server headers and
# libpq only.  `make gateway` builds them (and says so in one line if
# libmicrohttpd-dev is missing), `make gateway-install` puts them into
# `pg_config --bindir` and monitoring/ into `pg_config --sharedir`/idgen/monitoring.
.PHONY: gateway gateway-install gateway-clean
clean: gateway-clean
gateway:
	$(MAKE) -C gateway PG_CONFIG=$(PG_CONFIG)
gateway-install: gateway
	$(MAKE) -C gateway PG_CONFIG=$(PG_CONFIG) install
gateway-clean:
	$(MAKE) -C gateway clean

.PHONY: deps demo test unit fuzz bench sanitize model docs-graph

deps:
	@scripts/deps.sh

demo: deps
	$(MAKE) all gateway
	$(MAKE) install gateway-install
	scripts/demo.sh

# make test prints each build step's seconds and, through scripts/test.sh,
# each layer's, all timed from IDGEN_TEST_T0, the start of make test
timed = s=$$(date +%s); $(2); rc=$$?; \
	echo "--- $(1): $$(($$(date +%s) - s)) s, ended at $$(($$(date +%s) - $$IDGEN_TEST_T0)) s from the start"; \
	exit $$rc

NPROC := $(shell nproc 2>/dev/null || echo 2)
test: export IDGEN_TEST_T0 := $(shell date +%s)
test:
	@$(call timed,deps (scripts/deps.sh),scripts/deps.sh)
	@$(call timed,build (make -j$(NPROC) all gateway),$(MAKE) -j$(NPROC) all gateway)
	@$(call timed,install (make install gateway-install),$(MAKE) install gateway-install)
	scripts/test.sh

unit:
	$(MAKE) -C test/unit run

fuzz:
	$(MAKE) -C test/fuzz run

# the lease protocol model src/lease.pml, checked exhaustively with SPIN
model:
	scripts/model_check.sh

# docs/layers.svg, the picture of the layers in docs/development.md, drawn
# with Graphviz from the include graph
docs-graph:
	python3 scripts/include_graph.py --dot | dot -Tsvg -o docs/layers.svg

bench: deps
	$(MAKE) all gateway
	$(MAKE) install gateway-install
	bench/run.sh

# The PGXN release archive idgen-<META.json version>.zip: git archive of HEAD
# (a tree without .git: the tree itself); DISTDIR=dir puts it elsewhere.
.PHONY: dist
dist:
	@scripts/dist.sh $(DISTDIR)

# The Debian packages postgresql-{15,17,18}-idgen_<default_version>_<arch>.deb
# and idgen-gateway_<default_version>_<arch>.deb (the gateway, idgen and
# monitoring/), built by dpkg-buildpackage with pg_buildext (debian/) in a
# scratch copy of the tree, 15 and the gateway here and 17 and 18 in their
# Debian chroots (as root; otherwise 15 only); DEBDIR=dir puts them
# elsewhere than the top of the tree.
.PHONY: deb
deb:
	@scripts/deb.sh $(DEBDIR)

# The committed tree on PostgreSQL 15, 17 and 18: a -Werror build here, and
# in Debian 13 and unstable chroots (kept in /var/cache/idgen-chroots) the
# build, regress, isolation and a set of TAP files (scripts/versions.sh);
# make test runs it as a layer too.  Needs root.
.PHONY: versions
versions:
	scripts/versions.sh

# regress and isolation against idgen.so built with ASan and UBSan, in a scratch
# copy of PostgreSQL (scripts/sanitize.sh); make test runs it as a layer too
sanitize: deps
	scripts/sanitize.sh

# The layers of installcheck one at a time, each against its own throwaway
# cluster with idgen preloaded (scripts/test.sh runs them as postgres).
TEMP_OPTS = --temp-config=$(CURDIR)/test/regress.conf

.PHONY: installcheck-regress-only installcheck-isolation-only installcheck-tap-only
installcheck-regress-only: install-check-prep
	$(pg_regress_installcheck) $(REGRESS_OPTS) --temp-instance=$(CURDIR)/tmp_regress $(TEMP_OPTS) $(REGRESS)

installcheck-isolation-only: install-check-prep
	$(pg_isolation_regress_installcheck) $(ISOLATION_OPTS) --temp-instance=$(CURDIR)/tmp_isolation $(TEMP_OPTS) $(ISOLATION)
	$(pg_isolation_regress_installcheck) $(ISOLATION_OPTS) --temp-instance=$(CURDIR)/tmp_isolation_registry $(TEMP_OPTS) --use-existing --dbname=postgres $(ISOLATION_REGISTRY)

installcheck-tap-only: install-check-prep
	$(prove_installcheck)

# the same in two parts, for make test (scripts/test.sh): the files that run
# TAP_JOBS at a time, beside the computing layers, and then TAP_SERIAL alone
# once those are done; each part starts a fresh tmp_check
.PHONY: installcheck-tap-parallel installcheck-tap-serial
installcheck-tap-parallel: install-check-prep
	$(MAKE) installcheck-tap-only PROVE_TESTS="$(TAP_PARALLEL)"

installcheck-tap-serial: install-check-prep
	$(MAKE) installcheck-tap-only PROVE_TESTS="$(TAP_SERIAL)" TAP_JOBS=1

install-check-prep:
	@true
