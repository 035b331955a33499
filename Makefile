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
#   make vm CMD=...   run CMD as root in the VM with bloom.ko loaded (and
#                     xt_bloom.ko: iptables -m bloom works there)
#   make bench        benchmarks (tools/bench/)
#   make install      install bloom.ko, libbloom, bloomctl, headers, man pages,
#                     udev rule, bash completion (DESTDIR, PREFIX; see
#                     "Install" below); make uninstall removes them
#   make dkms-install the module's sources in /usr/src/bloom-VERSION for DKMS
#   make deb          Debian packages (debian/): bloom-dkms, bloom-tools,
#                     libbloom1, libbloom-dev in $(BUILD)/deb, checked by
#                     lintian
#   make check-install install into a DESTDIR and build, link and run a
#                     program against it (selftests/install/, with DKMS)
#   make soak         selftests/bloom_soak.c in the VM for SOAK_SECONDS
#                     (default 60): every type, swaps, restores, namespaces
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
# Module BTF is tools/btf.sh's: Kbuild's own step needs a vmlinux that
# Debian's headers do not have, and would only say it skipped.
NO_KBUILD_BTF := CONFIG_DEBUG_INFO_BTF_MODULES=
BUILD ?= $(CURDIR)/build
PREFIX ?= /usr/local
DESTDIR ?=

export BUILD PREFIX DESTDIR

.PHONY: all module tools deps check check-debug demo vm bench soak install clean \
	lint fuzz uninstall dkms-install dkms-uninstall check-install install-userspace deb

all: module tools

module:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): install linux-headers-$(KVER) (or run 'make deps')" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(NO_KBUILD_BTF) modules
	tools/btf.sh module $(KVER) bloom.ko

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
	# all, not only the tools: check.sh's README test runs the README's
	# recipe in make vm, on Debian's kernel, with its bloom.ko and xt_bloom.ko
	$(MAKE) -C $(CURDIR) all
	mkdir -p $(DEBUG_MOD)
	find Kbuild VERSION module uapi \( -name Kbuild -o -name VERSION -o -name '*.[ch]' \) -print | \
		cpio -pdmu --quiet $(DEBUG_MOD)
	nice -n 19 $(MAKE) -C $(DEBUG_KDIR) M=$(DEBUG_MOD) BLOOM_DEBUG=1 modules
	BLOOM_CHECK_UNIT=0 BLOOM_CHECK_INSTALL=0 BLOOM_VM_CMD=selftests/debug-kernel/guest.sh \
	BLOOM_VM_OPTS="--kernel $(DEBUG_KDIR)/arch/x86/boot/bzImage --module $(DEBUG_MOD)/bloom.ko --mem 3G --timeout $(DEBUG_TIMEOUT)" \
		selftests/check.sh

demo: deps
	$(MAKE) -C $(CURDIR) all
	KVER=$$(tools/kver.sh) selftests/vm/run.sh -- tools/demo/demo.sh

# The soak test (selftests/bloom_soak.c) in the VM for SOAK_SECONDS; make
# check runs it for a few seconds among the selftests.
SOAK_SECONDS ?= 60

soak: deps
	$(MAKE) -C $(CURDIR) all
	$(MAKE) -C selftests
	KVER=$$(tools/kver.sh) selftests/vm/run.sh --timeout $$(($(SOAK_SECONDS) * 2 + 600)) \
		-- $(BUILD)/selftests/bloom_soak $(SOAK_SECONDS)

vm:
	@test -n "$$CMD" || { echo "usage: make vm CMD='shell command'" >&2; exit 2; }
	tools/deps.sh
	$(MAKE) -C $(CURDIR) all
	KVER=$$(tools/kver.sh) selftests/vm/run.sh --firewall -- sh -c "$$CMD"

bench:
	tools/deps.sh bench
	$(MAKE) -C $(CURDIR) all
	$(MAKE) -C tools/bench run

fuzz: deps
	$(MAKE) -C tools/fuzz run

# lint.sh finds the kernel tree itself (tools/kver.sh), after deps.sh.
lint: deps
	tools/lint.sh

# --- Install ----------------------------------------------------------------
# Userspace goes under PREFIX (default /usr/local): sbin/bloomctl, lib/
# libbloom.so.MAJOR.MINOR.PATCH with its links and libbloom.a, include/
# libbloom.h and include/linux/bloom.h, lib/pkgconfig/libbloom.pc, share/man
# (tools/lib and tools/bloomctl install those). What the system must find at
# fixed places goes there whatever PREFIX says: the modules under
# /lib/modules/KVER/updates, the udev rule, the sysusers.d entry for the
# group "bloom", the bash completion, systemd units, the xtables plugin.
# DESTDIR prefixes everything; with DESTDIR set, nothing is run on the host
# (no depmod, ldconfig, udevadm or groupadd).
#
# Later parts install by adding to these lists; uninstall removes the same.
VERSION := $(strip $(file <$(CURDIR)/VERSION))
MODDIR ?= /lib/modules/$(KVER)/updates
UDEVRULESDIR ?= /usr/lib/udev/rules.d
SYSUSERSDIR ?= /usr/lib/sysusers.d
SYSTEMDUNITDIR ?= /usr/lib/systemd/system
XTABLESDIR ?= $(shell pkg-config --variable=xtlibdir xtables 2>/dev/null || \
	echo /usr/lib/$$(gcc -print-multiarch)/xtables)
