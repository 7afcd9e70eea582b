// SPDX-License-Identifier: MIT
/*
 * provider.c - rdma-core's provider interface, IBVERBS_PRIVATE_34.
 *
 * Debian's provider libraries (libmlx5.so.1, libefa.so.1, linked by
 * perftest and pyverbs) register themselves from an ELF constructor and are
 * built with BIND_NOW: every symbol they import must resolve before main()
 * runs, although a program on the simulated RNIC never calls most of them.
 * This library drives only its own devices, so:
 *
 * - verbs_register_driver_34() records the provider's name and nothing
 *   else: no device is ever matched to it, ibv_get_device_list() lists the
 *   simulated nodes only;
 * - the entry points a provider calls on a device it owns (context
 *   allocation, the kernel command marshalling ibv_cmd_*, execute_ioctl)
 *   fail with EOPNOTSUPP, in the convention of each (errno value returned,
 *   or -1 / NULL with errno set), and say so once on stderr;
 * - the helpers that touch no kernel object work: __verbs_log,
 *   verbs_init_cq, __ioctl_final_num_attrs, verbs_open_device on our
 *   devices.
 *
 * docs/verbs.md ("The whole ABI") has the table.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rnic_verbs.h"
#include "rv_abi.h"

/* ------------------------------------------------------------------------ */
/* Registration and logging                                                 */
/* ------------------------------------------------------------------------ */

#define RV_MAX_PROVIDERS	32

static const struct verbs_device_ops *rv_provider_ops[RV_MAX_PROVIDERS];
static unsigned int rv_nproviders;
static pthread_mutex_t rv_provider_lock = PTHREAD_MUTEX_INITIALIZER;

/* rdma-core 44 reads RDMAV_ALLOW_DISASSOC_DESTROY into this at its first
 * device list; it lets a destroy after a hot-unplug (EIO) pass. Nothing is
 * hot-unplugged here; the variable exists for the providers that import
 * it and is set the same way. */
RV_EXPORT bool verbs_allow_disassociate_destroy;

static void __attribute__((constructor)) rv_provider_env(void)
{
	verbs_allow_disassociate_destroy = getenv("RDMAV_ALLOW_DISASSOC_DESTROY") != NULL;
}

/* struct verbs_device_ops starts with the provider's name (rdma-core's
 * driver.h); nothing else of it is read. */
static const char *rv_ops_name(const struct verbs_device_ops *ops)
{
	return *(const char *const *)ops;
}

RV_EXPORT void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	if (!ops)
		return;
	pthread_mutex_lock(&rv_provider_lock);
	if (rv_nproviders < RV_MAX_PROVIDERS)
		rv_provider_ops[rv_nproviders++] = ops;
	pthread_mutex_unlock(&rv_provider_lock);
	rnic_dbg("provider %s registered; its devices are not used (this libibverbs drives the simulated RNIC)\n",
		 rv_ops_name(ops) ? rv_ops_name(ops) : "?");
}

unsigned int rv_providers(const char **names, unsigned int max)
{
	unsigned int i, n;

	pthread_mutex_lock(&rv_provider_lock);
	n = rv_nproviders;
	for (i = 0; i < n && i < max; i++)
		names[i] = rv_ops_name(rv_provider_ops[i]);
	pthread_mutex_unlock(&rv_provider_lock);
	return n;
}

/*
 * Log messages of providers: level <= $VERBS_LOG_LEVEL (default 0: none)
 * go to $VERBS_LOG_FILE, or stderr, as in rdma-core.
 */
static FILE *rv_log_fp;
static unsigned long rv_log_level;
static pthread_once_t rv_log_once = PTHREAD_ONCE_INIT;

static void rv_log_init(void)
{
	const char *lvl = getenv("VERBS_LOG_LEVEL");
	const char *file = getenv("VERBS_LOG_FILE");

	if (lvl)
		rv_log_level = strtoul(lvl, NULL, 0);
	rv_log_fp = stderr;
	if (rv_log_level && file) {
		FILE *fp = fopen(file, "a+e");

		if (fp)
			rv_log_fp = fp;
	}
}

RV_EXPORT void __verbs_log(struct verbs_context *ctx, uint32_t level,
			   const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	(void)ctx;
	pthread_once(&rv_log_once, rv_log_init);
	if (level > rv_log_level)
		return;
	va_start(ap, fmt);
	vfprintf(rv_log_fp, fmt, ap);
	va_end(ap);
	errno = saved;
}

/* ------------------------------------------------------------------------ */
/* Contexts and CQs                                                         */
/* ------------------------------------------------------------------------ */

