# SPDX-License-Identifier: GPL-2.0
# Every parameter's bad values are refused: at load, modprobe fails with
# -EINVAL and a log line naming the parameter; at runtime the write fails
# and every parameter keeps its value.  Good values take effect at runtime.
. /pc/tests/vm/lib.sh

KO=/pc/module/pcompact.ko
PARAMS="enabled proactiveness wmark_low wmark_high order interval_ms stall_wake_ms reserve_ms any_cpu flush_pcp contig_when_quiet contig_when_stalled backoff_when_stalled progress_when_stalled contig_after_fallback drain_before_call nice max_defer_shift quota_ms run_max_mb stall_run_mb engine nodes takeover"
# name|value pairs that must be refused, one per line.
BAD="enabled|maybe
enabled|
enabled|2
proactiveness|-1
proactiveness|101
proactiveness|abc
proactiveness|
proactiveness|99999999999999999999
wmark_low|-2
wmark_low|101
wmark_low|x
wmark_high|-5
wmark_high|1000
order|0
order|11
order|-1
order|nine
interval_ms|0
interval_ms|9
interval_ms|60001
interval_ms|-500
stall_wake_ms|-1
stall_wake_ms|60001
stall_wake_ms|soon
reserve_ms|-1
reserve_ms|60001
reserve_ms|0x
any_cpu|maybe
any_cpu|2
flush_pcp|perhaps
flush_pcp|3
contig_when_quiet|sometimes
contig_when_quiet|2
contig_when_stalled|usually
contig_when_stalled|-1
backoff_when_stalled|whenever
backoff_when_stalled|5
progress_when_stalled|mostly
progress_when_stalled|-3
contig_after_fallback|afterwards
contig_after_fallback|7
drain_before_call|before
drain_before_call|4
nice|20
nice|-21
nice|calm
max_defer_shift|11
max_defer_shift|-1
quota_ms|1001
quota_ms|-1
quota_ms|1e3
run_max_mb|3
run_max_mb|1025
run_max_mb|0
run_max_mb|-256
run_max_mb|4M
stall_run_mb|1025
stall_run_mb|-4
stall_run_mb|4M
engine|turbo
engine|
engine|kallsyms
nodes|7
nodes|0-63
nodes|
nodes|zero
nodes|-1
takeover|sometimes"

tried=0
echo "$BAD" | while IFS='|' read -r name value; do
	dmesg -c >/dev/null
	if insmod $KO "$name=$value" 2>/dev/null; then
		rmmod pcompact
		fail "load with $name='$value' succeeded"
	fi
	[ ! -e /sys/module/pcompact ] || fail "module left after refused $name='$value'"
	dmesg | grep -q "pcompact: $name: " || fail "no log line naming $name for '$value'"
done || exit 1

# Thresholds in the wrong order are refused at load (checked together in init).
dmesg -c >/dev/null
insmod $KO wmark_low=60 wmark_high=40 2>/dev/null && fail "load with low 60 > high 40 succeeded"
dmesg | grep -q 'pcompact: wmark_low/wmark_high' || fail "no log line for thresholds in the wrong order"

insmod $KO || fail "insmod"
# A parameter this test does not know has no bad values tried: fail on it.
for p in $(ls /sys/module/pcompact/parameters); do
	case " $PARAMS " in *" $p "*) ;; *) fail "parameter $p is not covered by this test" ;; esac
done
param_state $PARAMS
before=$param_state
note "parameters: $(one_line "$before")"
echo "$BAD" | while IFS='|' read -r name value; do
	dmesg -c >/dev/null
	# echo adds the newline a user's write has: an empty value is "\n".
	if echo "$value" > /sys/module/pcompact/parameters/$name 2>/dev/null; then
		fail "runtime write $name='$value' succeeded"
	fi
	param_state $PARAMS
	[ "$param_state" = "$before" ] || fail "refused $name='$value' changed state: $(one_line "$param_state")"
	dmesg | grep -q "pcompact: $name: " || fail "no log line naming $name for runtime '$value'"
done || exit 1
# Wrong order at runtime, both ways.
echo 40 > $PC_PARAM/wmark_low || fail "wmark_low 40 refused"
echo 50 > $PC_PARAM/wmark_high || fail "wmark_high 50 refused"
echo 60 > $PC_PARAM/wmark_low 2>/dev/null && fail "wmark_low 60 above high 50 accepted"
echo 30 > $PC_PARAM/wmark_high 2>/dev/null && fail "wmark_high 30 below low 40 accepted"
[ "$(cat $PC_PARAM/wmark_low)" = 40 ] && [ "$(cat $PC_PARAM/wmark_high)" = 50 ] ||
	fail "refused threshold writes changed them"
echo -1 > $PC_PARAM/wmark_high || fail "wmark_high -1 refused"
echo -1 > $PC_PARAM/wmark_low || fail "wmark_low -1 refused"

# Good values take effect at once.
echo 50 > /sys/module/pcompact/parameters/proactiveness || fail "proactiveness 50"
[ "$(node_stat 0 wmark_low)" = 50 ] && [ "$(node_stat 0 wmark_high)" = 60 ] ||
	fail "proactiveness 50 did not give 50/60"
echo 1 > /sys/module/pcompact/parameters/nodes || fail "nodes=1"
wait_for "[ \$(node_stat 0 running) = 0 ]" 10 || fail "node 0 still running after nodes=1"
[ "$(node_stat 1 running)" = 1 ] || fail "node 1 stopped"
echo all > /sys/module/pcompact/parameters/nodes || fail "nodes=all"
wait_for "[ \$(node_stat 0 running) = 1 ]" 10 || fail "node 0 not restarted"
[ "$(cat $PC_PARAM/engine)" = node-sysfs ] || fail "default engine $(cat $PC_PARAM/engine)"
echo contig > $PC_PARAM/engine || fail "engine contig"
[ "$(cat $PC_PARAM/engine)" = contig ] || fail "engine contig reads back $(cat $PC_PARAM/engine)"
echo node-sysfs > $PC_PARAM/engine || fail "engine node-sysfs"
[ "$(cat $PC_PARAM/engine)" = node-sysfs ] || fail "engine node-sysfs reads back $(cat $PC_PARAM/engine)"
rmmod pcompact || fail "rmmod"
note "$(echo "$BAD" | wc -l) bad values refused at load and at runtime"
check_dmesg_clean
