// SPDX-License-Identifier: MIT
/*
 * sys_abi_private.c - the parts of the libibverbs ABI that have no public
 * header (rdma-core's driver.h, marshall.h; prototypes in
 * libverbs/rv_abi.h) do what docs/verbs.md ("The whole ABI") says:
 *
 *   sysfs          ibv_get_sysfs_path() is /sys; ibv_read_sysfs_file()
 *                  answers the devices' files (board_id, node_guid, fw_ver,
 *                  ports/1/{state,link_layer,rate,gids/0,gid_attrs/types/0},
 *                  uverbs ibdev/abi_version) consistently with the verbs,
 *                  fails for an unknown file (ENOENT) or a short buffer, and
 *                  reads any other path from the file system;
 *                  ibv_read_ibdev_sysfs_file() formats the name and reads
 *                  below a provider sysfs device's ibdev_path;
 *   gid_type       ibv_query_gid_type(): RoCE v2 for index 0, -1 beyond;
 *   marshall       ibv_copy_{qp,ah}_attr_from_kern and the path record
 *                  copies convert every field;
 *   register       verbs_register_driver_34() of a provider leaves the
 *                  device list as it was (rnic0, rnic1);
 *   open           verbs_open_device() opens our device without private
 *                  data and refuses private data (EOPNOTSUPP);
 *   provider_only  ibv_cmd_*, execute_ioctl and
 *                  _verbs_init_and_alloc_context fail with EOPNOTSUPP in
 *                  their conventions (errno value, -1, NULL; the cmd_fd
 *                  handed over is closed, bad_wr set);
 *   helpers        verbs_init_cq() initialises a CQ and counts it on its
 *                  channel; __ioctl_final_num_attrs() counts the attributes
 *                  of a chain; verbs_allow_disassociate_destroy is false.
 */
#define _GNU_SOURCE

#include "common.h"
#include "rnic_verbs_ext.h"
#include "rv_abi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Provider-only entry points (rdma-core's driver.h), a sample of each
 * return convention. */
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);

static struct ibv_device *find_dev(struct ibv_device **list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(ibv_get_device_name(*list), name))
			return *list;
	t_fail(__FILE__, __LINE__, "no device %s", name);
}

static void read_ok(const char *dir, const char *file, const char *exp)
{
	char buf[256];
	int n;

	memset(buf, 'x', sizeof(buf));
	n = ibv_read_sysfs_file(dir, file, buf, sizeof(buf));
	CHECKF(n >= 0, "%s/%s: %d errno %d", dir, file, n, errno);
	CHECKF((size_t)n == strlen(buf) && !strcmp(buf, exp),
	       "%s/%s: '%s' (%d), expected '%s'", dir, file, buf, n, exp);
}

