// SPDX-License-Identifier: MIT
/*
 * knobs.c - the library's choices a co-design experiment varies, read once
 * from the environment when the library is loaded (docs/time-model.md,
 * "Library choices"). Both are off by default: the library then behaves
 * exactly as without them.
 *
 *   RNIC_INLINE_THRESHOLD=<bytes>  ibv_post_send copies the payload of a
 *       SEND or RDMA WRITE of at most this many bytes into the WQE (an
 *       inline segment, as with IBV_SEND_INLINE) when it fits the QP's
 *       inline room, so the NIC reads no payload by DMA.
 *   RNIC_DB_BATCH=<n>  the SQ doorbell of ibv_post_send and ibv_wr_complete
 *       is rung once per n WQEs of the chain or batch instead of once for
 *       the whole of it (1: one doorbell per WQE, no coalescing).
 *   RNIC_BLUEFLAME=1  a call that posts one WQE of 64 bytes (the SQ stride)
 *       also writes it through the doorbell page (SQ_BF0..7) before its
 *       doorbell, so the NIC takes it from there instead of reading it
 *       (docs/formats.md, rtl/sq/rnic_sq_fetch.sv).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wqe.h"

unsigned int rv_inline_threshold;
unsigned int rv_db_batch;
unsigned int rv_blueflame;
unsigned int rv_sq_ring_other;

static unsigned int knob(const char *name)
{
	const char *s = getenv(name);
	unsigned long v;
	char *end;

	if (!s || !*s)
		return 0;
	v = strtoul(s, &end, 0);
	if (*end || v > 0xffffu) {
		fprintf(stderr, "libibverbs (rnic): ignoring %s=%s\n", name, s);
		return 0;
	}
	return (unsigned int)v;
}

static void __attribute__((constructor)) rv_knobs_init(void)
{
	rv_inline_threshold = knob("RNIC_INLINE_THRESHOLD");
	rv_db_batch = knob("RNIC_DB_BATCH");
	rv_blueflame = knob("RNIC_BLUEFLAME");
	rv_sq_ring_other = rv_db_batch || rv_blueflame;
}

/* BlueFlame: the one new WQE at @idx, 64 bytes, through the doorbell page,
 * then its doorbell with the BlueFlame bit. The WQE is in the ring too. */
void rv_sq_ring_bf(struct rv_qp *qp, uint16_t idx)
{
	const uint8_t *wqe = rv_wq_slot(&qp->sq, idx);
	struct rv_wq *sq = &qp->sq;
	uint16_t pi = (uint16_t)(idx + 1);
	unsigned int i;

	sq->pi = pi;
	qp->dbrec->sq_pi = htole32(pi);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (i = 0; i < 8; i++) {
		uint64_t w;

		memcpy(&w, wqe + 8 * i, 8);
		rnic_sim_mmio_write(qp->sim, qp->node, RNIC_REG_SQ_BF + 8 * i, le64toh(w));
	}
	rnic_sim_mmio_write(qp->sim, qp->node, RNIC_REG_SQ_DB,
			    rnic_db_wq(qp->qpn, pi) | RNIC_DB_SQ_BF);
}

/* Doorbells for the WQEs [start, end) of @qp, one per rv_db_batch WQEs
 * (0: one for all); the WQEs are written. */
void rv_sq_ring_batched(struct rv_qp *qp, uint16_t start, uint16_t end)
{
	struct rv_wq *sq = &qp->sq;
	uint16_t k = start;

	while (k != end) {
		uint16_t left = (uint16_t)(end - k);

		k = (uint16_t)(k + (rv_db_batch && rv_db_batch < left ? rv_db_batch : left));
		sq->pi = k;
		qp->dbrec->sq_pi = htole32(k);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		rnic_sim_mmio_write(qp->sim, qp->node, RNIC_REG_SQ_DB, rnic_db_wq(qp->qpn, k));
	}
}
