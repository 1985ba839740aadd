# SPDX-License-Identifier: GPL-2.0
# pcompact: proactive memory compaction for stock Linux kernels.
#
#   make                   pcompact.ko + khugehog.ko for KVER, and frag
#   make KVER=6.1          ... for a cached Debian kernel: 6.1, 6.12 (Debian 12),
#                          trixie, trixie-backports, sid or a release
#   make check             unit tests, builds, DKMS and VM suites (see README)
#   make check-full        ... with the full VM suite on every kernel
#   make bench             the benchmark (QUICK=1 for the short form; RUNS=N,
#                          SEED=S, ALLOW_OTHER_VMS=1)
#   make deb               pcompact-dkms_<version>_all.deb in build/deb/
#   sudo make install      dkms add/build/install for the running kernel
#   sudo make uninstall    dkms remove
#
# KVER defaults to the running kernel when its headers are installed, else to
# the newest Debian 6.12 kernel, fetched into the cache (scripts/fetch-kernel).
# Debian 13's and unstable's kernels build in a chroot of that release in the
# cache (scripts/chroot-run), made on first use.  Module builds run sparse
# (C=1, every warning an error); C=0 skips it.

SHELL := /bin/bash
TOP := $(CURDIR)
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
W ?= 1
C ?= 1
# sparse's warnings fail the build (a __bitwise mismatch is a bug).
CF ?= -Wsparse-error

# Resolve KVER to a release and a headers directory only for targets that
# build kernel code, so `make check` and `make clean` need no kernel here.
ifneq ($(filter all modules pcompact khugehog pcompact-faults,$(or $(MAKECMDGOALS),all)),)
KVER_INFO := $(shell scripts/kernel-dir $(KVER))
ifeq ($(KVER_INFO),)
$(error cannot find headers for KVER='$(KVER)': see scripts/kernel-dir)
endif
KREL := $(word 1,$(KVER_INFO))
KDIR := $(word 2,$(KVER_INFO))
KENV := $(word 3,$(KVER_INFO))
BUILD := $(TOP)/build/$(KREL)
# Where kbuild runs: on the host, or in the kernel's Debian chroot.
KRUN := $(if $(filter-out host,$(KENV)),$(TOP)/scripts/chroot-run $(KENV) --kernel $(KREL) --)
ifneq ($(C),0)
ifeq ($(KRUN),)
ifeq ($(shell command -v sparse),)
$(error sparse is missing: apt-get install sparse (or make C=0 to build without it))
endif
endif
endif
KMAKE := $(KRUN) $(MAKE) -C $(KDIR) W=$(W) C=$(C) CF=$(CF)
endif

.PHONY: all modules pcompact khugehog frag check check-full bench bench-extra bench-scale \
	soak install uninstall pcompact-faults deb \
	dkms-src style kernels clean help

all: modules frag

modules: pcompact khugehog