static void check_sysfs(struct ibv_context *ctx, struct ibv_device *dev)
{
	struct ibv_device_attr da;
	char buf[256], exp[64];
	uint64_t g = be64toh(ibv_get_device_guid(dev));
	struct { uint8_t pad[RV_SYSFS_DEV_IBDEV_PATH_OFF]; char path[256]; } sd;

	CHECK(!strcmp(ibv_get_sysfs_path(), "/sys"));
	CHECK(!strcmp(dev->ibdev_path, "/sys/class/infiniband/rnic0"));
	CHECK(!strcmp(dev->dev_path, "/sys/class/infiniband_verbs/uverbs0"));
	CHECK_OK(ibv_query_device(ctx, &da));

	snprintf(exp, sizeof(exp), "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48),
		 (unsigned int)(g >> 32) & 0xffff, (unsigned int)(g >> 16) & 0xffff,
		 (unsigned int)g & 0xffff);
	read_ok(dev->ibdev_path, "node_guid", exp);
	read_ok(dev->ibdev_path, "sys_image_guid", exp);
	read_ok(dev->ibdev_path, "fw_ver", da.fw_ver);
	snprintf(exp, sizeof(exp), "RNIC-SIM-%u", rnic_verbs_data_bits());
	read_ok(dev->ibdev_path, "board_id", exp);
	read_ok(dev->ibdev_path, "node_type", "1: CA");
	read_ok(dev->ibdev_path, "ports/1/state", "4: ACTIVE");
	read_ok(dev->ibdev_path, "ports/1/phys_state", "5: LinkUp");
	read_ok(dev->ibdev_path, "ports/1/link_layer", "Ethernet");
	read_ok(dev->ibdev_path, "ports/1/gids/0",
		"0000:0000:0000:0000:0000:ffff:0a00:0001");
	read_ok(dev->ibdev_path, "ports/1/gid_attrs/types/0", "RoCE v2");
	read_ok(dev->ibdev_path, "ports/1/pkeys/0", "0xffff");
	CHECK(ibv_read_sysfs_file(dev->ibdev_path, "ports/1/rate", buf, sizeof(buf)) > 0);
	CHECKF(strstr(buf, " Gb/sec ("), "rate '%s'", buf);
	read_ok(dev->dev_path, "ibdev", "rnic0");
	read_ok(dev->dev_path, "abi_version", "1");

	errno = 0;
	CHECK_EQ(ibv_read_sysfs_file(dev->ibdev_path, "ports/1/gids/1", buf, sizeof(buf)), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(ibv_read_sysfs_file(dev->ibdev_path, "no_such_file", buf, sizeof(buf)), -1);
	/* "Ethernet" and its NUL do not fit 8 bytes */
	CHECK_EQ(ibv_read_sysfs_file(dev->ibdev_path, "ports/1/link_layer", buf, 8), -1);
	CHECK_EQ(ibv_read_sysfs_file(dev->ibdev_path, "ports/1/link_layer", buf, 9), 8);
	/* another path: the file system */
	read_ok("/proc/sys/kernel", "ostype", "Linux");
	CHECK_EQ(ibv_read_sysfs_file("/nonexistent", "x", buf, sizeof(buf)), -1);

	memset(&sd, 0, sizeof(sd));
	snprintf(sd.path, sizeof(sd.path), "%s", dev->ibdev_path);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), (struct verbs_sysfs_dev *)&sd,
					   "ports/%d/gid_attrs/types/%d", 1, 0), 7);
	CHECK(!strcmp(buf, "RoCE v2"));
	errno = 0;
	CHECK_EQ(ibv_read_ibdev_sysfs_file(buf, sizeof(buf), NULL, "fw_ver"), -1);
	CHECK_EQ(errno, EINVAL);
	printf("sysfs: ok\n");
}

static void check_gid_type(struct ibv_context *ctx)
{
	enum ibv_gid_type_sysfs t = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;

	CHECK_OK(ibv_query_gid_type(ctx, 1, 0, &t));
	CHECK_EQ(t, IBV_GID_TYPE_SYSFS_ROCE_V2);
	CHECK_EQ(ibv_query_gid_type(ctx, 1, 1, &t), -1);
	CHECK_EQ(ibv_query_gid_type(ctx, 2, 0, &t), -1);
	printf("gid_type: ok\n");
}

