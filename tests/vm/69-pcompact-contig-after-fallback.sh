# SPDX-License-Identifier: GPL-2.0
# contig_after_fallback: with engine=node-sysfs, once a node's call of the
# kernel's compaction has made no progress, a round that starts within
# interval_ms of a direct compaction stall goes to the contig engine
# without calling it (fallback_contig_rounds); a round with no stall that
# recent calls it as before.  The test build's idle_node_sysfs makes every
# call end at once having done nothing, as a call whose free scanner finds
# no target does.  With the option off, a stalled round calls it.
TIMEOUT=900
. /pc/tests/vm/lib.sh

KO=/pc/module-faults/pcompact.ko
[ -f $KO ] || fail "$KO is missing (make pcompact-faults)"

insmod $KO enabled=0 engine=node-sysfs idle_node_sysfs=1 contig_after_fallback=Y interval_ms=10 ||
	fail "insmod"
[ "$(cat $PC_PARAM/contig_after_fallback)" = Y ] ||
	fail "contig_after_fallback reads $(cat $PC_PARAM/contig_after_fallback)"

# phase STALLED: fragment anew, stall allocations first when STALLED is 1
# (interval_ms 60000 then, so every round is within interval_ms of a stall),
# compact every node above the high threshold (ABOVE) to its end.  Sets
# FELL_BACK_<N> and AFTER_<N> for each node N of ABOVE to what the phase
# added to its engine_fallbacks (under idle_node_sysfs, one per call of the
# kernel's compaction) and fallback_contig_rounds, and IDLE to the calls
# idle_node_sysfs skipped on every node.
phase() {
	if [ "$1" = 1 ]; then
		fragment_anew --stalled
	else
		echo 10 > $PC_PARAM/interval_ms || fail "interval_ms 10"
		fragment_anew
	fi
	_idle=$(cat $PC_PARAM/idle_calls)
	# Every node's: compact_traced may choose ABOVE again.
	for nid in $(nodes_with_memory); do
		eval "_fb_$nid=$(node_stat $nid engine_fallbacks) _af_$nid=$(node_stat $nid fallback_contig_rounds)"
	done
	compact_traced pcompact/pcompact_range
	IDLE=$(($(cat $PC_PARAM/idle_calls) - _idle))
	_summary=""
	for nid in $ABOVE; do
		eval "FELL_BACK_$nid=\$((\$(node_stat $nid engine_fallbacks) - _fb_$nid))"
		eval "AFTER_$nid=\$((\$(node_stat $nid fallback_contig_rounds) - _af_$nid))"
		eval "_summary=\"\$_summary node $nid: \$FELL_BACK_$nid fallbacks, \$AFTER_$nid contig after a fallback;\""
	done
	note "stalled=$1: $IDLE idle kernel calls;$_summary $(grep -c 'pcompact_range:' /sys/kernel/tracing/trace) contig calls"
	stop_frag || fail "frag exit status $?"
	if module_loaded khugehog; then rmmod khugehog || fail "rmmod khugehog"; fi
}
# value NAME NID: the variable NAME_NID, 0 when the phase did not set it.
value() { eval "echo \${$1_$2:-0}"; }

# No stall: the kernel's compaction is called, makes no progress, and the
# round falls back to contig; such a node's call is now known fruitless.
phase 0
FLAGGED=""
for nid in $ABOVE; do
	[ "$(value AFTER "$nid")" = 0 ] || fail "node $nid: a round skipped the kernel's compaction with no stall"
	[ "$(value FELL_BACK "$nid")" -gt 0 ] && FLAGGED="$FLAGGED $nid"
done
[ -n "$FLAGGED" ] || fail "no node fell back after a fruitless call with no stall"

# Stalled: such a node goes straight to contig, the kernel's compaction not
# called (no fallback).  A node that did not fall back before calls it once.
phase 1
checked=0
for nid in $ABOVE; do
	case " $FLAGGED " in *" $nid "*) ;; *) continue ;; esac
	checked=$((checked + 1))
	[ "$(value AFTER "$nid")" -gt 0 ] || fail "node $nid: no stalled round went to contig after a fruitless call"
	[ "$(value FELL_BACK "$nid")" = 0 ] ||
		fail "node $nid: $(value FELL_BACK "$nid") kernel calls within interval_ms of a stall after a fruitless one"
done
[ "$checked" -gt 0 ] || fail "no node that fell back without a stall was above the high threshold with one (fell back:$FLAGGED, above:$ABOVE)"

# Off: a stalled round calls the kernel's compaction again.
echo N > $PC_PARAM/contig_after_fallback || fail "contig_after_fallback N"
phase 1
[ "$IDLE" -gt 0 ] || fail "with contig_after_fallback N no stalled round called the kernel's compaction"
for nid in $ABOVE; do
	[ "$(value AFTER "$nid")" = 0 ] || fail "with contig_after_fallback N node $nid skipped the call"
done

rmmod pcompact || fail "rmmod"
check_dmesg_clean
