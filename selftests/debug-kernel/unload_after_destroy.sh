#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/debug-kernel/unload_after_destroy.sh: runs INSIDE the debug-kernel
# VM, one of guest.sh's suites. Prints TAP 13.
#
# A filter's sysfs kobject is released by code in bloom.ko, and with
# CONFIG_DEBUG_KOBJECT_RELEASE the kernel runs that release 1 to 4 s after
# the last reference went. rmmod right after a destroy must therefore wait
# for the pending release (bloom_filter_wait_freed()); if it did not, the
# release would run in freed module text a few seconds later: an oops, which
# panics the VM (panic_on_warn, oops=panic) and fails the run.
#
# Steps: load bloom.ko if it is not loaded ($BLOOM_MODULE), create a filter,
# add to it, destroy it, rmmod at once; check that the kernel did delay the
# release (otherwise this test proved nothing) and that the module is gone;
# then wait past the longest delay, so that a release in freed text would
# have run before the VM's dmesg scan.

set -u

name=unload-wait-$$
failed=0
num=0

result() { # result 0|1 TEXT
	num=$((num + 1))
	if [ "$1" = 0 ]; then
		echo "ok $num $2"
	else
		echo "not ok $num $2"
		failed=1
	fi
}

echo "TAP version 13"
echo "1..4"

if [ ! -e /sys/module/bloom ]; then
	if [ -z "${BLOOM_MODULE:-}" ]; then
		echo "Bail out! bloom.ko is not loaded and BLOOM_MODULE is not set"
		exit 1
	fi
	insmod "$BLOOM_MODULE" || { echo "Bail out! insmod $BLOOM_MODULE failed"; exit 1; }
fi

bloomctl create "$name" --capacity 100000 --fpp 0.01 &&
	bloomctl add "$name" a b c &&
	bloomctl destroy "$name"
result $? "create, add and destroy a filter"

rmmod bloom
result $? "rmmod right after the destroy succeeds"

# kobject_release() logs "kobject: 'NAME' (...): kobject_release, parent ...
# (delayed N)" when it defers the release.
dmesg | grep -q "kobject: '$name' .*(delayed [0-9]*)"
result $? "the kernel delayed the filter's kobject release (CONFIG_DEBUG_KOBJECT_RELEASE)"

sleep 5
[ ! -e /sys/module/bloom ]
result $? "bloom.ko is unloaded, 5 s later the VM is still up"

exit $failed