static void check_marshall(void)
{
	struct ib_uverbs_qp_attr k;
	struct ibv_qp_attr a;
	struct ib_user_path_rec kp, kp2;
	struct ibv_sa_path_rec p;
	unsigned int i;

	memset(&k, 0, sizeof(k));
	k.qp_state = 3;
	k.cur_qp_state = 2;
	k.path_mtu = IBV_MTU_2048;
	k.path_mig_state = 1;
	k.qkey = 0x11223344;
	k.rq_psn = 0x123456;
	k.sq_psn = 0x654321;
	k.dest_qp_num = 0x77;
	k.qp_access_flags = 7;
	k.max_send_wr = 11;
	k.max_recv_wr = 12;
	k.max_send_sge = 3;
	k.max_recv_sge = 4;
	k.max_inline_data = 64;
	for (i = 0; i < 16; i++)
		k.ah_attr.grh.dgid[i] = (uint8_t)(0xa0 + i);
	k.ah_attr.grh.flow_label = 0x12345;
	k.ah_attr.grh.sgid_index = 0;
	k.ah_attr.grh.hop_limit = 64;
	k.ah_attr.grh.traffic_class = 5;
	k.ah_attr.dlid = 9;
	k.ah_attr.sl = 2;
	k.ah_attr.is_global = 1;
	k.ah_attr.port_num = 1;
	k.alt_ah_attr.port_num = 1;
	k.pkey_index = 0;
	k.sq_draining = 1;
	k.max_rd_atomic = 4;
	k.max_dest_rd_atomic = 5;
	k.min_rnr_timer = 12;
	k.port_num = 1;
	k.timeout = 14;
	k.retry_cnt = 7;
	k.rnr_retry = 6;
	memset(&a, 0, sizeof(a));
	ibv_copy_qp_attr_from_kern(&a, &k);
	CHECK_EQ(a.qp_state, 0);	/* the caller's, as in rdma-core */
	CHECK_EQ(a.cur_qp_state, 2);
	CHECK_EQ(a.path_mtu, IBV_MTU_2048);
	CHECK_EQ(a.path_mig_state, 1);
	CHECK_EQ(a.qkey, 0x11223344);
	CHECK_EQ(a.rq_psn, 0x123456);
	CHECK_EQ(a.sq_psn, 0x654321);
	CHECK_EQ(a.dest_qp_num, 0x77);
	CHECK_EQ(a.qp_access_flags, 7);
	CHECK_EQ(a.cap.max_send_wr, 11);
	CHECK_EQ(a.cap.max_recv_wr, 12);
	CHECK_EQ(a.cap.max_send_sge, 3);
	CHECK_EQ(a.cap.max_recv_sge, 4);
	CHECK_EQ(a.cap.max_inline_data, 64);
	CHECK_MEM(a.ah_attr.grh.dgid.raw, k.ah_attr.grh.dgid, 16);
	CHECK_EQ(a.ah_attr.grh.flow_label, 0x12345);
	CHECK_EQ(a.ah_attr.grh.hop_limit, 64);
	CHECK_EQ(a.ah_attr.grh.traffic_class, 5);
	CHECK_EQ(a.ah_attr.dlid, 9);
	CHECK_EQ(a.ah_attr.sl, 2);
	CHECK_EQ(a.ah_attr.is_global, 1);
	CHECK_EQ(a.ah_attr.port_num, 1);
	CHECK_EQ(a.alt_ah_attr.port_num, 1);
	CHECK_EQ(a.sq_draining, 1);
	CHECK_EQ(a.max_rd_atomic, 4);
	CHECK_EQ(a.max_dest_rd_atomic, 5);
	CHECK_EQ(a.min_rnr_timer, 12);
	CHECK_EQ(a.port_num, 1);
	CHECK_EQ(a.timeout, 14);
	CHECK_EQ(a.retry_cnt, 7);
	CHECK_EQ(a.rnr_retry, 6);

	memset(&kp, 0, sizeof(kp));
	for (i = 0; i < 16; i++) {
		kp.dgid[i] = (uint8_t)i;
		kp.sgid[i] = (uint8_t)(0x80 | i);
	}
	kp.dlid = htobe16(3);
	kp.slid = htobe16(4);
	kp.raw_traffic = 1;
	kp.flow_label = htobe32(0x54321);
	kp.reversible = 1;
	kp.mtu = IBV_MTU_4096;
	kp.pkey = htobe16(0xffff);
	kp.hop_limit = 63;
	kp.traffic_class = 9;
	kp.numb_path = 1;
	kp.sl = 3;
	kp.mtu_selector = 2;
	kp.rate_selector = 2;
	kp.rate = 7;
	kp.packet_life_time_selector = 2;
	kp.packet_life_time = 18;
	kp.preference = 1;
	memset(&p, 0, sizeof(p));
	ibv_copy_path_rec_from_kern(&p, &kp);
	CHECK_MEM(p.dgid.raw, kp.dgid, 16);
	CHECK_MEM(p.sgid.raw, kp.sgid, 16);
	CHECK_EQ(p.dlid, htobe16(3));
	CHECK_EQ(p.flow_label, htobe32(0x54321));
	CHECK_EQ(p.mtu, IBV_MTU_4096);
	CHECK_EQ(p.packet_life_time, 18);
	CHECK_EQ(p.hop_limit, 63);
	memset(&kp2, 0, sizeof(kp2));
	ibv_copy_path_rec_to_kern(&kp2, &p);
	CHECK_MEM(&kp2, &kp, sizeof(kp));
	printf("marshall: ok\n");
}

/* A provider's registration: struct verbs_device_ops starts with its name;
 * the rest is never read here, so a zeroed tail stands for it. */
static const struct {
	const char *name;
	void *rest[16];
} fake_ops = { .name = "fake" };