DKMSDIR ?= /usr/src/bloom-$(VERSION)
INSTALL_MODULES := bloom.ko xt_bloom.ko
INSTALL_UDEV_RULES := tools/udev/60-bloom.rules
# generated by tools/systemd (bloomctl's path filled in)
INSTALL_SYSTEMD_UNITS := $(addprefix $(BUILD)/systemd/,bloom-persistent.service \
	bloom-save.service bloom-save.timer bloom-metrics.service bloom-metrics.timer)
INSTALL_XTABLES_LIBS := $(BUILD)/xt/libxt_bloom.so

define install_list # files, directory, mode
	$(if $(strip $(1)),install -d $(DESTDIR)$(2) && install -m $(3) $(1) $(DESTDIR)$(2)/)
endef

install: all install-userspace
	$(call install_list,$(INSTALL_MODULES),$(MODDIR),644)
ifeq ($(DESTDIR),)
	depmod -a $(KVER)
	getent group bloom >/dev/null || groupadd --system bloom
	-udevadm control --reload-rules 2>/dev/null && udevadm trigger --subsystem-match=misc --sysname-match=bloom 2>/dev/null
	ldconfig
endif

# Everything but the modules, and nothing run on the host: debian/rules
# installs this into its staging directory (the modules come from DKMS).
install-userspace: tools
	$(call install_list,$(INSTALL_UDEV_RULES),$(UDEVRULESDIR),644)
	install -D -m 644 tools/udev/bloom.sysusers $(DESTDIR)$(SYSUSERSDIR)/bloom.conf
	$(call install_list,$(INSTALL_SYSTEMD_UNITS),$(SYSTEMDUNITDIR),644)
	$(call install_list,$(INSTALL_XTABLES_LIBS),$(XTABLESDIR),755)
	$(MAKE) -C tools install

uninstall:
	rm -f $(addprefix $(DESTDIR)$(MODDIR)/,$(notdir $(INSTALL_MODULES))) \
		$(addprefix $(DESTDIR)$(UDEVRULESDIR)/,$(notdir $(INSTALL_UDEV_RULES))) \
		$(DESTDIR)$(SYSUSERSDIR)/bloom.conf \
		$(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(INSTALL_SYSTEMD_UNITS))) \
		$(addprefix $(DESTDIR)$(XTABLESDIR)/,$(notdir $(INSTALL_XTABLES_LIBS)))
	$(MAKE) -C tools uninstall
ifeq ($(DESTDIR),)
	depmod -a $(KVER)
	ldconfig
endif

# DKMS builds the module(s) for every kernel with headers, and again after
# kernel upgrades. dkms-install puts the module's sources and dkms.conf
# (PACKAGE_VERSION from VERSION) in /usr/src/bloom-VERSION, then, without
# DESTDIR, adds, builds and installs them for KVER.
DKMS_SOURCES = Kbuild VERSION tools/btf.sh tools/vmlinux.sh \
	$(shell find module uapi \( -name '*.[ch]' -o -name Kbuild \) -print 2>/dev/null)

# debian/rules hands $(BUILD)/dkms.conf to dh_dkms.
$(BUILD)/dkms.conf: dkms.conf.in VERSION
	mkdir -p $(BUILD)
	sed 's/@VERSION@/$(VERSION)/' dkms.conf.in >$@

dkms-install: $(BUILD)/dkms.conf
	install -d $(DESTDIR)$(DKMSDIR)
	tar -cf - $(DKMS_SOURCES) | tar -xf - -C $(DESTDIR)$(DKMSDIR)
	install -m 644 $(BUILD)/dkms.conf $(DESTDIR)$(DKMSDIR)/dkms.conf
ifeq ($(DESTDIR),)
	dkms add -m bloom -v $(VERSION)
	dkms install -m bloom -v $(VERSION) -k $(KVER)
endif

dkms-uninstall:
ifeq ($(DESTDIR),)
	-dkms remove -m bloom -v $(VERSION) --all
endif
	rm -rf $(DESTDIR)$(DKMSDIR)

# Debian packages, built by dpkg-buildpackage from a copy of the tree's files
# (git's list when this is a checkout; build outputs stay out) in
# $(BUILD)/deb/bloom-VERSION, so that the packages land in $(BUILD)/deb;
# then lintian checks them (it fails the build on errors, not on warnings).
DEB_DIR := $(BUILD)/deb
DEB_SRC := $(DEB_DIR)/bloom-$(VERSION)

deb:
	tools/deps.sh deb
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_SRC)
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			tar --null -T - --ignore-failed-read -cf - | tar -xf - -C $(DEB_SRC); \
	else \
		tar --exclude=./build --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
			-cf - . | tar -xf - -C $(DEB_SRC); \
	fi
	cd $(DEB_SRC) && nice -n 10 dpkg-buildpackage -b -us -uc
	lintian --fail-on error --info $(DEB_DIR)/bloom_$(VERSION)_*.changes
	@ls -1 $(DEB_DIR)/*.deb

check-install: all
	tools/deps.sh dkms
	$(MAKE) -C selftests
	BLOOM_TEST_DKMS=1 KVER=$$(tools/kver.sh) selftests/install/test_install.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
