// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_unload: unloads bloom.ko a moment after destroying filters, from one
 * process, with no fork in between. The last step of run_tests.sh: it
 * proves that nothing (fd, filter, sysfs) holds the module any more.
 *
 * A filter's sysfs kobject is released by code in bloom.ko. Debian's kernel
 * runs that release at once; a kernel with CONFIG_DEBUG_KOBJECT_RELEASE (the
 * debug kernel of make check-debug) runs it 1 to 4 s later from a workqueue,
 * so there the unload starts with releases pending, and module exit waits
 * for them (bloom_filter_exit() in module/filter.c). Measured on that kernel under TCG:
 * without the wait this test still passed in each of 3 tries, as delete_module()
 * spends about 3 s more before it frees the module, part of it waiting for
 * the module's own deferred kobject release: the wait is what makes the
 * unload correct, not something this test can catch missing here.
 *
 * Usage: bloom_unload [SETTLE_SECONDS]
 * After the unload it sleeps SETTLE_SECONDS (default 0; guest.sh passes 5),
 * so that a release left running in freed module text would fault before
 * the VM's kernel-log scan; it reports how long delete_module() took.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest.h"
#include "bloom_test.h"

#define NAME "unload-after-destroy"
/*
 * Each deferred release draws its own delay, and so does the module's own
 * kobject, which delete_module() waits for: with many filters, one of them
 * is likely to be released after the module's kobject.
 */
#define NFILTERS 16

int main(int argc, char **argv)
{
	unsigned int settle = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	static const char key[] = "a key";
	char name[BLOOM_NAME_LEN];
	double t0, took;
	unsigned int i;
	int fd, ret;

	ksft_print_header();
	ksft_set_plan(3);

	fd = bt_open();
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s (is bloom.ko loaded?)\n",
				   BLOOM_DEV, strerror(errno));
	ret = bt_create(fd, NAME, BLOOM_TYPE_STANDARD, 100000, 10000000,
			BLOOM_CREATE_F_BIND);
	if (!ret)
		ret = bt_one(fd, BLOOM_IOC_ADD, key, sizeof(key)) < 0;
	for (i = 0; i < NFILTERS && !ret; i++) {
		snprintf(name, sizeof(name), NAME "-%u", i);
		ret = bt_create(fd, name, BLOOM_TYPE_STANDARD, 1000,
				10000000, 0);
	}
	for (i = 0; i < NFILTERS && !ret; i++) {
		snprintf(name, sizeof(name), NAME "-%u", i);
		ret = bt_destroy(fd, name);
	}
	if (!ret)
		ret = bt_destroy(fd, NAME);
	close(fd);
	ksft_test_result(!ret, "create %u filters, add, destroy them, close\n",
			 NFILTERS + 1);

	/* What rmmod does: O_NONBLOCK fails at once if the module is in use. */
	t0 = now_sec();
	ret = syscall(__NR_delete_module, "bloom", O_NONBLOCK);
	took = now_sec() - t0;
	if (ret)
		ksft_print_msg("delete_module(bloom): %s\n", strerror(errno));
	ksft_test_result(!ret, "delete_module right after the destroy (took %.3f s)\n",
			 took);

	if (settle)
		sleep(settle);
	ksft_test_result(access("/sys/module/bloom", F_OK) && errno == ENOENT,
			 "bloom.ko is gone%s\n",
			 settle ? ", and the kernel is still up after the settle time" : "");
	ksft_finished();
}
