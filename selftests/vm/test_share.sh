#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/test_share.sh: run on the HOST (make check runs it). The guest
# has its own /tmp; run.sh must still reach a current directory that lives
# under the host's /tmp (e.g. a clone of the repository there). One VM boot
# without the module, in a directory whose name has a space and a comma (9p
# and QEMU's option syntax both care). Prints TAP.

set -u
here=$(cd "$(dirname "$0")" && pwd)

echo "1..2"
dir=$(mktemp -d "${TMPDIR:-/tmp}/bloom share,XXXXXX")
trap 'rm -rf "$dir"' EXIT
token=$RANDOM-$$
echo "$token" >"$dir/marker"

out=$(cd "$dir" && timeout 300 "$here/run.sh" --no-module --timeout 240 -- \
	sh -c 'cat marker && pwd && echo guest-write >written && cat written' 2>&1)
rc=$?
if [ $rc = 0 ] && [ "$(printf '%s\n' "$out" | sed -n 1p)" = "$token" ] &&
	[ "$(printf '%s\n' "$out" | sed -n 2p)" = "$(cd "$dir" && pwd -P)" ]; then
	echo "ok 1 run.sh reaches a current directory under /tmp"
else
	printf '%s\n' "$out" | sed 's/^/# /'
	echo "not ok 1 run.sh reaches a current directory under /tmp # exit=$rc"
fi
# the share is read-only for the host: writes stay in the guest's overlay
if [ $rc = 0 ] && [ "$(printf '%s\n' "$out" | sed -n 3p)" = guest-write ] &&
	[ ! -e "$dir/written" ]; then
	echo "ok 2 guest writes there stay in the guest"
else
	echo "not ok 2 guest writes there stay in the guest # exit=$rc"
fi
