#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench/gen_oncpu.sh: on-CPU cycles per frame of one or more generator
# binaries beside testpmd txonly, in the same round. A figure, not a test.
#
#   bench/gen_oncpu.sh AIFAB[:AIFAB...] IB_MTU [ROUNDS]
#
# Per binary and round: the process's user + system time of a 4 s run
# minus that of a 1 s run, over the frames sent in between, x the TSC
# rate (/proc/cpuinfo's MHz): CPU time, which a loaded machine inflates
# far less than busy TSC cycles (a preempted busy poll still counts TSC).
# The generator profile is bench/generator.sh's (2 ranks, ring AllReduce,
# open loop, two net_null sinks); testpmd txonly sends frames of the
# generator's length. Prints cycles/frame and the ratio to txonly's.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
AIFABS=${1:-}; MTU=${2:-}; ROUNDS=${3:-3}
[ -n "$MTU" ] || { sed -n "3,17p" "$0"; exit 2; }
PY=/usr/bin/python3
WORK=/tmp/aifab-bench-oncpu-$$; mkdir -p $WORK
LCORES=0,1
HZ=$(awk '/MHz/ {print $4*1e6; exit}' /proc/cpuinfo)
. $ROOT/bench/common.sh
cat > $WORK/tp.sh <<EOT
#!/bin/bash
exec /usr/bin/time -f "%U %S" -o $WORK/tp.time dpdk-testpmd "\$@"
EOT
chmod +x $WORK/tp.sh
TESTPMD=$WORK/tp.sh
GINI=$(gen_profile "$MTU")
gen() { # dur -> "cpu_s pkts len"
	local AIFAB=$2
	/usr/bin/time -f "%U %S" -o $WORK/g.time $AIFAB -l 0,1 --no-huge -m 1024 --no-pci --file-prefix aifab-oncpu-$$ \
		--vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 -- --profile $GINI --duration $1 --quiet --report-json $WORK/g.json > $WORK/g.log 2>&1
	$PY - $WORK/g.json $WORK/g.time <<'EOT'
import json,sys
r=json.load(open(sys.argv[1])); u,s=open(sys.argv[2]).read().split()[-2:]
tx=sum(p["tx_packets"] for p in r["ports"].values()); b=sum(p["tx_bytes"] for p in r["ports"].values())
print(float(u)+float(s), tx, round(b/tx))
EOT
}
tp() { # dur len -> "cpu_s pkts"
	local data=$(( ($2 + 128 + 127) / 128 * 128 )); [ "$data" -ge 2176 ] || data=2176
	DUR=$1
	testpmd_run tp$1 1024 3000 --vdev net_null0,no-rx=1 --vdev net_null1,no-rx=1 -- --forward-mode=txonly --txpkts=$2 --mbuf-size=$data --max-pkt-len=9000 --record-core-cycles > /dev/null
	$PY - $WORK/tp$1.testpmd.log $WORK/tp.time <<'EOT'
import re,sys
s=open(sys.argv[1],errors="replace").read()
m=re.search(r"total \w+ packets=(\d+)\)", s)
u,t=open(sys.argv[2]).read().split()[-2:]
print(float(u)+float(t), m[1])
EOT
}
for _ in $(seq 1 "$ROUNDS"); do
	gs=()
	for a in ${AIFABS//:/ }; do
		read c1 p1 len < <(gen 1 $a); read c4 p4 _ < <(gen 4 $a)
		gs+=("$(awk -v c1="$c1" -v c4="$c4" -v p1="$p1" -v p4="$p4" -v hz="$HZ" 'BEGIN { printf "%.1f", (c4-c1)/(p4-p1)*hz }')")
	done
	read t1 q1 < <(tp 1 $len); read t4 q4 < <(tp 4 $len)
	t=$(awk -v t1=$t1 -v t4=$t4 -v q1=$q1 -v q4=$q4 -v hz=$HZ 'BEGIN { printf "%.1f", (t4-t1)/(q4-q1)*hz }')
	out="mtu $MTU txonly $t |"
	for g in "${gs[@]}"; do out+=" $g ($(awk -v g=$g -v t=$t 'BEGIN { printf "%.2fx", g/t }'))"; done
	echo "$out | load $(cut -d' ' -f1-3 /proc/loadavg)"
done
rm -rf $WORK
