# SPDX-License-Identifier: GPL-2.0
#
# BPF programs: clang -target bpf, then a bpftool skeleton that the loader
# includes. Included by selftests/Makefile, tools/xdp/Makefile and
# tools/bench/Makefile, which set before the include:
#   BPF_OUT    where NAME.bpf.o and NAME.skel.h go (a directory the
#              includer has a rule to make)
#   BPF_SRC    where NAME.bpf.c is
#   BPF_DEPS   what else the objects depend on (headers of their own)
# and get:
#   BPF_MISSING  empty when clang, bpftool and libbpf-dev are all there,
#                else what is missing, as a sentence to print
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
BPF_LIB_CFLAGS := $(shell pkg-config --cflags libbpf 2>/dev/null)
BPF_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf)

$(BPF_OUT)/%.bpf.o: $(BPF_SRC)/%.bpf.c $(BPF_TOP)/uapi/bloom/bpf.h $(BPF_DEPS) | $(BPF_OUT)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* >$@.tmp && mv $@.tmp $@

# kept: the object is what a verifier log or bpftool prog dump points at
.PRECIOUS: $(BPF_OUT)/%.bpf.o
