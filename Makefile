# SPDX-License-Identifier: GPL-2.0
# pcompact: proactive memory compaction for stock Linux kernels.
#
#   make                   pcompact.ko + khugehog.ko for KVER, and frag
#   make KVER=6.1          ... for a cached Debian kernel (6.1, 6.12 or a release)
#   make check             unit tests + VM suites on Debian 6.1 and 6.12
#   make bench             the benchmark (QUICK=1 for the short form)
#   sudo make install      dkms add/build/install for the running kernel
#   sudo make uninstall    dkms remove
#
# KVER defaults to the running kernel when its headers are installed, else to
# the newest Debian 6.12 kernel, fetched into the cache (scripts/fetch-kernel).

SHELL := /bin/bash
TOP := $(CURDIR)
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
W ?= 1

# Resolve KVER to a release and a headers directory only for targets that
# build kernel code, so `make check` and `make clean` need no kernel here.
ifneq ($(filter all modules pcompact khugehog pcompact-faults,$(or $(MAKECMDGOALS),all)),)
KVER_INFO := $(shell scripts/kernel-dir $(KVER))
ifeq ($(KVER_INFO),)
$(error cannot find headers for KVER='$(KVER)': see scripts/kernel-dir)
endif
KREL := $(word 1,$(KVER_INFO))
KDIR := $(word 2,$(KVER_INFO))
BUILD := $(TOP)/build/$(KREL)
endif

.PHONY: all modules pcompact khugehog frag check bench soak install uninstall \
	pcompact-faults \
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
	$(MAKE) -C $(KDIR) M=$(BUILD)/module W=$(W) modules
	@echo "built $(BUILD)/module/pcompact.ko"

khugehog:
	@mkdir -p $(BUILD)
	@mkdir -p $(BUILD)/khugehog && cp -p khugehog/Kbuild khugehog/*.[ch] $(BUILD)/khugehog/
	$(MAKE) -C $(KDIR) M=$(BUILD)/khugehog W=$(W) modules
	@echo "built $(BUILD)/khugehog/khugehog.ko"

frag:
	$(MAKE) -C frag

# The test build with fault injection (module/fault.h), in its own directory
# build/<release>/module-faults/ so it can never be mistaken for the real
# module.
pcompact-faults:
	@mkdir -p $(BUILD)/module-faults && cp -p module/Kbuild module/*.[ch] $(BUILD)/module-faults/
	@cp dkms.conf $(BUILD)/dkms.conf
	$(MAKE) -C $(KDIR) M=$(BUILD)/module-faults W=$(W) PCOMPACT_FAULT_INJECTION=y modules
	@echo "built $(BUILD)/module-faults/pcompact.ko (fault injection: test builds only)"

check:
	@scripts/ensure-deps
	@/usr/bin/python3 scripts/check $(if $(KVERS),--kernels "$(KVERS)") $(if $(TESTS),--tests "$(TESTS)")

# The long soak (tests/vm/9x-soak.sh) and the full 50 modprobe cycles (52)
# on both kernels, outside make check, which runs a one-minute soak and 15
# cycles.  SOAK_MINUTES=N for another length.
soak:
	@scripts/ensure-deps
	@/usr/bin/python3 scripts/check --vm-only --soak-minutes $(or $(SOAK_MINUTES),10) \
		--tests '9?-soak 52-*' $(if $(KVERS),--kernels "$(KVERS)")

bench:
	@scripts/ensure-deps
	@/usr/bin/python3 scripts/bench $(if $(KVER),--kernel $(KVER)) $(if $(QUICK),--quick)

# The tree DKMS copies into /usr/src: dkms.conf and the module sources only.
dkms-src:
	@rm -rf build/dkms-src && mkdir -p build/dkms-src/pcompact-$(VERSION)
	@cp dkms.conf build/dkms-src/pcompact-$(VERSION)/
	@mkdir -p build/dkms-src/pcompact-$(VERSION)/module
	@cp module/Kbuild module/*.[ch] build/dkms-src/pcompact-$(VERSION)/module/
	@echo build/dkms-src/pcompact-$(VERSION)

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
	@scripts/style

kernels:
	@scripts/fetch-kernel 6.1
	@scripts/fetch-kernel 6.12

clean:
	rm -rf build
	-$(MAKE) -C frag clean
	-$(MAKE) -C tests/unit clean

help:
	@sed -n '2,14p' Makefile | sed 's/^# \{0,1\}//'
