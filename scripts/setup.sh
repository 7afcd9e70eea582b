#!/usr/bin/env bash
# Install the Debian packages the build needs, only those that are missing.
set -euo pipefail
pkgs="cmake g++ make verilator yosys iverilog gtkwave tshark gnuplot perftest
python3-matplotlib python3-pyverbs libsystemc-dev libibverbs-dev ibverbs-utils ccache valgrind"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # tshark asks whether non-root users may capture; the default (no) is fine.
  $sudo apt-get install -y -qq --no-install-recommends $missing
fi
