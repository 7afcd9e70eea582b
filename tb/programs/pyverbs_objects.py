#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""pyverbs_objects.py - Debian's python3-pyverbs (Cython extension modules
linked to libibverbs.so.1) on the simulated RNIC, both nodes in this process:

  devices   get_device_list() lists rnic0 and rnic1;
  attrs     query_device / query_device_ex / query_port / query_gid /
            query_gid_type / query_gid_ex / query_gid_table / query_pkey give
            the documented identity and a RoCE v2 GID per node;
  objects   PD, MR, CQ and an RC QP per node; the QPs are connected (RESET ->
            RTS), query_qp reports RTS;
  write     an RDMA WRITE from rnic0 lands in rnic1's MR: completion fields
            and every byte checked;
  send      a SEND with immediate from rnic1 to rnic0: both completions and
            the bytes checked.

Prints one line per step and PASS; exits 1 at the first failed check.
"""
import sys

import pyverbs.device as d
import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

VENDOR_ID = 0x524e49
VENDOR_PART_ID = 1
IBV_GID_TYPE_SYSFS_ROCE_V2 = 1  # rdma-core's driver.h
POLL_BOUND = 100000              # empty polls (256 simulated cycles each)
SIZE = 4096


def check(cond, what):
    if not cond:
        print(f'FAIL: {what}')
        sys.exit(1)


def poll_one(cq, what):
    for _ in range(POLL_BOUND):
        n, wcs = cq.poll(1)
        if n:
            return wcs[0]
    check(False, f'{what}: no completion after {POLL_BOUND} polls')


def main():
    names = sorted(dev.name.decode() for dev in d.get_device_list())
    check(names == ['rnic0', 'rnic1'], f'device list {names}')
    print('devices: rnic0 rnic1: ok')

    ctxs = [d.Context(name=n) for n in names]
    guids = set()
    for i, ctx in enumerate(ctxs):
        a = ctx.query_device()
        check(a.vendor_id == VENDOR_ID, f'vendor_id {a.vendor_id:#x}')
        check(a.vendor_part_id == VENDOR_PART_ID, f'part {a.vendor_part_id}')
        check(a.phys_port_cnt == 1, 'phys_port_cnt')
        check(a.fw_version.startswith(f'{a.hw_ver}.'),
              f'fw_ver {a.fw_version} hw_ver {a.hw_ver}')
        check(a.node_guid == a.sys_image_guid, 'sys_image_guid')
        guids.add(a.node_guid)
        check(a.max_qp > 0 and a.max_cq > 0 and a.max_mr > 0 and a.max_pd > 0,
              'object limits')
        check(a.device_cap_flags & e.IBV_DEVICE_MEM_MGT_EXTENSIONS,
              'MEM_MGT_EXTENSIONS')
        ax = ctx.query_device_ex()
        check(ax.orig_attr.vendor_id == VENDOR_ID, 'query_device_ex')
        check(ax.phys_port_cnt_ex == 1, 'phys_port_cnt_ex')
        p = ctx.query_port(1)
        check(p.state == e.IBV_PORT_ACTIVE, f'port state {p.state}')
        check(p.link_layer == e.IBV_LINK_LAYER_ETHERNET, 'link layer')
        check(p.active_mtu == e.IBV_MTU_4096, 'active_mtu')
        check(p.lid == 0 and p.gid_tbl_len == 1, 'lid, gid_tbl_len')
        gid = str(ctx.query_gid(1, 0))
        check(gid == f'0000:0000:0000:0000:0000:ffff:0a00:{i + 1:04x}',
              f'GID {gid}')
        check(ctx.query_gid_type(1, 0) == IBV_GID_TYPE_SYSFS_ROCE_V2,
              'query_gid_type')
        ge = ctx.query_gid_ex(1, 0)
        check(ge.gid_type == e.IBV_GID_TYPE_ROCE_V2, 'query_gid_ex type')
        tbl = ctx.query_gid_table(4)
        check(len(tbl) == 1 and tbl[0].gid_type == e.IBV_GID_TYPE_ROCE_V2,
              'query_gid_table')
        check(ctx.query_pkey(1, 0) == 0xffff, 'pkey')
        print(f'attrs {names[i]}: vendor {a.vendor_id:#x} fw {a.fw_version} '
              f'GID {gid} RoCE v2: ok')
    check(len(guids) == 2, 'node GUIDs differ')

    access = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
              e.IBV_ACCESS_REMOTE_READ)
    pds = [PD(ctx) for ctx in ctxs]
    mrs = [MR(pd, SIZE, access) for pd in pds]
    cqs = [CQ(ctx, 16) for ctx in ctxs]
    cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
    init = QPAttr(port_num=1)
    init.qp_access_flags = access
    qps = [QP(pds[i], QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cqs[i], rcq=cqs[i],
                                 cap=cap), init)
           for i in range(2)]
    for i in range(2):
        peer = 1 - i
        attr = QPAttr(port_num=1)
        attr.path_mtu = e.IBV_MTU_1024
        attr.max_dest_rd_atomic = 1
        attr.max_rd_atomic = 1
        attr.min_rnr_timer = 12
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.dest_qp_num = qps[peer].qp_num
        attr.rq_psn = 100 + i
        attr.sq_psn = 100 + peer
        gr = GlobalRoute(dgid=ctxs[peer].query_gid(1, 0), sgid_index=0)
        attr.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
        qps[i].to_rts(attr)
    for qp in qps:
        qattr, _ = qp.query(e.IBV_QP_STATE)
        check(qattr.qp_state == e.IBV_QPS_RTS, f'QP state {qattr.qp_state}')
    print(f'objects: PD, MR, CQ, RC QP {qps[0].qp_num} <-> {qps[1].qp_num} '
          'in RTS: ok')

    data = bytes((7 * k + 3) & 0xff for k in range(SIZE))
    mrs[0].write(data, SIZE)
    mrs[1].write(b'\0' * SIZE, SIZE)
    wr = SendWR(wr_id=11, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mrs[0].buf, SIZE, mrs[0].lkey)])
    wr.set_wr_rdma(mrs[1].rkey, mrs[1].buf)
    qps[0].post_send(wr)
    wc = poll_one(cqs[0], 'WRITE')
    check(wc.status == e.IBV_WC_SUCCESS, f'WRITE status {wc.status}')
    check(wc.wr_id == 11 and wc.opcode == e.IBV_WC_RDMA_WRITE, 'WRITE wc')
    check(mrs[1].read(SIZE, 0) == data, 'WRITE bytes at rnic1')
    print(f'write: {SIZE} bytes rnic0 -> rnic1: ok')

    msg = b'pyverbs on the simulated RNIC'
    mrs[0].write(b'\0' * SIZE, SIZE)
    qps[0].post_recv(RecvWR(wr_id=21, num_sge=1,
                            sg=[SGE(mrs[0].buf, SIZE, mrs[0].lkey)]))
    mrs[1].write(msg, len(msg))
    wr = SendWR(wr_id=22, opcode=e.IBV_WR_SEND_WITH_IMM, num_sge=1,
                sg=[SGE(mrs[1].buf, len(msg), mrs[1].lkey)])
    wr.imm_data = 0x12345678
    qps[1].post_send(wr)
    wc = poll_one(cqs[1], 'SEND')
    check(wc.status == e.IBV_WC_SUCCESS and wc.wr_id == 22 and
          wc.opcode == e.IBV_WC_SEND, 'SEND wc')
    wc = poll_one(cqs[0], 'RECV')
    check(wc.status == e.IBV_WC_SUCCESS, f'RECV status {wc.status}')
    check(wc.wr_id == 21 and wc.opcode == e.IBV_WC_RECV, 'RECV wc')
    check(wc.byte_len == len(msg), f'RECV byte_len {wc.byte_len}')
    check(wc.wc_flags & e.IBV_WC_WITH_IMM, 'RECV with immediate')
    check(wc.qp_num == qps[0].qp_num and wc.src_qp == qps[1].qp_num,
          'RECV qp_num/src_qp')
    check(mrs[0].read(len(msg), 0) == msg, 'SEND bytes at rnic0')
    print(f'send: {len(msg)} bytes with immediate rnic1 -> rnic0: ok')

    for ctx in ctxs:
        ctx.close()
    print('PASS')


if __name__ == '__main__':
    main()
