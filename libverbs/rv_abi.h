/* SPDX-License-Identifier: MIT */
/*
 * rv_abi.h - the part of rdma-core 44's libibverbs ABI that has no installed
 * header: the sysfs and marshalling helpers and the IBVERBS_PRIVATE_34
 * provider interface (rdma-core's libibverbs/driver.h, marshall.h and
 * cmd_ioctl.h are not shipped by libibverbs-dev). Debian's libmlx5.so.1,
 * libefa.so.1, librdmacm.so.1 and programs import these symbols; the
 * prototypes below are the ones of rdma-core 44, so that the calling
 * convention matches. docs/verbs.md ("The whole ABI") says what each does
 * here.
 */
#ifndef RV_ABI_H
#define RV_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/sa.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_sa.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

/* GID types as ibv_query_gid_type() reports them (rdma-core's driver.h). */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};

/*
 * Structures of rdma-core's provider interface. Only pointers to them cross
 * this library, except for the members read below, whose offsets are those
 * of rdma-core 44 on LP64 (checked against the code of Debian's
 * libibverbs.so.1.14.44.0: ibv_read_ibdev_sysfs_file() reads ibdev_path at
 * 0xb0, __ioctl_final_num_attrs() finds hdr.attrs at 0x38, stepping 16-byte
 * attributes).
 */
struct verbs_device_ops;	/* starts with const char *name */
struct verbs_sysfs_dev;
struct verbs_context_ops;
struct ibv_command_buffer;
struct verbs_mr;
struct verbs_cq;
struct verbs_qp;
struct verbs_srq;
struct verbs_xrcd;
struct verbs_dm;
struct verbs_counters;
struct verbs_flow_action;
struct ibv_flow_action_esp_attr;
/* Kernel command layouts (rdma-core's generated kern-abi.h) */
struct ibv_get_context;
struct ibv_query_port;
struct ibv_alloc_pd;
struct ibv_open_xrcd;
struct ibv_reg_mr;
struct ibv_rereg_mr;
struct ibv_alloc_mw;
struct ibv_create_cq;
struct ibv_create_cq_ex;
struct ibv_resize_cq;
struct ibv_modify_cq;
struct ibv_create_srq;
struct ibv_create_xsrq;
struct ibv_modify_srq;
struct ibv_query_srq;
struct ibv_create_qp;
struct ibv_create_qp_ex;
struct ibv_open_qp;
struct ibv_query_qp;
struct ibv_modify_qp;
struct ibv_modify_qp_ex;
struct ibv_create_wq;
struct ibv_modify_wq;

#define RV_SYSFS_DEV_IBDEV_PATH_OFF	0xb0
#define RV_CMDBUF_ATTRS_OFF		0x38

/* sysfs.c */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

/* marshall.c */
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst, struct ib_uverbs_qp_attr *src);
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst, struct ib_uverbs_ah_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst, struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst, struct ibv_sa_path_rec *src);

/* device.c */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type);
/* The contents of the sysfs file @file (relative to the device's ibdev_path
 * or dev_path, @uverbs selecting which) of our device @d, without the
 * newline; ENOENT if sysfs has no such file for it. */
struct rv_device;
int rv_device_sysfs(struct rv_device *d, int uverbs, const char *file,
		    char *val, size_t size);
/* Our device whose ibdev_path (*uverbs = 0) or dev_path (*uverbs = 1) is
 * the directory of @path (the rest is returned in *rest), or NULL. */
struct rv_device *rv_device_by_path(const char *path, int *uverbs, const char **rest);

/* provider.c */
extern bool verbs_allow_disassociate_destroy;
void verbs_register_driver_34(const struct verbs_device_ops *ops);
void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct ibv_context *verbs_open_device(struct ibv_device *device, void *private_data);
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx, const struct verbs_context_ops *ops);
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);
int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd);
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
				     struct ibv_command_buffer *link);
/* The names of the providers that registered (verbs_register_driver_34). */
unsigned int rv_providers(const char **names, unsigned int max);

#endif /* RV_ABI_H */
