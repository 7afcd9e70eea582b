#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# experiments.sh [study...] - the co-design studies of docs/experiments.md.
#
# Each study is one scripts/sweep.py command; it writes docs/data/<study>.csv
# (every point's measurements), docs/data/<study>.md (the table the docs
# quote) and docs/img/<study>_*.png. Build-time variants are built once into
# build-sweep/ and reused; the default build is ./build. Studies:
#   cost        Yosys cells / flip-flops / memory bits per block, datapath 128/256/512
#               (scripts/synth_cost.py: every block, techmap gates without abc, 8-entry
#               context tables; run it before datapath)
#   mem_latency small-WRITE latency and message rate vs host memory read latency
#   datapath    goodput vs message size for datapath widths 128/256/512, with cells
#   blueflame   post->CQE of 8..256-byte WRITEs with WQE-by-MMIO on and off
#   cq_mod      CQ events per message and latency vs the moderation count
#   qps         message rate and latency vs active QPs 1..1022 (every QP of the default
#               1024-context build but the reserved QPNs 0 and 1)
#   doorbells   chains of 1/4/16 WRs with one doorbell per chain or per WQE
#   tx_ring     the TX builder's frame ring: WRITE rate vs the frames it holds at once
#               (RNIC_TX_FRAMES 4/11/16), goodput vs its bytes (RNIC_TX_RING 8/16/32 KiB),
#               with the builder's Yosys cost of each
#   rwqe_cache  the WQE cache (RNIC_RWQE_CACHE 0/16/32/64 entries): 64-byte SEND and READ
#               cycles per message vs active QPs 1..128, with the cache's Yosys cost
# With no argument: all of them, in that order.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sweep="/usr/bin/python3 $root/scripts/sweep.py"
out=${SWEEP_OUT:-$root/build-sweep/out}
data=$root/docs/data
img=$root/docs/img
mkdir -p "$data" "$img"

# run <study> <sweep.py arguments...>: the sweep, then its CSV and table into docs/.
run() {
	local s=$1
	shift
	$sweep --out "$out/$s" --img-dir "$img" --name "$s" "$@"
	cp "$out/$s/results.csv" "$data/$s.csv"
	if [ -f "$out/$s/summary.md" ]; then cp "$out/$s/summary.md" "$data/$s.md"; fi
}

study_cost() {
	/usr/bin/python3 "$root/scripts/synth_cost.py" --no-abc \
		--variant RNIC_DATA_W=128 --variant RNIC_DATA_W=256 --variant RNIC_DATA_W=512 \
		--out "$data/synth_cost.csv" --md "$data/synth_cost.md"
}

study_mem_latency() {
	run mem_latency \
		--bench 'rnic_bench_op --op write --size 8 --qps {qps} --window 16 --msgs 2048 --kv' \
		--arg qps=1,8 --env RNIC_MEM_RD_LATENCY=25,50,100,200,400 \
		--plot 'x=RNIC_MEM_RD_LATENCY,y=lat_p50,series=qps,xlabel=host memory read latency (cycles),ylabel=8-byte WRITE post->CQE unloaded (cycles),file=mem_latency_lat.png' \
		--plot 'x=RNIC_MEM_RD_LATENCY,y=msg_rate_mpps,series=qps,xlabel=host memory read latency (cycles),ylabel=8-byte WRITEs (Mmsg/s at 250 MHz),file=mem_latency_rate.png' \
		--table RNIC_MEM_RD_LATENCY,qps,lat_p50,load_lat_p50,load_lat_p99,cycles_per_msg,msg_rate_mpps
}

study_datapath() {
	run datapath \
		--bench 'rnic_bench_op --op write --size {size} --msgs 256 --lat-reps 4 --kv' \
		--build RNIC_DATA_W=128,256,512 --arg size=64,256,1024,4096,16384,65536 \
		$(if [ -f "$data/synth_cost.csv" ]; then echo --cost "$data/synth_cost.csv"; fi) \
		--plot 'x=size,y=goodput_gbps,series=RNIC_DATA_W,logx,xlabel=WRITE size (bytes),ylabel=goodput (Gbit/s at 250 MHz),file=datapath_goodput.png' \
		--plot 'x=RNIC_DATA_W,y=cells,where=size:4096,xlabel=datapath width (bits),ylabel=Yosys cells of rnic_top,file=datapath_cells.png' \
		--table RNIC_DATA_W,size,goodput_gbps,goodput_pct,cycles_per_msg,lat_p50,cells,ffs,mem_bits
}

study_blueflame() {
	run blueflame \
		--bench 'rnic_bench_op --op write --size {size} --msgs 256 --kv' \
		--env RNIC_BLUEFLAME=0,1 --env RNIC_MEM_RD_LATENCY=50,200 --arg size=8,16,32,64,128,256 \
		--plot 'x=size,y=lat_p50,series=RNIC_BLUEFLAME,where=RNIC_MEM_RD_LATENCY:50,logx,xlabel=WRITE size (bytes),ylabel=post->CQE unloaded (cycles),title=memory read latency 50,file=blueflame_lat50.png' \
		--plot 'x=size,y=lat_p50,series=RNIC_BLUEFLAME,where=RNIC_MEM_RD_LATENCY:200,logx,xlabel=WRITE size (bytes),ylabel=post->CQE unloaded (cycles),title=memory read latency 200,file=blueflame_lat200.png' \
		--table RNIC_MEM_RD_LATENCY,size,RNIC_BLUEFLAME,lat_p50,load_lat_p50,msg_rate_mpps
}

