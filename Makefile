# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# siw: software iWARP RNIC, built out of tree.
#
#   make                 build siw/siw.ko against KDIR
#   make kverbs          build the kernel verbs test module (selftests/kverbs)
#   make check           install what is missing, build, run host and in-VM tests
#   make check-all       make check on every target kernel (TARGETS), one summary
#   make fuzz            fuzz the protocol core, FUZZ_TIME seconds per target
#   make demo            boot a VM and show siw between two network namespaces
#   make walkthrough     rewrite the excerpts in Documentation/protocol.rst
#                        and debugging.rst from a fresh run
#   make shell           an interactive shell in the test VM
#   make install         install the module (DKMS when present)
#   make uninstall       remove it again
#
# KVER selects the Debian kernel of the test VM: 6.1 (bookworm, the
# default), 6.12 (trixie) or 7.2 (sid; KVER=sid follows it).
# DEBUG=1 runs check, shell and demo on the debug build of the 6.1 kernel
# (scripts/debug-kernel.sh: lockdep, KASAN, kmemleak...).
# T="test ..." runs only the named in-VM tests. INTEROP=0 leaves the
# interoperability run with upstream siw out of the whole suite.

KVER ?= 6.1
DEBUG ?= 0
INTEROP ?=
FUZZ_TIME ?= 300
# The running kernel's build tree when there is one, otherwise Debian's
# linux-headers-$(KVER).*-amd64 under /usr/src.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-$(KVER).*-amd64))))
PACKAGE_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

all: modules

modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "No kernel build tree: set KDIR, or install the headers: apt-get install linux-headers-amd64" >&2; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/siw modules

# A test module, never installed: 87-kverbs.sh loads it in the test VM.
kverbs:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "No kernel build tree: set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/kverbs modules

check:
	KVER=$(KVER) DEBUG=$(DEBUG) T="$(T)" INTEROP=$(INTEROP) selftests/check.sh

# Every target's whole suite (about 65 to 70 minutes each without KVM); for
# trixie's PREEMPT_RT kernel the parts that test what RT changes.
TARGETS ?= 6.1 6.12 sid 6.12-rt=traffic,hostile,faults,kverbs
check-all:
	scripts/check-targets.sh $(TARGETS)

# The benchmark (not part of check: these machines are noisy): siw against
# raw TCP and rdma_rxe in one boot, then NVMe-oF, guest profiles and many
# QPs at once (scale, with upstream siw beside), then
# siw and TCP between two guests; writes bench/results.md and
# bench/bandwidth.png. BENCH_REPS, BENCH_SECS tune it.
bench:
	KVER=$(KVER) selftests/bench-vm.sh perf nvme profile scale twovm

fuzz:
	scripts/deps.sh $(KVER)
	$(MAKE) -s -C selftests/fuzz run FUZZ_TIME=$(FUZZ_TIME)

demo:
	KVER=$(KVER) DEBUG=$(DEBUG) selftests/demo-vm.sh

walkthrough:
	KVER=$(KVER) T=walkthrough WALKTHROUGH_WRITE=1 selftests/check.sh

shell:
	KVER=$(KVER) DEBUG=$(DEBUG) selftests/shell-vm.sh

# DKMS builds for the running kernel, or for DKMS_KVER when given (the
# tests install into a release's tree for the guest's kernel). Sources
# only go to /usr/src: no object of a build here for another kernel.
DKMS_KVER ?=
install:
	@if command -v dkms >/dev/null; then \
		set -e; \
		rm -rf /usr/src/siw-$(PACKAGE_VERSION); \
		mkdir -p /usr/src/siw-$(PACKAGE_VERSION); \
		tar -c --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
			--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.cmd' \
			--exclude=modules.order --exclude=Module.symvers \
			dkms.conf siw uapi | tar -x -C /usr/src/siw-$(PACKAGE_VERSION); \
		dkms add -m siw -v $(PACKAGE_VERSION); \
		dkms install -m siw -v $(PACKAGE_VERSION) $(if $(DKMS_KVER),-k $(DKMS_KVER)); \
	else \
		$(MAKE) modules && \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/siw modules_install && depmod -a; \
	fi

uninstall:
	@if command -v dkms >/dev/null && dkms status -m siw -v $(PACKAGE_VERSION) | grep -q siw; then \
		dkms remove -m siw -v $(PACKAGE_VERSION) --all; \
		rm -rf /usr/src/siw-$(PACKAGE_VERSION); \
	else \
		rm -f /lib/modules/$(shell uname -r)/updates/siw.ko \
		      /lib/modules/$(shell uname -r)/extra/siw.ko && depmod -a; \
	fi

clean:
	@if [ -n "$(KDIR)" ] && [ -d "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/siw clean; \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/kverbs clean; fi
	$(MAKE) -C selftests/host clean
	$(MAKE) -C selftests/fuzz clean

distclean: clean
	rm -rf build

.PHONY: all modules kverbs check check-all bench fuzz demo walkthrough shell install uninstall clean distclean
