// SPDX-License-Identifier: GPL-2.0
/*
 * bloom_rules: DESTROY of a filter that firewall rules hold. The nft
 * backend of iptables frees a deleted rule a moment after iptables
 * returned, so DESTROY waits up to 2 s for the rules to let go before it
 * fails with EBUSY, for every caller of the ioctl. The rules here are
 * legacy ones (bloom_ipt.h), which let go at once: the test deletes the
 * rule itself while a DESTROY waits, in a network namespace of its own.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "bloom_test.h"
#include "bloom_ipt.h"

#define WAIT_MS		2000	/* what DESTROY waits for rules at most */
#define LET_GO_MS	300	/* when the test deletes the rule */

FIXTURE(rules) {
	int fd;
	int sock;
	int xt;		/* 1: this test loaded xt_bloom.ko, and unloads it */
};

FIXTURE_SETUP(rules)
{
	char why[256];

	self->fd = -1;
	self->sock = -1;
	self->xt = bt_xt_load(why, sizeof(why));
	if (self->xt < 0)
		SKIP(return, "%s", why);
	ASSERT_OK(unshare(CLONE_NEWNET));
	/* opened after the unshare: the filters are the new namespace's */
	self->fd = bt_open();
	ASSERT_LE(0, self->fd);
	self->sock = bt_ipt_socket();
	ASSERT_LE(0, self->sock);
	ASSERT_LE(0, bt_ipt_entries(self->sock))
		TH_LOG("no iptables filter table: %s", strerror(errno));
	ASSERT_OK(bt_create(self->fd, "r", BLOOM_TYPE_STANDARD, 1000,
			    10000000, 0));
	ASSERT_OK(bt_ipt_set(self->sock, "r"));
}

FIXTURE_TEARDOWN(rules)
{
	if (self->sock >= 0) {
		bt_ipt_set(self->sock, NULL);
		close(self->sock);
	}
	if (self->fd >= 0) {
		bt_destroy(self->fd, "r");
		close(self->fd);
	}
	/* bloom.ko cannot be unloaded after the tests while it is loaded */
	if (self->xt == 1 && bt_unload_module("xt_bloom"))
		TH_LOG("xt_bloom.ko stays loaded: %s", strerror(errno));
}

static double ms_since(double t0)
{
	return (now_sec() - t0) * 1000;
}

static void *let_go(void *arg)
{
	int *sock = arg;

	usleep(LET_GO_MS * 1000);
	return (void *)(long)bt_ipt_set(*sock, NULL);
}

/* A rule deleted while DESTROY waits: the destroy succeeds. */
TEST_F(rules, destroy_waits_for_rules_letting_go)
{
	pthread_t t;
	void *ret;
	double t0, ms;

	ASSERT_EQ(0, pthread_create(&t, NULL, let_go, &self->sock));
	t0 = now_sec();
	EXPECT_OK(bt_destroy(self->fd, "r"));
	ms = ms_since(t0);
	ASSERT_EQ(0, pthread_join(t, &ret));
	ASSERT_EQ(NULL, ret) TH_LOG("deleting the rule failed");
	TH_LOG("destroy returned after %.0f ms, the rule went after %d ms",
	       ms, LET_GO_MS);
	EXPECT_LE(LET_GO_MS * 0.9, ms);
}

/* A rule that stays: EBUSY after the wait, and the filter is there. */
TEST_F(rules, destroy_busy_after_the_wait)
{
	struct bloom_info info;
	double t0, ms;

	t0 = now_sec();
	EXPECT_ERRNO(EBUSY, bt_destroy(self->fd, "r"));
	ms = ms_since(t0);
	TH_LOG("EBUSY after %.0f ms", ms);
	EXPECT_LE(WAIT_MS * 0.95, ms);
	EXPECT_GE(WAIT_MS * 5, ms);
	EXPECT_OK(bt_info(self->fd, "r", &info));
	EXPECT_EQ(1, info.rules);
	/* once the rule is gone, at once */
	ASSERT_OK(bt_ipt_set(self->sock, NULL));
	t0 = now_sec();
	EXPECT_OK(bt_destroy(self->fd, "r"));
	EXPECT_GE(WAIT_MS / 2, ms_since(t0));
}

TEST_HARNESS_MAIN
