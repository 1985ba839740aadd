# SPDX-License-Identifier: GPL-2.0
# Argument fuzzing, reproducible (PC_FUZZ_SEED, default 1):
# - every pcompact parameter written at runtime with every value of a table
#   of edge cases (empty, signs, bases, overflow, garbage, long strings,
#   lists), and a share of them given at load: the outcome matches a
#   reference parser of the kernel's rules (kstrtoint base 0, kstrtobool,
#   node lists), a refused value is logged under the parameter's name and
#   changes nothing, an accepted one reads back as the reference says;
# - khugehog loaded with random parameter strings: either refused, naming
#   the parameter, and not loaded, or run and unloaded;
# - frag run with random argument lists: exit 0, or exit 2 with
#   "frag: error:" before allocating; never a crash or a hang.
TIMEOUT=400
. /pc/tests/vm/lib.sh

SEED=${PC_FUZZ_SEED:-1}
KO=/pc/module/pcompact.ko
PARAMS="enabled proactiveness wmark_low wmark_high order interval_ms stall_wake_ms reserve_ms any_cpu flush_pcp contig_when_quiet contig_when_stalled backoff_when_stalled progress_when_stalled contig_after_fallback drain_before_call nice max_defer_shift quota_ms run_max_mb stall_run_mb engine nodes takeover"
possible=$(cat /sys/devices/system/node/possible)
long=$(awk 'BEGIN { while (n++ < 300) printf "a" }')
digits=$(awk 'BEGIN { while (n++ < 200) printf "9" }')

# The values, one per line (a line may be empty: the empty value).
VALUES="
 
-1
-2
0
1
+5
-0
05
010
09
0x10
0X1f
0x
-0x10
9
10
11
80
99
100
101
1000
60000
60001
2147483647
2147483648
4294967296
-2147483648
-2147483649
18446744073709551616
$digits
1e3
1.5
abc
5x
x5
 5
5 
y
Y
n
N
yes
no
on
off
of
o
all
ALL
none
contig
node-sysfs
kallsyms
CONTIG
contig 
node
0-1
0,1
1,0
1-0
0-
-
,
0,,1
0-1023
1023
1024
%s%n
\$(reboot)
$long"

# expect: read "PARAM|VALUE" lines, print "PARAM|VALUE|EXPECTED", EXPECTED
# being "ok CANONICAL", "bad" or "any" (a case the kernels may differ on:
# kstrtobool's t/f arrived after 6.1).  The state is the default one:
# proactiveness 20 (thresholds 80/90).
expect() {
	awk -v possible="$possible" '
	function int_parse(s,    neg, base, i, c, d, n, digits) {
		if (s == "") return "bad"
		neg = 0
		if (substr(s, 1, 1) == "+") s = substr(s, 2)
		else if (substr(s, 1, 1) == "-") { neg = 1; s = substr(s, 2) }
		base = 10
		if (substr(s, 1, 1) == "0") {
			if (tolower(substr(s, 2, 1)) == "x" && index("0123456789abcdef", tolower(substr(s, 3, 1))) > 0) {
				base = 16; s = substr(s, 3)
			} else base = 8
		}
		if (s == "") return "bad"
		digits = "0123456789abcdef"
		n = 0
		for (i = 1; i <= length(s); i++) {
			d = index(digits, tolower(substr(s, i, 1))) - 1
			if (d < 0 || d >= base) return "bad"
			n = n * base + d
			if (n > 4294967296) return "bad"
		}
		if (neg) { if (n > 2147483648) return "bad"; return n ? -n : 0 }
		if (n > 2147483647) return "bad"
		return n
	}
	function range(s, lo, hi,    n) {
		n = int_parse(s)
		if (n == "bad" || n < lo || n > hi) return "bad"
		return "ok " n
	}
	function bool(s,    c, c2) {
		c = substr(s, 1, 1); c2 = tolower(substr(s, 2, 1))
		if (c == "y" || c == "Y" || c == "1") return "ok Y"
		if (c == "n" || c == "N" || c == "0") return "ok N"
		if ((c == "o" || c == "O") && c2 == "n") return "ok Y"
		if ((c == "o" || c == "O") && c2 == "f") return "ok N"
		if (index("tTfF", c) > 0 && c != "") return "any"
		return "bad"
	}
	function nodes(s,    n, i, item, ab, a, b) {
		if (s == "all") return "ok all"
		if (s == "") return "bad"
		n = split(s, item, ",")
		for (i = 1; i <= n; i++) {
			if (item[i] == "" && n > 1) return "any"
			if (item[i] ~ /^[0-9]+$/) { a = item[i] + 0; b = a }
			else if (item[i] ~ /^[0-9]+-[0-9]+$/) { split(item[i], ab, "-"); a = ab[1] + 0; b = ab[2] + 0 }
			else return "bad"
			if (a > b || b > possible_max) return "bad"
		}
		return "any"
	}
	BEGIN { split(possible, pm, "-"); possible_max = pm[2] == "" ? pm[1] + 0 : pm[2] + 0 }
	{
		p = substr($0, 1, index($0, "|") - 1); v = substr($0, length(p) + 2)
		if (p == "enabled" || p == "takeover" || p == "any_cpu" || p == "flush_pcp" ||
		    p == "contig_when_quiet" || p == "contig_when_stalled" ||
		    p == "backoff_when_stalled" || p == "progress_when_stalled" ||
		    p == "contig_after_fallback" || p == "drain_before_call") r = bool(v)
		else if (p == "proactiveness") r = range(v, 0, 100)
		else if (p == "wmark_low") r = range(v, -1, 100)
		else if (p == "wmark_high") { r = range(v, -1, 100); if (r != "bad" && r != "ok -1" && substr(r, 4) + 0 < 80) r = "bad" }
		else if (p == "order") r = range(v, 1, 10)
		else if (p == "interval_ms") r = range(v, 10, 60000)
		else if (p == "stall_wake_ms") r = range(v, 0, 60000)
		else if (p == "reserve_ms") r = range(v, 0, 60000)
		else if (p == "nice") r = range(v, -20, 19)
		else if (p == "max_defer_shift") r = range(v, 0, 10)
		else if (p == "quota_ms") r = range(v, 0, 1000)
		else if (p == "run_max_mb") r = range(v, 4, 1024)
		else if (p == "stall_run_mb") r = range(v, 0, 1024)
		else if (p == "engine") r = (v == "contig" || v == "node-sysfs") ? "ok " v : "bad"
		else if (p == "nodes") r = nodes(v)
		else r = "unknown"
		print p "|" v "|" r
	}'
}