/* The first call of each provider-only entry point says what happened;
 * EOPNOTSUPP goes into errno and is returned. */
static int rv_provider_only(const char *fn)
{
	static const char *said[96];
	static unsigned int nsaid;
	unsigned int i;
	int tell = 1;

	pthread_mutex_lock(&rv_provider_lock);
	for (i = 0; i < nsaid; i++)
		if (said[i] == fn)
			tell = 0;
	if (tell && nsaid < sizeof(said) / sizeof(said[0]))
		said[nsaid++] = fn;
	pthread_mutex_unlock(&rv_provider_lock);
	if (tell)
		fprintf(stderr, "rnic: %s: provider interface, not supported by this libibverbs (it drives only the simulated RNIC): EOPNOTSUPP\n",
			fn);
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

/* rdma-core: ibv_open_device() with provider-private data (mlx5dv_open_device
 * passes its attributes). Our devices open without any; private data would
 * be another provider's. */
RV_EXPORT struct ibv_context *verbs_open_device(struct ibv_device *device,
						void *private_data)
{
	if (private_data || ibv_get_device_index(device) < 0) {
		rv_provider_only(__func__);
		return NULL;
	}
	return ibv_open_device(device);
}

/* A provider's alloc_context: the cmd_fd it passes is ours to close on
 * failure, as in rdma-core. */
RV_EXPORT void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
					      size_t alloc_size,
					      struct verbs_context *context_offset,
					      uint32_t driver_id)
{
	(void)device;
	(void)alloc_size;
	(void)context_offset;
	(void)driver_id;
	if (cmd_fd >= 0)
		close(cmd_fd);
	rv_provider_only(__func__);
	return NULL;
}

/* Only for contexts of _verbs_init_and_alloc_context(), of which there are
 * none: nothing to undo, our contexts keep their ops. */
RV_EXPORT void verbs_uninit_context(struct verbs_context *context)
{
	(void)context;
	rv_provider_only(__func__);
}

RV_EXPORT void verbs_set_ops(struct verbs_context *vctx,
			     const struct verbs_context_ops *ops)
{
	(void)vctx;
	(void)ops;
	rv_provider_only(__func__);
}

/* The common part of a provider's CQ: plain initialisation, the same as
 * ibv_create_cq() does for ours (cq.c), the channel counting its CQs under
 * the context's mutex. */
RV_EXPORT void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
			     struct ibv_comp_channel *channel, void *cq_context)
{
	cq->context = context;
	cq->channel = channel;
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	cq->cq_context = cq_context;
	cq->comp_events_completed = 0;
	cq->async_events_completed = 0;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
}

/* ------------------------------------------------------------------------ */
/* ioctl command buffers                                                    */
/* ------------------------------------------------------------------------ */

RV_EXPORT int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd)
{
	(void)context;
	(void)cmd;
	return rv_provider_only(__func__);
}

/* Attributes of a chain of command buffers: @num_attrs plus, per buffer,
 * those filled so far (next_attr - hdr.attrs, 16-byte attributes). */
RV_EXPORT unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
					       struct ibv_command_buffer *link)
{
	while (link) {
		const uint8_t *b = (const uint8_t *)link;
		const uint8_t *next_attr;

		memcpy(&next_attr, b + sizeof(void *), sizeof(next_attr));
		num_attrs += (unsigned int)((next_attr - (b + RV_CMDBUF_ATTRS_OFF)) /
					    (ptrdiff_t)sizeof(struct ib_uverbs_attr));
		memcpy(&link, b, sizeof(link));
	}
	return num_attrs;
}

/* ------------------------------------------------------------------------ */
/* Kernel command marshalling: ibv_cmd_*                                    */
/* ------------------------------------------------------------------------ */

