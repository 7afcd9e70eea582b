#!/usr/bin/env python3
"""CTest (label pcap): per-link wire captures of system workloads decode as
RoCEv2 with tshark, with correct ICRCs.

    check_pcap.py <scratch dir> <program> [<program> ...]

Each program runs with RNIC_PCAP=<dir>/<name>/ (one pcap per node link, the
frames that node's TX sent and its RX took). Then for every capture:
  - tshark decodes every frame as eth:ethertype:ip:udp:infiniband (optionally
    followed by :data, the payload), with no malformed packet and no expert
    info of severity warning or error (_ws.malformed, _ws.expert.severity);
    with IPv4 checksum validation on, every IPv4 header checksum is good.
    The payload dissectors tshark tries on InfiniBand payloads by heuristics
    (RPC over RDMA, EoIB, SMB Direct, ...) are switched off: the payloads are
    test data, and a heuristic that fires on them reports its own protocol
    as malformed;
  - the ICRC of every frame is right. tshark 4.0's InfiniBand dissector shows
    the ICRC (infiniband.invariant.crc) but does not validate it, so this
    script computes it independently (RoCEv2, IBA annex A17.4.1 / A17.3.3):
    CRC-32 (Ethernet polynomial) over 8 bytes of 0xff standing for the LRH,
    the IPv4 header with TOS, TTL and header checksum set to all ones, the UDP
    header with its checksum set to all ones, the BTH with its reserved byte
    set to all ones, then the rest of the packet up to the ICRC; the ICRC is
    that CRC, least significant byte first;
  - the links agree: every frame node A sent to node B is in B's capture as
    received, in the same order (the wire is lossless without faults), and
    timestamps never go back.
"""
import os
import struct
import subprocess
import sys
import zlib

GOOD_PROTOS = ("eth:ethertype:ip:udp:infiniband", "eth:ethertype:ip:udp:infiniband:data")
# Heuristic payload dissectors of tshark 4.0 on InfiniBand (see the docstring).
NO_HEUR = ["--disable-heuristic", "mellanox_eoib", "--disable-heuristic", "eth_over_ib"]
for _p in ("smc", "smb_direct", "rpcordma", "nvme-rdma", "lnet", "iser", "infiniband_sdp",
           "fcoib", "drbd"):
    NO_HEUR += ["--disable-protocol", _p]


def read_pcap(path):
    """[(ts_ns, bytes)] of a nanosecond pcap."""
    data = open(path, "rb").read()
    magic, = struct.unpack_from("<I", data, 0)
    assert magic == 0xa1b23c4d, "%s: not a nanosecond little-endian pcap" % path
    _, _, _, _, _, link = struct.unpack_from("<HHiIII", data, 4)
    assert link == 1, "%s: link type %d, not Ethernet" % (path, link)
    off, out = 24, []
    while off < len(data):
        sec, nsec, incl, orig = struct.unpack_from("<IIII", data, off)
        off += 16
        assert incl == orig, "%s: truncated record" % path
        out.append((sec * 1000000000 + nsec, data[off:off + incl]))
        off += incl
    return out


def icrc_ok(f):
    ihl = (f[14] & 15) * 4
    ip_len = f[16] << 8 | f[17]
    end = 14 + ip_len			# Ethernet padding after the IP packet is not covered
    ip = bytearray(f[14:14 + ihl])
    ip[1] = 0xff			# TOS (DSCP, ECN)
    ip[8] = 0xff			# TTL
    ip[10:12] = b"\xff\xff"		# header checksum
    udp = bytearray(f[14 + ihl:22 + ihl])
    udp[6:8] = b"\xff\xff"		# UDP checksum
    bth = bytearray(f[22 + ihl:34 + ihl])
    bth[4] = 0xff			# reserved byte before the destination QP
    rest = f[34 + ihl:end - 4]
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + rest)
    return crc.to_bytes(4, "little") == f[end - 4:end]


def tshark(path):
    out = subprocess.run(
        ["tshark"] + NO_HEUR + ["-o", "ip.check_checksum:TRUE", "-r", path, "-T", "fields",
         "-E", "separator=|", "-e", "frame.number", "-e", "frame.protocols",
         "-e", "_ws.malformed", "-e", "_ws.expert.severity", "-e", "ip.checksum.status"],
        check=True, capture_output=True, text=True).stdout
    return [line.split("|") for line in out.splitlines() if line]


def node_of(ip):
    return ip[3] - 1	# 10.0.0.<n+1> is node n


def main(scratch, progs):
    bad, total = 0, 0
    for prog in progs:
        name = os.path.basename(prog)
        d = os.path.join(scratch, name) + "/"
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        env = dict(os.environ, RNIC_PCAP=d)
        env.pop("RNIC_TRACE", None)
        subprocess.run([prog], check=True, env=env, stdout=subprocess.DEVNULL)
        caps = {}
        for f in sorted(os.listdir(d)):
            if not f.endswith(".pcap"):
                continue
            node = int(f[len("node"):].split(".")[0])
            caps[node] = read_pcap(os.path.join(d, f))
            rows = tshark(os.path.join(d, f))
            if len(rows) != len(caps[node]):
                print("%s/%s: tshark saw %d frames, the file has %d"
                      % (name, f, len(rows), len(caps[node])))
                bad += 1
            for r in rows:
                num, protos, malformed, sev, ipck = (r + [""] * 5)[:5]
                sevs = [int(x) for x in sev.split(",") if x]
                if protos not in GOOD_PROTOS or malformed or ipck != "1" or \
                        any(s >= 6 for s in sevs):	# 6 warning, 8 error
                    print("%s/%s frame %s: protocols %s malformed %r expert %r ip checksum %r"
                          % (name, f, num, protos, malformed, sev, ipck))
                    bad += 1
            last = 0
            for k, (ts, fr) in enumerate(caps[node]):
                if not icrc_ok(fr):
                    print("%s/%s frame %d: wrong ICRC" % (name, f, k + 1))
                    bad += 1
                if ts < last:
                    print("%s/%s frame %d: time goes back" % (name, f, k + 1))
                    bad += 1
                last = ts
            total += len(caps[node])
        if len(caps) < 2:
            print("%s: %d link captures, expected one per node" % (name, len(caps)))
            bad += 1
            continue
        # What A sent to B is what B took from A, in order.
        for a in caps:
            for b in caps:
                sent = [fr for _, fr in caps[a]
                        if node_of(fr[26:30]) == a and node_of(fr[30:34]) == b]
                got = [fr for _, fr in caps[b]
                       if node_of(fr[26:30]) == a and node_of(fr[30:34]) == b]
                if a != b and sent != got:
                    print("%s: node%d sent %d frames to node%d, node%d received %d (or others)"
                          % (name, a, len(sent), b, b, len(got)))
                    bad += 1
    print("%d frames of %d programs checked (tshark decode, ICRC, link agreement), %d problem(s)"
          % (total, len(progs), bad))
    return 1 if bad or not total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