static void check_register(void)
{
	struct ibv_device **list;
	int n;

	verbs_register_driver_34((const struct verbs_device_ops *)&fake_ops);
	list = CHECK_PTR(ibv_get_device_list(&n));
	CHECK_EQ(n, 2);
	CHECK(!strcmp(ibv_get_device_name(list[0]), T_DEV0));
	CHECK(!strcmp(ibv_get_device_name(list[1]), T_DEV1));
	CHECK(!list[2]);
	ibv_free_device_list(list);
	CHECK(!verbs_allow_disassociate_destroy);
	__verbs_log(NULL, 4, "must not appear: %d\n", 1);	/* level 0 by default */
	printf("register: ok\n");
}

static void check_open(struct ibv_device *dev)
{
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	int priv = 1;

	ctx = CHECK_PTR(verbs_open_device(dev, NULL));
	CHECK_OK(ibv_query_device(ctx, &da));
	CHECK_EQ(da.phys_port_cnt, 1);
	CHECK_OK(ibv_close_device(ctx));
	errno = 0;
	CHECK(!verbs_open_device(dev, &priv));
	CHECK_EQ(errno, EOPNOTSUPP);
	printf("open: ok\n");
}

static void check_provider_only(struct ibv_context *ctx, struct ibv_device *dev)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_pd pd;
	struct ibv_wc wc;
	int fd;

	errno = 0;
	CHECK_EQ(ibv_cmd_alloc_pd(ctx, &pd, NULL, 0, NULL, 0), EOPNOTSUPP);
	CHECK_EQ(errno, EOPNOTSUPP);
	CHECK_EQ(ibv_cmd_destroy_qp(NULL), EOPNOTSUPP);
	memset(&wr, 0, sizeof(wr));
	CHECK_EQ(ibv_cmd_post_send(NULL, &wr, &bad), EOPNOTSUPP);
	CHECK(bad == &wr);
	CHECK_EQ(ibv_cmd_poll_cq(NULL, 1, &wc), -1);
	CHECK_EQ(errno, EOPNOTSUPP);
	CHECK_EQ(execute_ioctl(ctx, NULL), EOPNOTSUPP);

	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	errno = 0;
	CHECK(!_verbs_init_and_alloc_context(dev, fd, 4096, NULL, 0));
	CHECK_EQ(errno, EOPNOTSUPP);
	CHECK_EQ(fcntl(fd, F_GETFD), -1);	/* handed over and closed */
	CHECK_EQ(errno, EBADF);
	printf("provider_only: ok\n");
}

static void check_helpers(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch = CHECK_PTR(ibv_create_comp_channel(ctx));
	struct { uint8_t head[RV_CMDBUF_ATTRS_OFF]; struct ib_uverbs_attr attrs[4]; } b1, b2;
	struct ibv_cq cq;
	void *p;

	memset(&cq, 0, sizeof(cq));
	verbs_init_cq(&cq, ctx, ch, &cq);
	CHECK(cq.context == ctx && cq.channel == ch && cq.cq_context == &cq);
	CHECK_EQ(ch->refcnt, 1);
	CHECK_EQ(ibv_destroy_comp_channel(ch), EBUSY);
	ch->refcnt--;			/* the provider's destroy would */
	pthread_cond_destroy(&cq.cond);
	pthread_mutex_destroy(&cq.mutex);
	CHECK_OK(ibv_destroy_comp_channel(ch));

	/* two buffers: 3 and 1 attributes filled */
	memset(&b1, 0, sizeof(b1));
	memset(&b2, 0, sizeof(b2));
	p = &b2;
	memcpy(b1.head, &p, sizeof(p));				/* next */
	p = &b1.attrs[3];
	memcpy(b1.head + sizeof(void *), &p, sizeof(p));	/* next_attr */
	p = &b2.attrs[1];
	memcpy(b2.head + sizeof(void *), &p, sizeof(p));
	CHECK_EQ(__ioctl_final_num_attrs(2, (struct ibv_command_buffer *)&b1), 6);
	CHECK_EQ(__ioctl_final_num_attrs(5, NULL), 5);
	printf("helpers: ok\n");
}

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_device *dev;

	list = CHECK_PTR(ibv_get_device_list(NULL));
	dev = find_dev(list, T_DEV0);
	ctx = CHECK_PTR(ibv_open_device(dev));

	check_sysfs(ctx, dev);
	check_gid_type(ctx);
	check_marshall();
	check_register();
	check_open(dev);
	check_provider_only(ctx, dev);
	check_helpers(ctx);

	CHECK_OK(ibv_close_device(ctx));
	ibv_free_device_list(list);
	printf("sys_abi_private: PASS\n");
	return 0;
}
