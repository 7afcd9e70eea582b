// SPDX-License-Identifier: MIT
/*
 * Finding ro-mr (fixed in driver/rnic_drv.c, range_prot_ok()):
 * ibv_reg_mr() with IBV_ACCESS_LOCAL_WRITE on pages the process may only
 * read succeeded, and the first DMA write into them (here: a received
 * SEND) killed the simulator with SIGSEGV. get_user_pages() refuses such a
 * registration (EFAULT), and any registration of PROT_NONE pages. Now a
 * regression test: EFAULT for both, a read-only registration of read-only
 * pages still works, and a SEND can be read out of them.
 */
#include <errno.h>
#include <sys/mman.h>

#include "repro_common.h"

int main(void)
{
	struct r_side s[2];
	struct ibv_mr *mr, *m0;
	void *b0;
	char *ro, *none;
	int bad = 0, n;

	r_open(&s[0], 0, 16);
	r_open(&s[1], 1, 16);
	ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	R_CHECK(ro != MAP_FAILED && none != MAP_FAILED);

	errno = 0;
	mr = ibv_reg_mr(s[1].pd, ro, 8192, IBV_ACCESS_LOCAL_WRITE);
	printf("read-only pages, LOCAL_WRITE: %p errno %d (want NULL, EFAULT)\n",
	       (void *)mr, errno);
	bad |= mr || errno != EFAULT;
	if (mr)
		r_track_mr(mr, NULL);
	errno = 0;
	mr = ibv_reg_mr(s[1].pd, none, 8192, IBV_ACCESS_REMOTE_READ);
	printf("PROT_NONE pages, REMOTE_READ: %p errno %d (want NULL, EFAULT)\n",
	       (void *)mr, errno);
	bad |= mr || errno != EFAULT;
	if (mr)
		r_track_mr(mr, NULL);

	/* Read-only pages registered read-only: the RNIC may read them. */
	mr = ibv_reg_mr(s[0].pd, ro, 8192, 0);
	printf("read-only pages, no write access: %p (want an MR)\n", (void *)mr);
	R_CHECK(mr);
	r_track_mr(mr, NULL);
	m0 = r_buf(&s[1], 8192, &b0);
	r_pair(s, 14, 0);
	{
		struct ibv_sge rs = { (uintptr_t)b0, 64, m0->lkey };
		struct ibv_sge ss = { (uintptr_t)ro, 64, mr->lkey };
		struct ibv_recv_wr rw, *rb;
		struct ibv_send_wr sw, *sb;

		memset(&rw, 0, sizeof(rw));
		rw.sg_list = &rs;
		rw.num_sge = 1;
		R_CHECK(!ibv_post_recv(s[1].qp, &rw, &rb));
		memset(&sw, 0, sizeof(sw));
		sw.sg_list = &ss;
		sw.num_sge = 1;
		sw.opcode = IBV_WR_SEND;
		sw.send_flags = IBV_SEND_SIGNALED;
		R_CHECK(!ibv_post_send(s[0].qp, &sw, &sb));
	}
	n = r_wait(s[1].cq, 1, 4000, "receiver");
	bad |= n != 1;
	n = r_verdict("ro-mr", bad);
	munmap(ro, 8192);
	munmap(none, 8192);
	return n;
}