/*
 * A provider turns a verb on its own object into a uverbs command with
 * these. No such object exists here (no provider context can be created),
 * so each fails with EOPNOTSUPP without touching its arguments, which are
 * therefore unused. The prototypes are rdma-core 44's (driver.h).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define RV_CMD(name, ...)						\
	RV_EXPORT int name(__VA_ARGS__);				\
	int name(__VA_ARGS__)						\
	{								\
		return rv_provider_only(#name);				\
	}

RV_CMD(ibv_cmd_get_context, struct verbs_context *context, struct ibv_get_context *cmd,
       size_t cmd_size, struct ib_uverbs_get_context_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_query_context, struct ibv_context *ctx, struct ibv_command_buffer *driver)
RV_CMD(ibv_cmd_create_flow_action_esp, struct ibv_context *ctx,
       struct ibv_flow_action_esp_attr *attr, struct verbs_flow_action *flow_action,
       struct ibv_command_buffer *driver)
RV_CMD(ibv_cmd_modify_flow_action_esp, struct verbs_flow_action *flow_action,
       struct ibv_flow_action_esp_attr *attr, struct ibv_command_buffer *driver)
RV_CMD(ibv_cmd_query_device_any, struct ibv_context *context,
       const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr,
       size_t attr_size, struct ib_uverbs_ex_query_device_resp *resp, size_t *resp_size)
RV_CMD(ibv_cmd_query_port, struct ibv_context *context, uint8_t port_num,
       struct ibv_port_attr *port_attr, struct ibv_query_port *cmd, size_t cmd_size)
RV_CMD(ibv_cmd_alloc_pd, struct ibv_context *context, struct ibv_pd *pd,
       struct ibv_alloc_pd *cmd, size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp,
       size_t resp_size)
RV_CMD(ibv_cmd_dealloc_pd, struct ibv_pd *pd)
RV_CMD(ibv_cmd_open_xrcd, struct ibv_context *context, struct verbs_xrcd *xrcd,
       int vxrcd_size, struct ibv_xrcd_init_attr *attr, struct ibv_open_xrcd *cmd,
       size_t cmd_size, struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_close_xrcd, struct verbs_xrcd *xrcd)
RV_CMD(ibv_cmd_reg_mr, struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va,
       int access, struct verbs_mr *vmr, struct ibv_reg_mr *cmd, size_t cmd_size,
       struct ib_uverbs_reg_mr_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_rereg_mr, struct verbs_mr *vmr, uint32_t flags, void *addr, size_t length,
       uint64_t hca_va, int access, struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
       size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz)
RV_CMD(ibv_cmd_dereg_mr, struct verbs_mr *vmr)
RV_CMD(ibv_cmd_query_mr, struct ibv_pd *pd, struct verbs_mr *vmr, uint32_t mr_handle)
RV_CMD(ibv_cmd_advise_mr, struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
       uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
RV_CMD(ibv_cmd_reg_dmabuf_mr, struct ibv_pd *pd, uint64_t offset, size_t length,
       uint64_t iova, int fd, int access, struct verbs_mr *vmr)
RV_CMD(ibv_cmd_alloc_mw, struct ibv_pd *pd, enum ibv_mw_type type, struct ibv_mw *mw,
       struct ibv_alloc_mw *cmd, size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
       size_t resp_size)
RV_CMD(ibv_cmd_dealloc_mw, struct ibv_mw *mw)
RV_CMD(ibv_cmd_create_cq, struct ibv_context *context, int cqe,
       struct ibv_comp_channel *channel, int comp_vector, struct ibv_cq *cq,
       struct ibv_create_cq *cmd, size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
       size_t resp_size)
RV_CMD(ibv_cmd_create_cq_ex, struct ibv_context *context,
       const struct ibv_cq_init_attr_ex *cq_attr, struct verbs_cq *cq,
       struct ibv_create_cq_ex *cmd, size_t cmd_size,
       struct ib_uverbs_ex_create_cq_resp *resp, size_t resp_size, uint32_t cmd_flags)
RV_CMD(ibv_cmd_req_notify_cq, struct ibv_cq *cq, int solicited_only)
RV_CMD(ibv_cmd_resize_cq, struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
       size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_destroy_cq, struct ibv_cq *cq)
RV_CMD(ibv_cmd_modify_cq, struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
       struct ibv_modify_cq *cmd, size_t cmd_size)
RV_CMD(ibv_cmd_create_srq, struct ibv_pd *pd, struct ibv_srq *srq,
       struct ibv_srq_init_attr *attr, struct ibv_create_srq *cmd, size_t cmd_size,
       struct ib_uverbs_create_srq_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_create_srq_ex, struct ibv_context *context, struct verbs_srq *srq,
       struct ibv_srq_init_attr_ex *attr_ex, struct ibv_create_xsrq *cmd,
       size_t cmd_size, struct ib_uverbs_create_srq_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_modify_srq, struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
       int srq_attr_mask, struct ibv_modify_srq *cmd, size_t cmd_size)
RV_CMD(ibv_cmd_query_srq, struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
       struct ibv_query_srq *cmd, size_t cmd_size)
RV_CMD(ibv_cmd_destroy_srq, struct ibv_srq *srq)
RV_CMD(ibv_cmd_create_qp, struct ibv_pd *pd, struct ibv_qp *qp,
       struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd, size_t cmd_size,
       struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_create_qp_ex, struct ibv_context *context, struct verbs_qp *qp,
       struct ibv_qp_init_attr_ex *attr_ex, struct ibv_create_qp *cmd, size_t cmd_size,
       struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_create_qp_ex2, struct ibv_context *context, struct verbs_qp *qp,
       struct ibv_qp_init_attr_ex *qp_attr, struct ibv_create_qp_ex *cmd,
       size_t cmd_size, struct ib_uverbs_ex_create_qp_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_open_qp, struct ibv_context *context, struct verbs_qp *qp, int vqp_sz,
       struct ibv_qp_open_attr *attr, struct ibv_open_qp *cmd, size_t cmd_size,
       struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_query_qp, struct ibv_qp *qp, struct ibv_qp_attr *qp_attr, int attr_mask,
       struct ibv_qp_init_attr *qp_init_attr, struct ibv_query_qp *cmd, size_t cmd_size)
RV_CMD(ibv_cmd_modify_qp, struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
       struct ibv_modify_qp *cmd, size_t cmd_size)
RV_CMD(ibv_cmd_modify_qp_ex, struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
       struct ibv_modify_qp_ex *cmd, size_t cmd_size,
       struct ib_uverbs_ex_modify_qp_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_destroy_qp, struct ibv_qp *qp)
RV_CMD(ibv_cmd_create_ah, struct ibv_pd *pd, struct ibv_ah *ah, struct ibv_ah_attr *attr,
       struct ib_uverbs_create_ah_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_destroy_ah, struct ibv_ah *ah)
RV_CMD(ibv_cmd_attach_mcast, struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
RV_CMD(ibv_cmd_detach_mcast, struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
RV_CMD(ibv_cmd_create_flow, struct ibv_qp *qp, struct ibv_flow *flow_id,
       struct ibv_flow_attr *flow_attr, void *ucmd, size_t ucmd_size)
RV_CMD(ibv_cmd_destroy_flow, struct ibv_flow *flow_id)
RV_CMD(ibv_cmd_create_wq, struct ibv_context *context,
       struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
       struct ibv_create_wq *cmd, size_t cmd_size,
       struct ib_uverbs_ex_create_wq_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_destroy_flow_action, struct verbs_flow_action *action)
RV_CMD(ibv_cmd_modify_wq, struct ibv_wq *wq, struct ibv_wq_attr *attr,
       struct ibv_modify_wq *cmd, size_t cmd_size)
RV_CMD(ibv_cmd_destroy_wq, struct ibv_wq *wq)
RV_CMD(ibv_cmd_create_rwq_ind_table, struct ibv_context *context,
       struct ibv_rwq_ind_table_init_attr *init_attr,
       struct ibv_rwq_ind_table *rwq_ind_table,
       struct ib_uverbs_ex_create_rwq_ind_table_resp *resp, size_t resp_size)
RV_CMD(ibv_cmd_destroy_rwq_ind_table, struct ibv_rwq_ind_table *rwq_ind_table)
RV_CMD(ibv_cmd_create_counters, struct ibv_context *context,
       struct ibv_counters_init_attr *init_attr, struct verbs_counters *vcounters,
       struct ibv_command_buffer *link)
RV_CMD(ibv_cmd_destroy_counters, struct verbs_counters *vcounters)
RV_CMD(ibv_cmd_read_counters, struct verbs_counters *vcounters, uint64_t *counters_value,
       uint32_t ncounters, uint32_t flags, struct ibv_command_buffer *link)
RV_CMD(ibv_cmd_alloc_dm, struct ibv_context *ctx, const struct ibv_alloc_dm_attr *dm_attr,
       struct verbs_dm *dm, struct ibv_command_buffer *link)
RV_CMD(ibv_cmd_free_dm, struct verbs_dm *dm)
RV_CMD(ibv_cmd_reg_dm_mr, struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset,
       size_t length, unsigned int access, struct verbs_mr *vmr,
       struct ibv_command_buffer *link)

/* Posting through the kernel: the work requests are refused at the first
 * one, as a failed post reports it. */
RV_EXPORT int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr)
{
	*bad_wr = wr;
	return rv_provider_only(__func__);
}

RV_EXPORT int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return rv_provider_only(__func__);
}

RV_EXPORT int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
				    struct ibv_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return rv_provider_only(__func__);
}

/* A poll failure is a negative count (rdma-core: -1, errno set). */
RV_EXPORT int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	rv_provider_only(__func__);
	return -1;
}

#pragma GCC diagnostic pop
