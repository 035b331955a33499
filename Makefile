# SPDX-License-Identifier: GPL-2.0
#
# bloom: thin top-level Makefile; the work is delegated to Kbuild (the
# module), tools/ (core library, libbloom, bloomctl, benchmarks) and
# selftests/ (unit tests, kselftests and the QEMU harness).
#
#   make              build bloom.ko and the userspace tools
#   make check        all tests: userspace unit tests, then the selftests in
#                     the QEMU VM; ends with "N passed, N failed"
#   make check-debug  the VM selftests on a debug kernel (KASAN, kmemleak,
#                     lockdep, UBSAN, ...) built once from linux-source-6.1
#                     and cached (selftests/debug-kernel/README)
#   make demo         the main job, in the VM: a blacklist of 1,000,000 keys
#   make vm CMD=...   run CMD as root in the VM with bloom.ko loaded
#   make bench        benchmarks (tools/bench/)
#   make install      install bloom.ko, libbloom, bloomctl, headers, man pages
#   make fuzz         libFuzzer (ASan+UBSan) on the filter core for
#                     FUZZ_SECONDS (default 600) (tools/fuzz/)
#   make lint         checkpatch --strict, sparse, W=1, uapi as C90/C++
#                     (tools/lint.sh)
#
# On a machine without the toolchain, the kernel headers or QEMU, "make
# check", "make demo" and "make vm" install them first (Debian, as root).

# The kernel to build for. On a real host that is the running kernel; on a
# machine whose running kernel has no headers (a build or CI machine) it is
# the newest kernel with a build tree, which is also the one the VM boots.
KVER ?= $(shell tools/kver.sh)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= $(CURDIR)/build
PREFIX ?= /usr/local
DESTDIR ?=

export BUILD PREFIX DESTDIR

.PHONY: all module tools deps check check-debug demo vm bench install clean \
	lint fuzz

all: module tools

module:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): install linux-headers-$(KVER) (or run 'make deps')" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C tools

deps:
	tools/deps.sh

# Sub-makes, so that KVER is computed again once deps.sh installed a kernel.
check: deps
	$(MAKE) -C $(CURDIR) all
	KVER=$$(tools/kver.sh) selftests/check.sh

# The debug kernel's tree is KDIR for a second bloom.ko, built from a copy of
# the module's sources in $(BUILD)/debug-module (Kbuild writes objects next to
# the sources: the normal bloom.ko stays as it is). Times: README there.
DEBUG_KCACHE ?= $(or $(BLOOM_DEBUG_KERNEL_CACHE),/var/cache/bloom/debug-kernel)
DEBUG_KDIR := $(DEBUG_KCACHE)/src
DEBUG_MOD := $(BUILD)/debug-module
DEBUG_TIMEOUT ?= 7200

check-debug:
	tools/deps.sh debug
	BLOOM_DEBUG_KERNEL_CACHE=$(DEBUG_KCACHE) selftests/debug-kernel/build.sh
	$(MAKE) -C $(CURDIR) tools
	mkdir -p $(DEBUG_MOD)
	find Kbuild VERSION module uapi \( -name Kbuild -o -name VERSION -o -name '*.[ch]' \) -print | \
		cpio -pdmu --quiet $(DEBUG_MOD)
	nice -n 19 $(MAKE) -C $(DEBUG_KDIR) M=$(DEBUG_MOD) modules
	BLOOM_CHECK_UNIT=0 BLOOM_VM_CMD=selftests/debug-kernel/guest.sh \
	BLOOM_VM_OPTS="--kernel $(DEBUG_KDIR)/arch/x86/boot/bzImage --module $(DEBUG_MOD)/bloom.ko --mem 3G --timeout $(DEBUG_TIMEOUT)" \
		selftests/check.sh

demo: deps
	$(MAKE) -C $(CURDIR) all
	KVER=$$(tools/kver.sh) selftests/vm/run.sh -- tools/demo/demo.sh

vm:
	@test -n "$$CMD" || { echo "usage: make vm CMD='shell command'" >&2; exit 2; }
	tools/deps.sh
	$(MAKE) -C $(CURDIR) all
	KVER=$$(tools/kver.sh) selftests/vm/run.sh -- sh -c "$$CMD"

bench:
	tools/deps.sh bench
	$(MAKE) -C $(CURDIR) all
	$(MAKE) -C tools/bench run

fuzz: deps
	$(MAKE) -C tools/fuzz run

# lint.sh finds the kernel tree itself (tools/kver.sh), after deps.sh.
lint: deps
	tools/lint.sh

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	$(MAKE) -C tools install

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