# kbuild writes its objects next to the sources, so every kernel gets its own
# copy of the tree under build/<release>/ (laid out like the DKMS source tree:
# module/ beside dkms.conf, where module/Kbuild reads the version).
pcompact:
	@mkdir -p $(BUILD)
	@mkdir -p $(BUILD)/module && cp -p module/Kbuild module/*.[ch] $(BUILD)/module/
	@cp dkms.conf $(BUILD)/dkms.conf
	$(KMAKE) M=$(BUILD)/module modules
	@echo "built $(BUILD)/module/pcompact.ko"

khugehog:
	@mkdir -p $(BUILD)
	@mkdir -p $(BUILD)/khugehog && cp -p khugehog/Kbuild khugehog/*.[ch] $(BUILD)/khugehog/
	$(KMAKE) M=$(BUILD)/khugehog modules
	@echo "built $(BUILD)/khugehog/khugehog.ko"

frag:
	$(MAKE) -C frag

# The test build with fault injection (module/fault.h), in its own directory
# build/<release>/module-faults/ so it can never be mistaken for the real
# module.
pcompact-faults:
	@mkdir -p $(BUILD)/module-faults && cp -p module/Kbuild module/*.[ch] $(BUILD)/module-faults/
	@cp dkms.conf $(BUILD)/dkms.conf
	$(KMAKE) M=$(BUILD)/module-faults PCOMPACT_FAULT_INJECTION=y modules
	@echo "built $(BUILD)/module-faults/pcompact.ko (fault injection: test builds only)"

# KVERS: the kernels for the whole VM suite (default: Debian 12's 6.1,
# Debian 13's 6.12 and trixie-backports' 7.x); SMOKE_KVERS: kernels for build,
# DKMS and the smoke subset (default: Debian 12's 6.12, the same source as
# Debian 13's, and sid's 7.x; none when KVERS is given).
# TESTS: only the guest tests matching these globs.
check:
	@scripts/ensure-deps
	@/usr/bin/python3 scripts/check $(if $(KVERS),--kernels "$(KVERS)" --smoke-kernels "$(SMOKE_KVERS)",$(if $(SMOKE_KVERS),--smoke-kernels "$(SMOKE_KVERS)")) \
		$(if $(TESTS),--tests "$(TESTS)")

# The whole VM suite on all five kernels (6.1, 6.12, trixie, trixie-backports,
# sid): longer than make check's 45 minutes.
check-full:
	@scripts/ensure-deps
	@/usr/bin/python3 scripts/check --full $(if $(TESTS),--tests "$(TESTS)")

# The long soak (tests/vm/9x-soak.sh), 20 insmod cycles (43) and 50 modprobe
# cycles (52) on both kernels, outside make check, which runs a one-minute
# soak, 8 and 15 cycles.  SOAK_MINUTES=N for another length.
soak:
	@scripts/ensure-deps
	@/usr/bin/python3 scripts/check --vm-only --soak-minutes $(or $(SOAK_MINUTES),10) \
		--tests '9?-soak 43-* 52-*' --kernels "$(or $(KVERS),6.1 6.12)" --smoke-kernels ""

BENCH_SHAPE_ARGS = $(if $(filter 1x2,$(SHAPE)),--nodes 1 --cpus 2,$(if $(filter 2x1,$(SHAPE)),--nodes 2 --cpus 2,$(if $(SHAPE),$(error SHAPE must be 2x1 or 1x2))))

bench:
	@scripts/ensure-deps
	@/usr/bin/python3 scripts/bench $(if $(KVER),--kernel $(KVER)) $(if $(QUICK),--quick) \
		$(if $(RUNS),--runs $(RUNS)) $(if $(SEED),--seed $(SEED)) \
		$(if $(ALLOW_OTHER_VMS),--allow-other-vms) $(BENCH_SHAPE_ARGS) \
		$(if $(SHAPE),--out results/shape-$(SHAPE))

# Beyond make bench's hour (about 5 runs x 14 boots of 2-6 minutes, per
# kernel): the rate sweep (with sweep-manual, the floor of its "within 2x
# the manual floor" clause), the gfp=thp / gfp=light streams, sized
# repeated bursts (with manual, whose p50 is their target's floor) and
# Debian's init_on_alloc=1.  SHAPE=1x2 (make bench too): one
# node with 2 CPUs instead of 2 nodes with 1 CPU each.
bench-extra:
	@scripts/ensure-deps
	@/usr/bin/python3 scripts/bench $(if $(KVER),--kernel $(KVER)) --runs $(or $(RUNS),5) \
		--scenarios sweep-vanilla,sweep-kernel,sweep-pcompact,sweep-manual,gfp-vanilla,gfp-kernel,gfp-pcompact,bursts-vanilla,bursts-kernel,bursts-pcompact,manual,vanilla-ioa1,kernel-ioa1,pcompact-ioa1 \
		--extra-runs $(or $(RUNS),5) --budget-min 330 --out results/extra$(if $(SHAPE),-$(SHAPE)) \
		$(BENCH_SHAPE_ARGS) $(if $(SEED),--seed $(SEED)) $(if $(ALLOW_OTHER_VMS),--allow-other-vms)

# Cost of scale: the kernel's and pcompact's scan cost at 2, 8 and 16 GiB
# (one node, 2 CPUs), per GiB in each report (pcompact time per round,
# kcompactd pages scanned); results/scale-<size>/.  Long: the 16 GiB boots
# take several minutes each under TCG.
bench-scale:
	@scripts/ensure-deps
	@for m in 2G 8G 16G; do \
		/usr/bin/python3 scripts/bench $(if $(KVER),--kernel $(KVER)) --runs $(or $(RUNS),3) \
			--scenarios kernel,pcompact --nodes 1 --cpus 2 --mem $$m --timeout 2400 \
			--budget-min 120 --out results/scale-$$m $(if $(SEED),--seed $(SEED)) \
			$(if $(ALLOW_OTHER_VMS),--allow-other-vms) || exit 1; \
	done

# The tree DKMS copies into /usr/src: dkms.conf and the module sources only.
dkms-src:
	@rm -rf build/dkms-src && mkdir -p build/dkms-src/pcompact-$(VERSION)
	@cp dkms.conf build/dkms-src/pcompact-$(VERSION)/
	@mkdir -p build/dkms-src/pcompact-$(VERSION)/module
	@cp module/Kbuild module/*.[ch] build/dkms-src/pcompact-$(VERSION)/module/
	@echo build/dkms-src/pcompact-$(VERSION)

# The Debian package pcompact-dkms_<version>_all.deb in build/deb/ (debhelper
# with dh_dkms, lintian-clean), for Debian 12 and 13.
deb:
	@scripts/ensure-deps
	@scripts/make-deb

install: dkms-src
	@[ "$$(id -u)" = 0 ] || { echo "make install: run as root (dkms installs into /lib/modules)"; exit 1; }
	dkms add build/dkms-src/pcompact-$(VERSION)
	dkms build pcompact/$(VERSION) -k $$(uname -r)
	dkms install pcompact/$(VERSION) -k $$(uname -r)

uninstall:
	@[ "$$(id -u)" = 0 ] || { echo "make uninstall: run as root"; exit 1; }
	-modprobe -r pcompact
	dkms remove pcompact/$(VERSION) --all

style:
	@scripts/ensure-deps
	@scripts/check --style-only --out build/style

kernels:
	@for k in 6.1 6.12 trixie trixie-backports sid; do scripts/fetch-kernel $$k || exit 1; done

clean:
	rm -rf build
	-$(MAKE) -C frag clean
	-$(MAKE) -C tests/unit clean

help:
	@sed -n '2,19p' Makefile | sed 's/^# \{0,1\}//'
