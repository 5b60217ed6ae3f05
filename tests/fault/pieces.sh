#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's side of the whole failure sweep (scripts/fault-sweep,
# FAULT_SWEEP=full; tests/fault/campaign.py plans and records): runs the
# queue's lines in order, a piece at a time, and starts no piece once
# SECONDS have passed. xqp.ko is loaded; xqp_soft.ko, xqp_kunit.ko,
# xqp_ibdev.ko, xqp-acceptance and xqp-link-faults are where
# scripts/fault-sweep puts them.
#
# Usage: pieces.sh QUEUE SECONDS RANGE
# Prints per piece: FAULT-PIECE pass|fail SECONDS end=N|- PIECE | DETAIL
# and at the end FAULT-PIECES-END ran=N stopped=deadline|queue
queue=$1 budget=$2 range=$3
start=$(date +%s)
ran=0

soft=/lib/xqp/xqp_soft.ko kunit=/lib/xqp/xqp_kunit.ko ibdev=/lib/xqp/xqp_ibdev.ko
acc=/xqp/acc/xqp-acceptance links=/xqp/acc/xqp-link-faults

insmod $soft devices=2 || { echo "FAULT-PIECES-ERROR insmod xqp_soft devices=2 failed"; exit 1; }

time_left() { [ $(($(date +%s) - start)) -lt "$budget" ]; }

# piece RESULT T0 END PIECE DETAIL
piece() {
	echo "FAULT-PIECE $1 $(($(date +%s) - $2)) end=$3 $4 | $5"
	ran=$((ran + 1))
}

# kunit CASE K/N: xqp_fault's CASE, every errno, part K of N
run_kunit() {
	t0=$(date +%s)
	# (no newline: the glob would end in one and match no test)
	printf %s "xqp_fault.$1" >/sys/module/kunit/parameters/filter_glob
	dmesg -c >/dev/null
	insmod $kunit fault_sweep=2 fault_parts="${2#*/}" fault_part="${2%/*}"
	rc=$?
	rmmod xqp_kunit
	res=$(dmesg | grep -E "\] +(not )?ok [0-9]+ $1( |\$)" | tail -n 1)
	sums=$(dmesg | awk '/xqp_fault: (alloc|ops|work) / {
		n++; for (i = 1; i < NF; i++) {
			if ($(i + 1) == "failure") p += $i
			if ($(i + 1) == "runs") r += $i } }
		END { printf "%d programs, %d failure points, %d op runs", n, p, r }')
	case "$res" in
	*"] not ok"*|"") piece fail "$t0" - "kunit $1 $2" "insmod $rc; ${res:-no KTAP result}; $sums" ;;
	*"# SKIP"*) piece pass "$t0" - "kunit $1 $2" "$sums; no program in this part" ;;
	*) piece pass "$t0" - "kunit $1 $2" "$sums" ;;
	esac
}

# judged T0 PIECE OUTPUT: the piece a program's last PASS or FAIL line
# makes (end=N where the line says the sweep reached no allocation at N, in
# $end); status 1 for a FAIL or no such line (then the output's last line)
judged() {
	line=$(echo "$3" | grep -E '^(PASS|FAIL) ' | tail -n 1)
	end=$(echo "$line" | sed -n 's/.*[ ,]end \([0-9]*\).*/\1/p')
	case "$line" in
	PASS*) piece pass "$1" "${end:--}" "$2" "${line#PASS }" ;;
	*) piece fail "$1" - "$2" "${line:-$(echo "$3" | tail -n 1)}"; return 1 ;;
	esac
}

# ranged KIND FIRST: pieces of RANGE from FIRST until the end or the deadline
# (acc CASE FIRST, link add FIRST)
run_ranged() {
	first=$1
	shift
	while :; do
		last=$((first + range - 1)) t0=$(date +%s)
		case "$1" in
		acc) out=$($acc -F "$first-$last" -c "$2" /dev/xqp/uverbs0 2>&1) ;;
		link) out=$($links "$first-$last" add 2>&1) ;;
		esac
		judged "$t0" "$* $first-$last" "$out" || return
		[ -n "$end" ] && return
		first=$((last + 1))
		time_left || return
	done
}

stopped=queue
while read -r kind a b; do
	time_left || { stopped=deadline; break; }
	case "$kind" in
	kunit) run_kunit "$a" "$b" ;;
	acc) run_ranged "$b" acc "$a" ;;
	link)
		if ! lsmod | grep -q '^xqp_ibdev'; then
			insmod $ibdev || { echo "FAULT-PIECES-ERROR insmod xqp_ibdev failed"; exit 1; }
		fi
		if [ "$a" = gid ]; then
			t0=$(date +%s)
			judged "$t0" "link gid" "$($links 1 gid 2>&1)"
		else
			run_ranged "$b" link add
		fi ;;
	*) echo "FAULT-PIECES-ERROR a queue line of no kind: $kind $a $b"; exit 1 ;;
	esac
done <"$queue"
time_left || stopped=deadline
echo "FAULT-PIECES-END ran=$ran stopped=$stopped"
