#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prints the kernel release to build bloom.ko for: $KVER if set; else the
# running kernel when it has a build tree (a real host); else the newest
# installed kernel with a build tree (a build or CI machine, whose running
# kernel cannot load modules: that newest kernel is also the one the test VM
# boots).
if [ -n "$KVER" ]; then
	echo "$KVER"
elif [ -d "/lib/modules/$(uname -r)/build" ]; then
	uname -r
else
	ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1 | cut -d/ -f4
fi
