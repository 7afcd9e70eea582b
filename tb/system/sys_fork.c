// SPDX-License-Identifier: MIT
/*
 * sys_fork.c - a verbs program that forks while its device is open.
 *
 * A fork's child inherits the simulation (it is part of the process) but
 * not the threads of Verilator's pool or the batch worker; destroying it
 * there waited forever for those threads. Three children: one returns from
 * its work with exit() (the library's exit handler), one closes its QPs and
 * device first and then exits, one uses the inherited device (its own copy
 * of the simulation) for an RDMA WRITE. Each must exit with status 0, and
 * the parent's device must go on working afterwards: its WRITEs before and
 * after land byte for byte.
 */
#define _DEFAULT_SOURCE

#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUF_LEN 4096
#define CANARY 0x5a

static void write_and_check(struct t_pair *p, struct t_buf *a, struct t_buf *b,
			    uint64_t wr_id, unsigned int seed)
{
	struct ibv_wc wc;
	struct ibv_sge sg;

	t_fill(a->p, BUF_LEN, seed);
	memset(b->p, CANARY, BUF_LEN);
	sg = t_sge(a, 0, 3000);
	POST_SEND(p->s[0].qp, wr_id, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sg, 1,
		  t_addr(b, 5), b->mr->rkey, 0);
	POLL(p->s[0].scq, 1, &wc);
	EXPECT_WC(&wc, wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, p->s[0].qp->qp_num,
		  T_ANY, 0, T_ANY);
	CHECK_FILL(b->p, CANARY, 5);
	CHECK_MEM(b->p + 5, a->p, 3000);
	CHECK_FILL(b->p + 3005, CANARY, BUF_LEN - 3005);
}

int main(void)
{
	struct t_pair_cfg cfg;
	struct t_pair p;
	struct t_buf a, b;
	int kind;

	t_pair_default_cfg(&cfg);
	t_pair_open(&p, &cfg);
	t_buf_alloc(&a, p.s[0].pd, BUF_LEN);
	t_buf_alloc(&b, p.s[1].pd, BUF_LEN);
	write_and_check(&p, &a, &b, 1, 0x100);
	printf("before the forks: write ok\n");
	fflush(stdout);

	for (kind = 0; kind < 3; kind++) {
		int status = -1;
		pid_t pid = fork();

		CHECK(pid >= 0);
		if (pid == 0) {
			if (kind == 2)
				write_and_check(&p, &a, &b, 10, 0x300);
			if (kind >= 1) {
				t_buf_free(&a);
				t_buf_free(&b);
				t_pair_close(&p);
			}
			exit(0);
		}
		CHECK(waitpid(pid, &status, 0) == pid);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		printf("child %d (%s): exited with status 0\n", kind,
		       kind == 0 ? "exit() with the device open" :
		       kind == 1 ? "closed its QPs and device, then exit()" :
				   "an RDMA WRITE of its own, closed, exit()");
		fflush(stdout);
	}

	/* The parent's simulation is untouched by what the children did. */
	write_and_check(&p, &a, &b, 2, 0x200);
	EXPECT_EMPTY(p.s[0].scq, T_EMPTY_POLLS);
	EXPECT_EMPTY(p.s[1].rcq, 1);
	printf("after the forks: write ok\n");

	t_buf_free(&a);
	t_buf_free(&b);
	t_pair_close(&p);
	printf("sys_fork: passed\n");
	return 0;
}
