// SPDX-License-Identifier: MIT
/*
 * rnic_drv.c - device bring-up, command interface, resource numbers, IOVA
 * allocation and IOMMU mappings, PD, MR and CQ contexts.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rnic_drv.h"

struct rnic_biglock rnic_biglock;

/*
 * Spin briefly (the holder of a data-path call lets go within a few hundred
 * nanoseconds), then sleep on the serving word: a holder that runs the model
 * for a long time - on a multi-process fabric it may wait for other
 * processes - must not have its waiters burn the cores those need.
 */
void rnic_lock_wait(unsigned int ticket)
{
	unsigned int spins = 0, v;

	while ((v = __atomic_load_n(&rnic_biglock.serving, __ATOMIC_ACQUIRE)) != ticket) {
		if (++spins <= 64) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
			continue;
		}
		__atomic_fetch_add(&rnic_biglock.sleepers, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&rnic_biglock.serving, __ATOMIC_SEQ_CST) == v)
			syscall(SYS_futex, &rnic_biglock.serving, FUTEX_WAIT_PRIVATE, v, NULL,
				NULL, 0);
		__atomic_fetch_sub(&rnic_biglock.sleepers, 1, __ATOMIC_SEQ_CST);
	}
}

void rnic_lock_wake(void)
{
	syscall(SYS_futex, &rnic_biglock.serving, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

struct rnic_iova_range {
	uint64_t start;
	uint64_t len;
	struct rnic_iova_range *next;
};

static struct rnic_dev rnic_devs[RNIC_SIM_MAX_NODES];
static int rnic_dev_ready[RNIC_SIM_MAX_NODES];
static struct rnic_buf rnic_eq_bufs[RNIC_SIM_MAX_NODES];

/* Entries of the event queue: events are rare (errors, limits), and the
 * hardware never checks the queue for overrun. */
#define RNIC_EQ_LOG_SIZE	12

void rnic_dbg(const char *fmt, ...)
{
	static int enabled = -1;
	va_list ap;

	if (enabled < 0) {
		const char *e = getenv("RNIC_DEBUG");

		enabled = e && *e && strcmp(e, "0");
	}
	if (!enabled)
		return;
	va_start(ap, fmt);
	fputs("rnic: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static uint64_t page_down(uint64_t v)
{
	return v & ~(uint64_t)(RNIC_PAGE_SIZE - 1);
}

static uint64_t page_up(uint64_t v)
{
	return (v + RNIC_PAGE_SIZE - 1) & ~(uint64_t)(RNIC_PAGE_SIZE - 1);
}

/* ------------------------------------------------------------------------ */
/* Resource bitmaps                                                         */
/* ------------------------------------------------------------------------ */

static int bm_init(struct rnic_bitmap *bm, uint32_t first, uint32_t size)
{
	free(bm->bits);
	bm->bits = calloc((size + 63) / 64 + 1, sizeof(uint64_t));
	if (!bm->bits)
		return ENOMEM;
	bm->size = size;
	bm->first = first;
	bm->next = first;
	bm->used = 0;
	return 0;
}

static int bm_test(const struct rnic_bitmap *bm, uint32_t id)
{
	return (bm->bits[id / 64] >> (id % 64)) & 1;
}

/* Lowest free id, or (rotate) the next free id after the last one given. */
static int bm_alloc(struct rnic_bitmap *bm, int rotate, uint32_t *id)
{
	uint32_t n = bm->size > bm->first ? bm->size - bm->first : 0;
	uint32_t i, start = rotate ? bm->next : bm->first;

	for (i = 0; i < n; i++) {
		uint32_t cand = start + i;

		if (cand >= bm->size)
			cand = bm->first + (cand - bm->size);
		if (!bm_test(bm, cand)) {
			bm->bits[cand / 64] |= 1ULL << (cand % 64);
			bm->used++;
			bm->next = cand + 1 < bm->size ? cand + 1 : bm->first;
			*id = cand;
			return 0;
		}
	}
	return ENOSPC;
}

static void bm_free(struct rnic_bitmap *bm, uint32_t id)
{
	if (id < bm->first || id >= bm->size || !bm_test(bm, id))
		return;
	bm->bits[id / 64] &= ~(1ULL << (id % 64));
	bm->used--;
}

/* ------------------------------------------------------------------------ */
/* IOVA allocator: sorted free list, first fit, coalescing                  */
/* ------------------------------------------------------------------------ */

static int iova_init(struct rnic_dev *dev)
{
	struct rnic_iova_range *r = calloc(1, sizeof(*r));

	if (!r)
		return ENOMEM;
	r->start = RNIC_IOVA_BASE;
	r->len = RNIC_IOVA_END - RNIC_IOVA_BASE;
	dev->iova_free = r;
	return 0;
}

static int iova_alloc(struct rnic_dev *dev, uint64_t len, uint64_t *iova)
{
	struct rnic_iova_range **pp, *r;

	for (pp = &dev->iova_free; (r = *pp); pp = &r->next) {
		if (r->len < len)
			continue;
		*iova = r->start;
		r->start += len;
		r->len -= len;
		if (!r->len) {
			*pp = r->next;
			free(r);
		}
		return 0;
	}
	return ENOMEM;
}

static void iova_release(struct rnic_dev *dev, uint64_t iova, uint64_t len)
{
	struct rnic_iova_range **pp, *r, *prev = NULL, *n;

	for (pp = &dev->iova_free; (r = *pp) && r->start < iova; pp = &r->next)
		prev = r;

	if (prev && prev->start + prev->len == iova) {
		prev->len += len;
		if (r && iova + len == r->start) {
			prev->len += r->len;
			prev->next = r->next;
			free(r);
		}
		return;
	}
	if (r && iova + len == r->start) {
		r->start = iova;
		r->len += len;
		return;
	}
	n = malloc(sizeof(*n));
	if (!n)
		return;	/* leak a bit of IOVA space rather than fail */
	n->start = iova;
	n->len = len;
	n->next = r;
	*pp = n;
}

/* ------------------------------------------------------------------------ */
/* DMA mappings                                                             */
/* ------------------------------------------------------------------------ */

/* Every page of [start, start+len) must be mapped in the process, as
 * get_user_pages() would require. */
static int range_is_mapped(uintptr_t start, size_t len)
{
	unsigned char vec[256];
	size_t chunk = sizeof(vec) * RNIC_PAGE_SIZE;

	while (len) {
		size_t n = len < chunk ? len : chunk;

		if (mincore((void *)start, n, vec))
			return 0;
		start += n;
		len -= n;
	}
	return 1;
}

/*
 * Every page of [start, start+len) in a mapping the process may read, and
 * write if @write, as get_user_pages() (FOLL_WRITE for a registration with
 * local write) requires: the model's DMA touches the pages directly, so a
 * write into a read-only page, or any access to a PROT_NONE one, would kill
 * the simulator instead of failing the registration. A range that wraps is
 * left to rnic_dma_map() (EINVAL).
 */
static int range_prot_ok(uintptr_t start, size_t len, int write)
{
	uintptr_t at = start, end = start + len, lo, hi;
	char perms[8], *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (end < start)
		return 1;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 1;	/* cannot tell: mincore() still checks presence */
	/* The mappings come in address order. */
	while (at < end && getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || hi <= at)
			continue;
		if (lo > at || perms[0] != 'r' || (write && perms[1] != 'w'))
			break;
		at = hi;
	}
	free(line);
	fclose(f);
	return at >= end;
}

int rnic_dma_map(struct rnic_dev *dev, const void *addr, size_t len,
		 struct rnic_dma *dma)
{
	uint64_t start, end, iova;
	int ret;

	if (!len || (uintptr_t)addr + len < (uintptr_t)addr)
		return EINVAL;
	start = page_down((uintptr_t)addr);
	end = page_up((uintptr_t)addr + len);
	if (!end)
		return EINVAL;
	if (!range_is_mapped(start, end - start))
		return EFAULT;

	rnic_lock();
	ret = iova_alloc(dev, end - start + RNIC_PAGE_SIZE, &iova);
	if (ret)
		goto out;
	ret = rnic_sim_iommu_map(dev->sim, dev->node, iova, (void *)(uintptr_t)start,
				 end - start);
	if (ret) {
		iova_release(dev, iova, end - start + RNIC_PAGE_SIZE);
		rnic_dbg("node %u: iommu_map(%#llx, %#llx bytes) failed: %d\n",
			 dev->node, (unsigned long long)iova,
			 (unsigned long long)(end - start), ret);
		ret = ret < 0 ? -ret : ENOMEM;
		goto out;
	}
	dma->host = start;
	dma->iova = iova;
	dma->len = end - start;
	dev->iova_mapped += dma->len;
out:
	rnic_unlock();
	return ret;
}

int rnic_dma_fault(struct rnic_dev *dev, struct rnic_dma *dma, size_t off,
		   size_t len, bool fault)
{
	size_t lo, hi;
	int ret = 0;

	if (!len || off + len < off || off + len > dma->len)
		return EINVAL;
	lo = page_down(off);
	hi = page_up(off + len);
	rnic_lock();
	if (fault && dma->fault_len) {
		ret = EBUSY;
	} else if (fault) {
		ret = -rnic_sim_iommu_unmap(dev->sim, dev->node, dma->iova + lo,
					    hi - lo);
		if (!ret) {
			dma->fault_off = lo;
			dma->fault_len = hi - lo;
		}
	} else if (dma->fault_len) {
		ret = -rnic_sim_iommu_map(dev->sim, dev->node,
					  dma->iova + dma->fault_off,
					  (void *)(dma->host + dma->fault_off),
					  dma->fault_len);
		if (!ret)
			dma->fault_len = 0;
	}
	rnic_unlock();
	return ret;
}

void rnic_dma_unmap(struct rnic_dev *dev, struct rnic_dma *dma)
{
	if (!dma->len)
		return;
	/* Pages a fault injection took out go back first: unmap is all or
	 * nothing. */
	rnic_dma_fault(dev, dma, 0, dma->len, false);
	rnic_lock();
	if (rnic_sim_iommu_unmap(dev->sim, dev->node, dma->iova, dma->len))
		rnic_dbg("node %u: iommu_unmap(%#llx) failed\n", dev->node,
			 (unsigned long long)dma->iova);
	iova_release(dev, dma->iova, dma->len + RNIC_PAGE_SIZE);
	dev->iova_mapped -= dma->len;
	rnic_unlock();
	memset(dma, 0, sizeof(*dma));
}

int rnic_buf_alloc(struct rnic_dev *dev, size_t len, struct rnic_buf *buf)
{
	void *p;
	int ret;

	len = page_up(len);
	if (!len)
		return EINVAL;
	if (posix_memalign(&p, RNIC_PAGE_SIZE, len))
		return ENOMEM;
	memset(p, 0, len);
	ret = rnic_dma_map(dev, p, len, &buf->dma);
	if (ret) {
		free(p);
		return ret;
	}
	buf->va = p;
	buf->len = len;
	return 0;
}

void rnic_buf_free(struct rnic_dev *dev, struct rnic_buf *buf)
{
	if (!buf->va)
		return;
	rnic_dma_unmap(dev, &buf->dma);
	free(buf->va);
	buf->va = NULL;
	buf->len = 0;
}

/* ------------------------------------------------------------------------ */
/* Command interface                                                        */
/* ------------------------------------------------------------------------ */

int rnic_cmd(struct rnic_dev *dev, unsigned int op, uint32_t index,
	     const uint64_t *args, unsigned int nargs, uint64_t *out,
	     unsigned int nout)
{
	uint64_t st = 0;
	unsigned int i, polls;
	int ret;

	if (nargs > RNIC_CMD_NARGS || nout > RNIC_CMD_NOUT)
		return EINVAL;

	rnic_lock();
	for (i = 0; i < nargs; i++)
		rnic_sim_mmio_write(dev->sim, dev->node, RNIC_REG_CMD_ARG(i), args[i]);
	rnic_sim_mmio_write(dev->sim, dev->node, RNIC_REG_CMD_GO,
			    rnic_cmd_go(op, index));
	for (polls = 0; polls < RNIC_CMD_POLL_MAX; polls++) {
		st = rnic_sim_mmio_read(dev->sim, dev->node, RNIC_REG_CMD_STATUS);
		if (!RNIC_CMD_STATUS_BUSY(st))
			break;
	}
	if (polls == RNIC_CMD_POLL_MAX) {
		ret = ETIMEDOUT;
	} else {
		switch (RNIC_CMD_STATUS_RESULT(st)) {
		case RNIC_CMD_OK:
			ret = 0;
			break;
		case RNIC_CMD_BAD_OP:
			ret = EOPNOTSUPP;
			break;
		case RNIC_CMD_BAD_INDEX:
			ret = EINVAL;
			break;
		default:
			ret = EIO;
			break;
		}
	}
	for (i = 0; !ret && out && i < nout; i++)
		out[i] = rnic_sim_mmio_read(dev->sim, dev->node, RNIC_REG_CMD_OUT(i));
	rnic_unlock();

	if (ret)
		rnic_dbg("node %u: command op %#x index %u failed: status %#llx (%s)\n",
			 dev->node, op, index, (unsigned long long)st, strerror(ret));
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Device                                                                   */
/* ------------------------------------------------------------------------ */

static int dev_probe(struct rnic_dev *dev)
{
	uint64_t id, caps, v;
	unsigned int lqp, lcq, lmr, sge, bits;

	id = rnic_sim_mmio_read(dev->sim, dev->node, RNIC_REG_DEV_ID);
	if (RNIC_DEV_ID_MAGIC(id) != RNIC_DEV_ID_MAGIC(RNIC_DEV_ID_VALUE) ||
	    RNIC_DEV_ID_MAJOR(id) != RNIC_DEV_ID_MAJOR(RNIC_DEV_ID_VALUE)) {
		rnic_dbg("node %u: DEV_ID reads %#llx, expected %#llx: not an RNIC\n",
			 dev->node, (unsigned long long)id,
			 (unsigned long long)RNIC_DEV_ID_VALUE);
		return ENODEV;
	}

	caps = rnic_sim_mmio_read(dev->sim, dev->node, RNIC_REG_CAPS);
	lqp = RNIC_CAPS_LOG_QP(caps);
	lcq = RNIC_CAPS_LOG_CQ(caps);
	lmr = RNIC_CAPS_LOG_MR(caps);
	sge = RNIC_CAPS_MAX_SGE(caps);
	bits = RNIC_CAPS_DATA_BITS(caps);
	if (lqp < 2 || lqp > 24 || lcq > 16 || lmr < 1 || lmr > 24 || !sge ||
	    bits < 8 || bits % 8) {
		rnic_dbg("node %u: CAPS %#llx make no sense\n", dev->node,
			 (unsigned long long)caps);
		return ENODEV;
	}
	dev->caps.version = (uint32_t)id;
	dev->caps.n_qp = 1u << lqp;
	dev->caps.n_cq = 1u << lcq;
	dev->caps.n_mr = 1u << lmr;
	/* A 256-byte send WQE holds the control and address segments and
	 * 14 data segments. */
	dev->caps.max_sge = sge > 14 ? 14 : sge;
	dev->caps.data_bits = bits;
	dev->caps.max_rd_out = RNIC_CAPS_MAX_RD_OUT(caps);

	dev->mac = rnic_sim_node_mac(dev->sim, dev->node) & RNIC_MAC_MASK;
	dev->ip = rnic_sim_node_ip(dev->sim, dev->node);
	rnic_sim_mmio_write(dev->sim, dev->node, RNIC_REG_PORT_MAC, dev->mac);
	rnic_sim_mmio_write(dev->sim, dev->node, RNIC_REG_PORT_IP, dev->ip);
	v = rnic_sim_mmio_read(dev->sim, dev->node, RNIC_REG_PORT_MAC);
	if ((v & RNIC_MAC_MASK) != dev->mac) {
		rnic_dbg("node %u: PORT_MAC reads back %#llx\n", dev->node,
			 (unsigned long long)v);
		return EIO;
	}
	v = rnic_sim_mmio_read(dev->sim, dev->node, RNIC_REG_PORT_IP);
	if ((uint32_t)v != dev->ip) {
		rnic_dbg("node %u: PORT_IP reads back %#llx\n", dev->node,
			 (unsigned long long)v);
		return EIO;
	}
	return 0;
}

/* The event queue: CQ 0, a ring without doorbell record (never checked for
 * overrun), owner bytes set to 1. */
static int eq_init(struct rnic_dev *dev)
{
	struct rnic_buf *buf = &rnic_eq_bufs[dev->node];
	uint64_t args[3];
	uint32_t i, n = 1u << RNIC_EQ_LOG_SIZE;
	int ret;

	if (!buf->va) {
		ret = rnic_buf_alloc(dev, (size_t)RNIC_CQE_SIZE << RNIC_EQ_LOG_SIZE, buf);
		if (ret)
			return ret;
	}
	dev->eq_ring = buf->va;
	dev->eq_log_size = RNIC_EQ_LOG_SIZE;
	dev->eq_ci = 0;
	for (i = 0; i < n; i++)
		dev->eq_ring[i].owner = 1;
	args[0] = rnic_cq_arg0(RNIC_EQ_LOG_SIZE, 1);
	args[1] = buf->dma.iova;
	args[2] = 0;
	return rnic_cmd(dev, RNIC_CMD_CQ_WRITE, RNIC_EQN, args, 3, NULL, 0);
}

static int dev_init(struct rnic_dev *dev)
{
	int ret;

	ret = dev_probe(dev);
	if (ret)
		return ret;
	ret = bm_init(&dev->pd_map, 1, RNIC_MAX_PD + 1);
	if (!ret)
		ret = bm_init(&dev->qp_map, 2, dev->caps.n_qp);
	if (!ret)
		ret = bm_init(&dev->cq_map, 1, dev->caps.n_cq);	/* CQ 0: the event queue */
	if (!ret)
		ret = bm_init(&dev->mr_map, 1, dev->caps.n_mr);
	if (!ret)
		ret = bm_init(&dev->srq_map, 0, dev->caps.n_qp);	/* one per QP number at most */
	if (!ret && !dev->iova_free)
		ret = iova_init(dev);
	if (!ret)
		ret = eq_init(dev);
	return ret;
}

int rnic_dev_open(unsigned int node, struct rnic_dev **devp)
{
	struct rnic_sim *sim;
	struct rnic_dev *dev;
	int ret = 0;

	rnic_lock();
	sim = rnic_sim_global();
	if (!sim) {
		ret = ENODEV;
		goto out;
	}
	if (node >= RNIC_SIM_MAX_NODES || node >= rnic_sim_nodes(sim)) {
		ret = ENODEV;
		goto out;
	}
	dev = &rnic_devs[node];
	/* Like a loaded kernel driver, the device stays initialised (and its
	 * resource numbers allocated) for the life of the process. */
	if (!rnic_dev_ready[node]) {
		/* On a multi-process fabric this process now hosts the node
		 * (EBUSY if another one does). */
		ret = -rnic_sim_node_attach(sim, node);
		if (ret)
			goto out;
		dev->sim = sim;
		dev->node = node;
		ret = dev_init(dev);
		if (ret)
			goto out;
		rnic_dev_ready[node] = 1;
		rnic_dbg("node %u: RNIC %u.%u, %u QPs, %u CQs, %u MRs, %u SGEs, %u-bit datapath\n",
			 node, RNIC_DEV_ID_MAJOR(dev->caps.version),
			 RNIC_DEV_ID_MINOR(dev->caps.version), dev->caps.n_qp,
			 dev->caps.n_cq, dev->caps.n_mr, dev->caps.max_sge,
			 dev->caps.data_bits);
	}
	dev->refcnt++;
	*devp = dev;
out:
	rnic_unlock();
	return ret;
}

void rnic_dev_close(struct rnic_dev *dev)
{
	rnic_lock();
	if (dev->refcnt > 0)
		dev->refcnt--;
	rnic_unlock();
}

/* ------------------------------------------------------------------------ */
/* Addresses                                                                */
/* ------------------------------------------------------------------------ */

void rnic_ip_to_gid(uint32_t ip, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	gid->raw[12] = ip >> 24;
	gid->raw[13] = ip >> 16;
	gid->raw[14] = ip >> 8;
	gid->raw[15] = ip;
}

int rnic_gid_to_ip(const union ibv_gid *gid, uint32_t *ip)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(gid->raw, prefix, sizeof(prefix)))
		return EINVAL;
	*ip = (uint32_t)gid->raw[12] << 24 | (uint32_t)gid->raw[13] << 16 |
	      (uint32_t)gid->raw[14] << 8 | gid->raw[15];
	return 0;
}

int rnic_resolve_ip(struct rnic_sim *sim, uint32_t ip, uint64_t *mac,
		    unsigned int *node)
{
	unsigned int n, nodes = rnic_sim_nodes(sim);

	for (n = 0; n < nodes; n++) {
		if (rnic_sim_node_ip(sim, n) == ip) {
			if (mac)
				*mac = rnic_sim_node_mac(sim, n) & RNIC_MAC_MASK;
			if (node)
				*node = n;
			return 0;
		}
	}
	return ENOENT;
}

/* ------------------------------------------------------------------------ */
/* PD                                                                       */
/* ------------------------------------------------------------------------ */

int rnic_pd_alloc(struct rnic_dev *dev, uint32_t *pdn)
{
	int ret;

	rnic_lock();
	ret = bm_alloc(&dev->pd_map, 0, pdn);
	rnic_unlock();
	return ret ? ENOMEM : 0;
}

void rnic_pd_free(struct rnic_dev *dev, uint32_t pdn)
{
	rnic_lock();
	bm_free(&dev->pd_map, pdn);
	rnic_unlock();
}

/* ------------------------------------------------------------------------ */
/* QPN                                                                      */
/* ------------------------------------------------------------------------ */

int rnic_qpn_alloc(struct rnic_dev *dev, uint32_t *qpn)
{
	int ret;

	rnic_lock();
	ret = bm_alloc(&dev->qp_map, 1, qpn);
	rnic_unlock();
	return ret ? ENOMEM : 0;
}

void rnic_qpn_free(struct rnic_dev *dev, uint32_t qpn)
{
	rnic_lock();
	bm_free(&dev->qp_map, qpn);
	rnic_unlock();
}

/* ------------------------------------------------------------------------ */
/* MR                                                                       */
/* ------------------------------------------------------------------------ */

int rnic_mr_reg(struct rnic_dev *dev, uint32_t pdn, void *addr, size_t len,
		uint64_t va, unsigned int access, struct rnic_mr *mr)
{
	uint64_t args[4];
	uint32_t index;
	uint8_t key;
	int ret;

	if (!len)
		return EINVAL;
	if (!range_prot_ok((uintptr_t)addr, len, !!(access & IBV_ACCESS_LOCAL_WRITE)))
		return EFAULT;

	rnic_lock();
	if (bm_alloc(&dev->mr_map, 1, &index)) {
		ret = ENOMEM;
		goto out;
	}
	ret = rnic_dma_map(dev, addr, len, &mr->dma);
	if (ret)
		goto err_index;

	key = dev->key_next++;
	mr->index = index;
	mr->key = RNIC_KEY(index, key);
	mr->pdn = pdn;
	mr->access = access & 0xff;
	mr->va = va;
	mr->len = len;
	mr->iova = rnic_dma_iova(&mr->dma, addr);

	args[0] = rnic_mr_arg0(key, mr->access, pdn, 1);
	args[1] = va;
	args[2] = len;
	args[3] = mr->iova;
	ret = rnic_cmd(dev, RNIC_CMD_MR_WRITE, index, args, 4, NULL, 0);
	if (ret)
		goto err_unmap;
	rnic_unlock();
	return 0;

err_unmap:
	rnic_dma_unmap(dev, &mr->dma);
err_index:
	bm_free(&dev->mr_map, index);
out:
	rnic_unlock();
	return ret;
}

int rnic_mr_dereg(struct rnic_dev *dev, struct rnic_mr *mr)
{
	uint64_t args[4] = { rnic_mr_arg0(RNIC_KEY_BYTE(mr->key), 0, 0, 0), 0, 0, 0 };
	int ret;

	rnic_lock();
	ret = rnic_cmd(dev, RNIC_CMD_MR_WRITE, mr->index, args, 4, NULL, 0);
	rnic_dma_unmap(dev, &mr->dma);
	bm_free(&dev->mr_map, mr->index);
	rnic_unlock();
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Memory windows                                                           */
/* ------------------------------------------------------------------------ */

int rnic_mw_alloc(struct rnic_dev *dev, uint32_t pdn, int type2,
		  struct rnic_mw *mw)
{
	uint64_t args[4] = { 0, 0, 0, 0 };
	uint32_t index;
	uint8_t key;
	int ret;

	rnic_lock();
	if (bm_alloc(&dev->mr_map, 1, &index)) {
		ret = ENOMEM;
		goto out;
	}
	key = dev->key_next++;
	mw->index = index;
	mw->key = RNIC_KEY(index, key);
	mw->pdn = pdn;
	mw->type2 = !!type2;
	args[0] = rnic_mw_arg0(key, pdn, type2);
	ret = rnic_cmd(dev, RNIC_CMD_MR_WRITE, index, args, 4, NULL, 0);
	if (ret)
		bm_free(&dev->mr_map, index);
out:
	rnic_unlock();
	return ret;
}

int rnic_mw_free(struct rnic_dev *dev, struct rnic_mw *mw)
{
	uint64_t args[4] = { rnic_mr_arg0(RNIC_KEY_BYTE(mw->key), 0, 0, 0), 0, 0, 0 };
	int ret;

	rnic_lock();
	ret = rnic_cmd(dev, RNIC_CMD_MR_WRITE, mw->index, args, 4, NULL, 0);
	bm_free(&dev->mr_map, mw->index);
	rnic_unlock();
	return ret;
}

/* ------------------------------------------------------------------------ */
/* CQ                                                                       */
/* ------------------------------------------------------------------------ */

int rnic_cq_create(struct rnic_dev *dev, uint32_t min_entries, struct rnic_cq *cq)
{
	return rnic_cq_create_ex(dev, min_entries, 0, cq);
}

int rnic_cq_create_ex(struct rnic_dev *dev, uint32_t min_entries, int dbrec,
		      struct rnic_cq *cq)
{
	unsigned int log = RNIC_MIN_CQ_LOG;
	uint64_t args[3];
	size_t ring_len;
	uint32_t i;
	int ret;

	if (min_entries > RNIC_MAX_CQE + 1)
		return EINVAL;
	while ((1u << log) < min_entries)
		log++;
	ring_len = (size_t)RNIC_CQE_SIZE << log;

	rnic_lock();
	if (bm_alloc(&dev->cq_map, 0, &cq->cqn)) {
		ret = ENOMEM;
		goto out;
	}
	ret = rnic_buf_alloc(dev, ring_len + (dbrec ? sizeof(struct rnic_cq_dbrec) : 0),
			     &cq->buf);
	if (ret)
		goto err_cqn;
	cq->log_size = log;
	cq->entries = 1u << log;
	cq->ring = cq->buf.va;
	for (i = 0; i < cq->entries; i++)
		cq->ring[i].owner = 1;
	cq->dbrec = NULL;
	cq->dbrec_iova = 0;
	if (dbrec) {
		cq->dbrec = (struct rnic_cq_dbrec *)((uint8_t *)cq->buf.va + ring_len);
		cq->dbrec_iova = rnic_dma_iova(&cq->buf.dma, cq->dbrec);
	}

	args[0] = rnic_cq_arg0(log, 1);
	args[1] = cq->buf.dma.iova;
	args[2] = cq->dbrec_iova;	/* 0: the overrun check is off */
	ret = rnic_cmd(dev, RNIC_CMD_CQ_WRITE, cq->cqn, args, 3, NULL, 0);
	if (ret)
		goto err_buf;
	rnic_unlock();
	return 0;

err_buf:
	rnic_buf_free(dev, &cq->buf);
err_cqn:
	bm_free(&dev->cq_map, cq->cqn);
out:
	rnic_unlock();
	return ret;
}

int rnic_cq_destroy(struct rnic_dev *dev, struct rnic_cq *cq)
{
	uint64_t args[3] = { rnic_cq_arg0(0, 0), 0, 0 };
	int ret;

	rnic_lock();
	ret = rnic_cmd(dev, RNIC_CMD_CQ_WRITE, cq->cqn, args, 3, NULL, 0);
	rnic_buf_free(dev, &cq->buf);
	bm_free(&dev->cq_map, cq->cqn);
	cq->ring = NULL;
	cq->dbrec = NULL;
	rnic_unlock();
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Event queue                                                              */
/* ------------------------------------------------------------------------ */

int rnic_eq_next(struct rnic_dev *dev, unsigned int *type, uint32_t *num)
{
	const uint32_t mask = (1u << dev->eq_log_size) - 1;

	while (dev->eq_ring) {
		struct rnic_cqe *e = &dev->eq_ring[dev->eq_ci & mask];

		if (!rnic_cqe_is_new(e, dev->eq_ci, dev->eq_log_size))
			return 0;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		dev->eq_ci++;
		if (e->opcode != RNIC_EQE_OPCODE) {
			rnic_dbg("node %u: event queue record with opcode %#x skipped\n",
				 dev->node, e->opcode);
			continue;
		}
		*type = e->status;
		*num = le32toh(e->qpn) & 0xffffff;
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* SRQ                                                                      */
/* ------------------------------------------------------------------------ */

static int srq_push(struct rnic_dev *dev, const struct rnic_srq *srq, int valid,
		    int reset)
{
	uint64_t args[2];

	args[0] = rnic_srq_arg0(srq->log_size, srq->log_stride, srq->limit, valid, reset);
	args[1] = valid ? srq->iova : 0;
	return rnic_cmd(dev, RNIC_CMD_SRQ_WRITE, srq->srqn, args, 2, NULL, 0);
}

int rnic_srq_create(struct rnic_dev *dev, uint32_t max_wr, uint32_t max_sge,
		    struct rnic_srq *srq)
{
	unsigned int log = 0, stride = RNIC_LOG_WQE_BB;
	int ret;

	if (max_wr > RNIC_MAX_QP_WR || max_sge > dev->caps.max_sge)
		return EINVAL;
	while ((1u << log) < max_wr)
		log++;
	/* Receive WQE: header + data segments, as an RQ's. */
	while ((1u << stride) < RNIC_SEG_SIZE * (1 + max_sge))
		stride++;

	memset(srq, 0, sizeof(*srq));
	srq->log_size = log;
	srq->log_stride = stride;
	srq->entries = 1u << log;
	srq->max_sge = ((1u << stride) - RNIC_SEG_SIZE) / RNIC_SEG_SIZE;
	if (srq->max_sge > dev->caps.max_sge)
		srq->max_sge = dev->caps.max_sge;

	rnic_lock();
	if (bm_alloc(&dev->srq_map, 1, &srq->srqn)) {
		ret = ENOMEM;
		goto out;
	}
	ret = rnic_buf_alloc(dev, (size_t)srq->entries << stride, &srq->buf);
	if (ret)
		goto err_srqn;
	srq->ring = srq->buf.va;
	srq->iova = srq->buf.dma.iova;
	ret = srq_push(dev, srq, 1, 1);
	if (ret)
		goto err_buf;
	rnic_unlock();
	return 0;

err_buf:
	rnic_buf_free(dev, &srq->buf);
err_srqn:
	bm_free(&dev->srq_map, srq->srqn);
out:
	rnic_unlock();
	return ret;
}

int rnic_srq_set_limit(struct rnic_dev *dev, struct rnic_srq *srq, uint16_t limit)
{
	uint16_t old = srq->limit;
	int ret;

	rnic_lock();
	srq->limit = limit;
	ret = srq_push(dev, srq, 1, 0);
	if (ret)
		srq->limit = old;
	rnic_unlock();
	return ret;
}

int rnic_srq_destroy(struct rnic_dev *dev, struct rnic_srq *srq)
{
	int ret;

	rnic_lock();
	srq->limit = 0;
	ret = srq_push(dev, srq, 0, 0);
	/* Unmapping after the invalidation: a straggling read faults. */
	rnic_buf_free(dev, &srq->buf);
	bm_free(&dev->srq_map, srq->srqn);
	srq->ring = NULL;
	rnic_unlock();
	return ret;
}
