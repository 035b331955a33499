# SPDX-License-Identifier: GPL-2.0
#
# BPF programs: clang -target bpf, then a bpftool skeleton that the loader
# includes. Included by selftests/Makefile, tools/xdp/Makefile and
# tools/bench/Makefile, which set before the include:
#   BPF_OUT    where NAME.bpf.o and NAME.skel.h go (a directory the
#              includer has a rule to make)
#   BPF_SRC    where NAME.bpf.c is
#   BPF_DEPS   what else the objects depend on (headers of their own)
#   BPF_KPTR   the NAMEs (optional) whose programs keep referenced pointers
#              in maps: built with BPF_CLANG_KPTR
# and get:
#   BPF_MISSING  empty when clang, bpftool and libbpf-dev are all there,
#                else what is missing, as a sentence to print
#   BPF_CLANG_KPTR  a clang of version 15 or later, or empty: a map's
#                referenced pointer needs the "kptr_ref" BTF type tag,
#                which clang 14 (Debian 12's clang) drops (Debian 12 has
#                clang-15 beside it: tools/deps.sh installs it)
#   BPFTOOL, BPF_CFLAGS, BPF_LIB_CFLAGS, BPF_LIBS (libbpf's, for loaders)
#   $(BPF_OUT)/NAME.bpf.o and $(BPF_OUT)/NAME.skel.h (skeleton "NAME")

BPF_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
CLANG ?= clang
# bpftool lives in /usr/sbin, which is not on every user's PATH
BPFTOOL ?= $(firstword $(wildcard /usr/sbin/bpftool) $(shell command -v bpftool 2>/dev/null))
BPF_MISSING := $(if $(and $(shell command -v $(CLANG) 2>/dev/null),$(BPFTOOL),\
	$(shell pkg-config --exists libbpf && echo y)),,\
	clang, bpftool or libbpf-dev missing (tools/deps.sh installs them))
# the target's asm/ headers, which <linux/bpf.h> needs, are multiarch
BPF_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror -I$(BPF_TOP)/uapi \
	$(if $(BPF_MULTIARCH),-I/usr/include/$(BPF_MULTIARCH))
BPF_CLANG_KPTR := $(shell for c in $(CLANG) clang-19 clang-18 clang-17 \
	clang-16 clang-15; do v=$$($$c --version 2>/dev/null | \
	sed -n 's/.*clang version \([0-9]*\).*/\1/p'); \
	[ "$${v:-0}" -ge 15 ] && echo $$c && break; done)
BPF_LIB_CFLAGS := $(shell pkg-config --cflags libbpf 2>/dev/null)
BPF_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf)

BPF_CC = $(CLANG)
$(BPF_KPTR:%=$(BPF_OUT)/%.bpf.o): BPF_CC = $(BPF_CLANG_KPTR)
$(BPF_OUT)/%.bpf.o: $(BPF_SRC)/%.bpf.c $(BPF_TOP)/uapi/bloom/bpf.h $(BPF_DEPS) | $(BPF_OUT)
	$(BPF_CC) $(BPF_CFLAGS) -c -o $@ $<

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* >$@.tmp && mv $@.tmp $@

# kept: the object is what a verifier log or bpftool prog dump points at
.PRECIOUS: $(BPF_OUT)/%.bpf.o
