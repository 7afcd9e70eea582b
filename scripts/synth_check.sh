#!/usr/bin/env bash
# Yosys read_verilog -sv + synth of rnic_top with small context tables and a
# 64-bit datapath. Usage: synth_check.sh <package.sv> <module.sv>...
set -euo pipefail
files="$*"
yosys -q -p "read_verilog -defer -sv $files; chparam -set DataW 64 -set NQp 8 -set NCq 4 -set NMr 8 rnic_top; synth -top rnic_top; stat" | tail -n 30