study_cq_mod() {
	run cq_mod \
		--bench 'rnic_bench_op --op write --size 64 --msgs 2048 --window 32 --poll-batch 32 --events --cq-count {count} --cq-period 20 --kv' \
		--arg count=1,2,4,8,16,32 \
		--plot 'x=count,y=events_per_msg,logx,xlabel=cq_count (cq_period 20 us),ylabel=CQ events (interrupts) per message,file=cq_mod_events.png' \
		--plot 'x=count,y=load_lat_p50+load_lat_p99+lat_p50,logx,xlabel=cq_count (cq_period 20 us),ylabel=cycles,file=cq_mod_latency.png' \
		--table count,events,events_per_msg,event_timeouts,lat_p50,load_lat_p50,load_lat_p99,msg_rate_mpps
}

study_qps() {
	run qps \
		--bench 'rnic_bench_op --op write --size 64 --qps {qps} --window 4 --msgs 8192 --poll-batch 64 --lat-reps 64 --kv' \
		--arg qps=1,2,4,8,16,32,64,128,256,512,1022 \
		--plot 'x=qps,y=msg_rate_mpps,logx,xlabel=active RC QPs (window 4 each),ylabel=64-byte WRITEs (Mmsg/s at 250 MHz),file=qps_rate.png' \
		--plot 'x=qps,y=lat_p50+load_lat_p50+load_lat_p99,logx,logy,xlabel=active RC QPs (window 4 each),ylabel=cycles,file=qps_latency.png' \
		--table qps,msg_rate_mpps,cycles_per_msg,lat_p50,lat_p99,load_lat_p50,load_lat_p99,wall_s
}

study_doorbells() {
	run doorbells \
		--bench 'rnic_bench_op --op write --size 64 --msgs 2048 --window 16 --chain {chain} --kv' \
		--arg chain=1,4,16 --env RNIC_DB_BATCH=0,1 \
		--table RNIC_DB_BATCH,chain,msg_rate_mpps,cycles_per_msg,lat_p50,load_lat_p50,load_lat_p99
}

study_tx_ring() {
	local cost=$data/tx_ring_cost.csv
	/usr/bin/python3 "$root/scripts/synth_cost.py" --no-abc --blocks rnic_tx_builder \
		--variant RNIC_TX_FRAMES=4 --variant RNIC_TX_FRAMES=11 --variant RNIC_TX_FRAMES=16 \
		--variant RNIC_TX_RING=8192 --variant RNIC_TX_RING=32768 \
		--out "$cost" --md "$data/tx_ring_cost.md"
	run tx_frames \
		--bench 'rnic_bench_op --op write --size {size} --qps {qps} --window 4 --msgs 4096 --poll-batch 64 --kv' \
		--build RNIC_TX_FRAMES=4,11,16 --arg size=64,1024 --arg qps=2,16 \
		--cost "$cost" --cost-block rnic_tx_builder \
		--plot 'x=RNIC_TX_FRAMES,y=msg_rate_mpps,series=qps,where=size:64,xlabel=frames in the TX builder at once,ylabel=64-byte WRITEs (Mmsg/s at 250 MHz),file=tx_frames_rate.png' \
		--table RNIC_TX_FRAMES,size,qps,msg_rate_mpps,cycles_per_msg,goodput_pct,load_lat_p50,cells,ffs,mem_bits
	run tx_ring \
		--bench 'rnic_bench_op --op write --size {size} --qps 16 --window 4 --msgs 1024 --poll-batch 64 --kv' \
		--build RNIC_TX_RING=8192,16384,32768 --arg size=512,1024,4096,65536 \
		--cost "$cost" --cost-block rnic_tx_builder \
		--plot 'x=size,y=goodput_pct,series=RNIC_TX_RING,logx,xlabel=WRITE size (bytes),ylabel=goodput (% of the wire),file=tx_ring_goodput.png' \
		--table RNIC_TX_RING,size,goodput_gbps,goodput_pct,cycles_per_msg,lat_p50,cells,ffs,mem_bits
}

study_rwqe_cache() {
	local cost=$data/rwqe_cache_cost.csv
	/usr/bin/python3 "$root/scripts/synth_cost.py" --no-abc --blocks rnic_rwqe_cache \
		--variant RNIC_RWQE_CACHE=16 --variant RNIC_RWQE_CACHE=32 --variant RNIC_RWQE_CACHE=64 \
		--out "$cost" --md "$data/rwqe_cache_cost.md"
	run rwqe_cache \
		--bench 'rnic_bench_op --op {op} --size 64 --qps {qps} --window 4 --msgs 8192 --poll-batch 64 --kv' \
		--build RNIC_RWQE_CACHE=0,16,32,64 --arg op=send,read --arg qps=1,2,4,8,16,32,64,128 \
		--cost "$cost" --cost-block rnic_rwqe_cache \
		--plot 'x=qps,y=cycles_per_msg,series=RNIC_RWQE_CACHE,where=op:send,logx,logy,xlabel=active RC QPs (window 4 each),ylabel=64-byte SEND (cycles per message),file=rwqe_cache_send.png' \
		--plot 'x=qps,y=cycles_per_msg,series=RNIC_RWQE_CACHE,where=op:read,logx,logy,xlabel=active RC QPs (window 4 each),ylabel=64-byte RDMA READ (cycles per message),file=rwqe_cache_read.png' \
		--table RNIC_RWQE_CACHE,op,qps,cycles_per_msg,msg_rate_mpps,lat_p50,load_lat_p50,load_lat_p99,cells,ffs,mem_bits
}

studies=${*:-cost mem_latency datapath blueflame cq_mod qps doorbells tx_ring rwqe_cache}
for s in $studies; do
	echo "== $s" >&2
	"study_$s"
done