for p in $PARAMS; do
	while IFS= read -r v; do printf '%s|%s\n' "$p" "$v"; done <<EOF
$VALUES
EOF
done | expect > /tmp/pc-fuzz
refused() { dmesg | tail -n 4 | grep -q "pcompact: $1"; }

# --- pcompact at runtime: every parameter, every value ---
insmod $KO || fail "insmod"
cd $PC_PARAM || fail "no $PC_PARAM"
# A parameter without a reference rule would go unfuzzed: fail on it.
for p in *; do
	case " $PARAMS " in *" $p "*) ;; *) fail "parameter $p is not fuzzed by this test" ;; esac
done
! grep -q '|unknown$' /tmp/pc-fuzz || fail "no reference rule for $(grep '|unknown$' /tmp/pc-fuzz | cut -d'|' -f1 | sort -u)"
param_state $PARAMS
base=$param_state
# loaded_values: every parameter back to what it read right after the load,
# whatever the defaults are.
loaded_values() {
	while IFS= read -r loaded; do
		[ -n "$loaded" ] || continue
		printf '%s\n' "${loaded#*=}" > "${loaded%%=*}" || fail "writing back $loaded"
	done <<EOF
$base
EOF
}
runtime=0
while IFS='|' read -r p v want; do
	if printf '%s\n' "$v" > $p 2>/dev/null; then
		got=
		IFS= read -r got < $p
		got="ok $got"
		case $want in
		any) ;;
		"ok "*) [ "$got" = "$want" ] || fail "$p='$v': reads back '${got#ok }', want '${want#ok }'" ;;
		*) fail "$p='$v' accepted (reads back '${got#ok }'), want refused" ;;
		esac
		loaded_values
	else
		case $want in
		"ok "*) fail "$p='$v' refused, want '${want#ok }'" ;;
		esac
		refused "$p: " || fail "$p='$v' refused without a log line naming $p"
	fi
	param_state $PARAMS
	[ "$param_state" = "$base" ] || fail "after $p='$v': $(one_line "$param_state")"
	runtime=$((runtime + 1))
done < /tmp/pc-fuzz
cd /
rmmod pcompact || fail "rmmod"
note "pcompact: $runtime runtime writes as the reference parser says"

# --- pcompact at load: a share of the same cases (every 11th, offset by the seed) ---
load=0
n=0
while IFS='|' read -r p v want; do
	n=$((n + 1))
	[ $(((n + SEED) % 11)) = 0 ] || continue
	case $v in *" "*) continue ;; esac	# the kernel splits arguments at spaces
	if insmod $KO "$p=$v" 2>/dev/null; then
		case $want in
		any) ;;
		"ok "*) [ "$(cat $PC_PARAM/$p)" = "${want#ok }" ] ||
				fail "load $p='$v': reads back '$(cat $PC_PARAM/$p)', want '${want#ok }'" ;;
		*) fail "load $p='$v' accepted, want refused" ;;
		esac
		rmmod pcompact || fail "rmmod after $p='$v'"
	else
		case $want in
		"ok "*) fail "load $p='$v' refused, want '${want#ok }'" ;;
		esac
		[ ! -e /sys/module/pcompact ] || fail "module left after refused $p='$v'"
		refused ".*$p" || fail "load $p='$v' refused without a log line naming $p"
	fi
	load=$((load + 1))
done < /tmp/pc-fuzz
note "pcompact: $load loads as the reference parser says"

# --- khugehog: random parameter strings ---
# A prefix keeps accepted runs short and light; the fuzzed arguments come
# after it and override it.
KHH=/pc/khugehog/khugehog.ko
khh=0
awk -v seed="$SEED" '
BEGIN {
	srand(seed)
	np = split("order gfp node delay_us stop_after_failures free_immediately pin max keep_free_mb bogus", P, " ")
	nv = split("0|1|3|9|10|11|-1|-2|1000001|4294967296|abc||kernel|thp|light|KERNEL|y|n|0x9|011|2M|9x|18446744073709551616", V, "|")
	for (i = 0; i < 40; i++) {
		line = ""
		k = 1 + int(rand() * 3)
		for (j = 0; j < k; j++) {
			p = P[1 + int(rand() * np)]
			v = V[1 + int(rand() * nv)]
			# Valid but heavy: no margin, or no limit on the count.
			if (p == "keep_free_mb" && (v == "0" || v == "1" || v == "3")) v = "1024"
			if (p == "max" && v !~ /^[1-9]$/) v = v "x"
			r = rand()
			if (r < 0.05) tok = p
			else if (r < 0.1) tok = "=" v
			else if (r < 0.15) tok = p "==" v
			else tok = p "=" v
			line = line " " tok
		}
		print line
	}
}' > /tmp/khh-fuzz
while IFS= read -r args; do
	dmesg -c >/dev/null
	# shellcheck disable=SC2086
	if insmod $KHH max=2 free_immediately=1 keep_free_mb=1024 $args 2>/tmp/khh.err; then
		[ -r /proc/khugehog/summary ] || fail "khugehog$args: loaded without a summary"
		rmmod khugehog || fail "khugehog$args: rmmod"
	else
		module_loaded khugehog && fail "khugehog$args: refused but loaded"
		dmesg | grep -q 'khugehog' || fail "khugehog$args: refused without a kernel log line: $(cat /tmp/khh.err)"
	fi
	khh=$((khh + 1))
done < /tmp/khh-fuzz
note "khugehog: $khh random parameter strings, each refused cleanly or run"

# --- frag: random argument lists ---
cd /tmp || fail "no /tmp"
awk -v seed="$SEED" -v long="$long" '
BEGIN {
	srand(seed)
	no = split("--size --percent --keep --pattern --seed --map --verify --ready-file --hold --hold-seconds --thp-touch --help -h --bogus -x -- --- --size= --keep=1/2 --pattern=chunk --seed=7 --verify=1 --map= x", O, " ")
	nv = split("|0|1|-1|4M|4m|2M|1K|1T|99999999999999999999|0.5|1/3|1/0|0/1|abc|stride|chunk|random|nan|inf|1e3|0x10|%s%n|/tmp/fz.csv|/nonexistent/x|=|" long, V, "|")
	for (i = 0; i < 60; i++) {
		line = ""
		k = 1 + int(rand() * 4)
		for (j = 0; j < k; j++)
			line = line (j ? "|" : "") (rand() < 0.6 ? O[1 + int(rand() * no)] : V[1 + int(rand() * nv)])
		print line
	}
}' > /tmp/frag-fuzz
fr=0
while IFS= read -r line; do
	# "|" separates the arguments, so an argument may be empty.
	set -f
	oldifs=$IFS
	IFS='|'
	# shellcheck disable=SC2086
	set -- $line
	IFS=$oldifs
	set +f
	rm -f /tmp/fz.csv
	timeout 60 /pc/bin/frag --hold-seconds 0 --size 4M "$@" >/tmp/fz.out 2>/tmp/fz.err
	rc=$?
	case $rc in
	0) grep -q -e '^frag: exit status=0' -e '^Usage: frag' /tmp/fz.out ||
		fail "frag$(printf ' [%s]' "$@"): exit 0 without an exit line: $(tail -n 2 /tmp/fz.out)" ;;
	2) grep -q '^frag: error: ' /tmp/fz.err || fail "frag$(printf ' [%s]' "$@"): exit 2 without a message"
	   grep -q '^frag: start' /tmp/fz.out && fail "frag$(printf ' [%s]' "$@"): allocated before refusing" ;;
	*) fail "frag$(printf ' [%s]' "$@"): exit $rc: $(cat /tmp/fz.err)" ;;
	esac
	fr=$((fr + 1))
done < /tmp/frag-fuzz
note "frag: $fr random argument lists, each run or refused with exit 2"
note "$((runtime + load + khh + fr)) fuzzed inputs (seed $SEED)"
check_dmesg_clean
