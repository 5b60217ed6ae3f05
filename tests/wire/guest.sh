#!/bin/sh
# One guest of scripts/wire-guests: its NIC (eth0, a QEMU network shared
# with the other guest only) carries an rxe or an xqp link; both guests run
# this same list of cases in the same order, each case's server on one guest
# and its client on the other. The guests keep in step by messages on TCP
# port 7000 (busybox nc): the server's side starts the server, waits until
# it listens and sends "go N"; the client's side, told, runs the client and
# sends back "done N STATUS". The server's side judges the case and writes
# its line; the host merges both guests' lines.
# Settings in /xqp/wg/env (see scripts/wire-guests), CASE_ONLY in
# /xqp/wg/only.
. /xqp/wg/env
. /xqp/lib/rping_race.sh
ONLY=$(cat /xqp/wg/only)
export PATH=/usr/bin:/bin:/usr/sbin:/sbin
out=/tmp/wg.out
: >$out
pass() { echo "PASS $*" >>$out; }
fail() { echo "FAIL $1: $2" >>$out; }
# the programs' words that the host's console judge would take for the
# kernel's (perftest prints "WARNING: BW peak ...")
defang() {
	sed -e 's/WARNING:/Warning:/g' -e 's/BUG:/Bug:/g' -e 's/KASAN:/Kasan:/g' -e 's/UBSAN:/Ubsan:/g' \
		-e 's/Call Trace:/Call trace:/g' -e 's/Oops/oops/g' -e 's/Kernel panic/kernel panic/g'
}
tails() { # FILE...: the last lines of each, indented
	for f in "$@"; do
		[ -s "$f" ] && tail -n 6 "$f" | defang | sed "s#^#    $ME ${f##*/}| #" >>$out
	done
}
finish() {
	echo "WG-RESULTS-BEGIN"; cat $out; echo "WG-RESULTS-END"
	exit 0	# failures are in the results; the console is judged on the host
}
wait_for() { # SECONDS COMMAND...: until COMMAND succeeds
	t=$(( $1 * 5 )); shift
	while [ $t -gt 0 ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; t=$((t - 1)); done
	return 1
}
running() { [ -e /proc/$1 ] && [ "$(cut -d' ' -f3 /proc/$1/stat 2>/dev/null)" != Z ]; }
sys=/sys/class/infiniband
dbg=/sys/kernel/debug/xqp_soft

# ---- the guests' messages: a mailbox filled by a listener that re-arms ----
box=/tmp/mailbox
: >$box
( while :; do busybox nc -l -p 7000 </dev/null >>$box 2>/dev/null; done ) &
send() { # MESSAGE: to the other guest, retried until its listener takes it
	i=0
	until echo "$*" | busybox nc $PEER_IP 7000 2>/dev/null; do
		i=$((i + 1)); [ $i -lt 1500 ] || return 1; sleep 0.2
	done
}
receive() { # PREFIX SECONDS: the first line of the box starting with PREFIX
	i=$(( $2 * 5 ))
	while [ $i -gt 0 ]; do
		line=$(grep -m1 "^$1\( \|\$\)" $box) && { echo "$line"; return 0; }
		sleep 0.2; i=$((i - 1))
	done
	return 1
}

# ---- the link on the NIC ----
$IP link set lo up
# IPv4 10.88.0.N and IPv6 fd88::N (no duplicate detection: the GID is there at once)
MY_IP6=fd88::${MY_IP##*.} PEER_IP6=fd88::${PEER_IP##*.}
$IP link set eth0 up && $IP addr add $MY_IP/24 dev eth0 && $IP -6 addr add $MY_IP6/64 dev eth0 nodad ||
	{ fail setup "eth0 up at $MY_IP and $MY_IP6"; finish; }
case $KIND in
rxe) DEV=rxe0; $RDMA link add rxe0 type rxe netdev eth0 >/tmp/link.log 2>&1 ;;
xqp) DEV=xqp0; $RDMA link add xqp0 type xqp netdev eth0 >/tmp/link.log 2>&1 ;;
esac || { fail "$ME setup" "rdma link add $DEV type $KIND netdev eth0"; tails /tmp/link.log; finish; }
gid_index() { # DEV IP: the index of DEV's RoCE v2 GID ::ffff:IP, or of fd88::N
	case $2 in
	fd88::*) gid=$(printf 'fd88:0000:0000:0000:0000:0000:0000:%04x' ${2#fd88::});;
	*) gid=0000:0000:0000:0000:0000:ffff:$(echo $2 | awk -F. '{ printf "%02x%02x:%02x%02x", $1, $2, $3, $4 }');;
	esac
	for g in $sys/$1/ports/1/gids/*; do
		[ "$(cat $g)" = "$gid" ] || continue
		[ "$(cat $sys/$1/ports/1/gid_attrs/types/${g##*/})" = "RoCE v2" ] || continue
		echo ${g##*/}; return 0
	done
	return 1
}
wait_for 20 gid_index $DEV $MY_IP || { fail "$ME setup" "no RoCE v2 GID ::ffff:$MY_IP on $DEV"; finish; }
GIDX=$(gid_index $DEV $MY_IP)
wait_for 20 gid_index $DEV $MY_IP6 || { fail "$ME setup" "no RoCE v2 GID $MY_IP6 on $DEV"; finish; }
GIDX6=$(gid_index $DEV $MY_IP6)
wait_for 60 ping -c 1 -W 1 $PEER_IP || { fail "$ME setup" "no ping to $PEER_IP"; finish; }
wait_for 20 ping -6 -c 1 -W 1 $PEER_IP6 || { fail "$ME setup" "no ping to $PEER_IP6"; finish; }
pass "$ME setup ($DEV on eth0 at $MY_IP and $MY_IP6, GID indexes $GIDX and $GIDX6, $(cat $sys/$DEV/ports/1/state))"

# ---- servers ready ----
tcp_listening() { # PORT
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$(printf '%04X' $1)" \
		'$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}
cm_listening() { $RDMA res show cm_id 2>/dev/null | grep "state LISTEN" | grep -qE ":$1( |\$)"; }
await() { # KIND PID PORT: until the server listens (tcp or cm) or has joined its group (joined: mckey), at most 20 s
	i=0
	while [ $i -lt 100 ] && running $2; do
		case $1 in tcp) tcp_listening $3 && return 0;; cm) cm_listening $3 && return 0;;
		joined) grep -q "joined dgid" /tmp/s.$n && return 0;; esac
		sleep 0.2; i=$((i + 1))
	done
	return 1
}
reap() { # PID SECONDS: its status, after killing it if it runs longer
	i=$(( $2 * 5 ))
	while running $1 && [ $i -gt 0 ]; do sleep 0.2; i=$((i - 1)); done
	running $1 && kill -9 $1 2>/dev/null
	wait $1
}

# ---- the cases ----
# what each side holds when a client is stuck
qps_dump() { # WHY
	echo "    $ME at $1:" >>$out
	if [ $KIND = xqp ]; then sed "s/^/    $ME qps| /" $dbg/$DEV/qps >>$out
	else $RDMA res show qp 2>&1 | sed "s/^/    $ME qps| /" >>$out; fi
}
n=0 CLIENTS=1
# run SERVER_SIDE NAME SERVER_CMD -- CLIENT_CMD: the server's command on
# guest SERVER_SIDE (a or b), the client's on the other, CLIENTS of them at
# once; @GIDX@, @PEER@, @SELF@ (IPv4), @GIDX6@, @PEER6@, @SELF6@ (IPv6) and
# @PORT@ are filled in on each side. A
# client still running after T seconds is stuck: both sides show their
# QPs, then it is killed.
run() {
	side=$1 name=$2; shift 2
	n=$((n + 1)); port=$((18600 + n))
	scmd= ccmd= in=s
	for w in "$@"; do
		[ "$w" = -- ] && { in=c; continue; }
		w=$(printf '%s\n' "$w" | sed -e "s/@GIDX@/$GIDX/g" -e "s/@PEER@/$PEER_IP/g" \
			-e "s/@SELF@/$MY_IP/g" -e "s/@GIDX6@/$GIDX6/g" -e "s/@PEER6@/$PEER_IP6/g" \
			-e "s/@SELF6@/$MY_IP6/g" -e "s/@PORT@/$port/g")
		if [ $in = s ]; then scmd="$scmd $w"; else ccmd="$ccmd $w"; fi
	done
	if [ -n "$ONLY" ] && ! echo "$name" | grep -qE "$ONLY"; then return 0; fi
	listen=tcp
	case $scmd in *rping*) listen=cm;; *mckey*) listen=joined;; esac
	if [ $side = $ME ]; then
		timeout $((T + 30)) stdbuf -oL $scmd >/tmp/s.$n 2>&1 &
		sp=$!
		if await $listen $sp $port; then send "go $n"; else send "go $n nostart"; fi
		i=$(( (T + 60) * 5 )) reply=
		while [ $i -gt 0 ]; do
			reply=$(grep -m1 "^done $n " $box) && break
			if grep -q "^dump $n\$" $box && ! [ -e /tmp/dumped.$n ]; then
				: >/tmp/dumped.$n; qps_dump "the server of $name, its client stuck"; send "dumped $n"
			fi
			sleep 0.2; i=$((i - 1))
		done
		[ -n "$reply" ] || reply="done $n none"
		st=0; reap $sp 20 || st=$?
		cst=${reply#done $n }
		if [ "$st" = 0 ] && [ "$cst" = 0 ]; then
			pass "$name ($(figure /tmp/s.$n))"
		else
			fail "$name" "server ($ME) status $st, client status $cst"
			tails /tmp/s.$n
			echo "    client's output: see the other guest's lines" >>$out
		fi
		return 0
	fi
	msg=$(receive "go $n" $((T + 60))) || msg=
	if [ "$msg" != "go $n" ]; then send "done $n nostart"; return 0; fi
	t0=$(cut -d' ' -f1 /proc/uptime)
	c=0 pids=
	while [ $c -lt $CLIENTS ]; do
		stdbuf -oL $ccmd >/tmp/c.$n.$c 2>&1 &
		pids="$pids $!"; c=$((c + 1))
	done
	i=$((T * 5)) alive=1
	while [ $i -gt 0 ] && [ $alive = 1 ]; do
		alive=0
		for p in $pids; do running $p && alive=1; done
		[ $alive = 1 ] && { sleep 0.2; i=$((i - 1)); }
	done
	if [ $alive = 1 ]; then
		qps_dump "a stuck client of $name"
		send "dump $n" && receive "dumped $n" 15 >/dev/null
		for p in $pids; do kill -9 $p 2>/dev/null; done
	fi
	cst=0 c=0
	for p in $pids; do
		wait $p; s=$?
		if [ $s = 255 ] && rping_teardown_race /tmp/c.$n.$c; then
			echo "    $ME client $c of $name: exit 255 in rping's teardown race (its cm thread asked for an event after main had destroyed the channel): taken as 0" >>$out
			s=0
		fi
		[ $s = 0 ] || cst=$s
		c=$((c + 1))
	done
	t1=$(cut -d' ' -f1 /proc/uptime)
	[ $cst = 0 ] || { echo "    $ME client of $name: status $cst" >>$out; tails /tmp/c.$n.*; }
	echo "FIGURE $name|$(figure /tmp/c.$n.0)|$(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.2f", b - a }')" >>$out
	send "done $n $cst"
}
# figure FILE: the program's own headline figure, if it printed one (a
# pingpong's usec/iter line; perftest's row: 5 numbers for bandwidth, 9
# for latency)
figure() {
	awk '/usec\/iter/ { f = $0; next }
	     $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 9 { f = "typical " $5 " us, 99.9% " $9 " us"; next }
	     $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 5 && $4 ~ /^[0-9.]+$/ { f = $4 " MB/s, " $5 " Mpps" }
	     END { print f }' "$1"
}

# pp SERVER_SIDE NAME PROGRAM ARGS...: a Debian pingpong (ibverbs-utils)
pp() {
	side=$1 name=$2 prog=$3; shift 3
	run $side "$name" $prog -d $DEV -g @GIDX@ -p @PORT@ "$@" -- $prog -d $DEV -g @GIDX@ -p @PORT@ "$@" @PEER@
}
# pp6: the same on the IPv6 GIDs (the TCP exchange stays on IPv4)
pp6() {
	side=$1 name=$2 prog=$3; shift 3
	run $side "$name" $prog -d $DEV -g @GIDX6@ -p @PORT@ "$@" -- $prog -d $DEV -g @GIDX6@ -p @PORT@ "$@" @PEER@
}
# pt SERVER_SIDE NAME PROGRAM ARGS...: perftest (its own TCP exchange)
pt() {
	side=$1 name=$2 prog=$3; shift 3
	run $side "$name" $prog -d $DEV -x @GIDX@ -p @PORT@ -F "$@" -- $prog -d $DEV -x @GIDX@ -p @PORT@ -F "$@" @PEER@
}
# px SERVER_SIDE NAME CLIENTS ARGS...: ibv_xsrq_pingpong, its server
# serving CLIENTS client processes at once (sharing one XRC domain, its
# file, on their guest)
px() {
	side=$1 name=$2 CLIENTS=$3; shift 3
	run $side "$name" ibv_xsrq_pingpong -d $DEV -g @GIDX@ -p @PORT@ -c $CLIENTS "$@" -- \
		ibv_xsrq_pingpong -d $DEV -g @GIDX@ -p @PORT@ "$@" @PEER@
	CLIENTS=1
}
# pq SERVER_SIDE NAME CLIENTS ARGS...: xqp's own XRC pingpong (libxqpverbs,
# /dev/xqp), which checks every byte of every message, between the guests
# by GID; CLIENTS client processes at once
pq() {
	side=$1 name=$2 CLIENTS=$3; shift 3
	xd=$(ls /dev/xqp/uverbs* | head -n 1)
	run $side "$name" xqp-xsrq-pingpong -d $xd -f /tmp/xrcd.@PORT@ -c $CLIENTS -R ::ffff:@PEER@ \
		-x @GIDX@ -m 1024 -p @PORT@ -t 60 "$@" -- \
		xqp-xsrq-pingpong -d $xd -R ::ffff:@PEER@ -x @GIDX@ -m 1024 -p @PORT@ -t 60 "$@" @PEER@
	CLIENTS=1
}
# rp SERVER_SIDE NAME ARGS...: rping over rdma_cm, data verified (-V)
# mk SIDE NAME [OPTIONS]: mckey, UD multicast through rdma_cm's join: a
# receiver on SIDE (it ends once it has all its messages), a sender on the
# other guest, one group
mk() {
	side=$1 name=$2; shift 2
	run $side "$name" mckey -m 239.1.3.1 -b @SELF@ "$@" -- mckey -m 239.1.3.1 -b @SELF@ -s "$@"
}
rp() {
	side=$1 name=$2; shift 2
	run $side "$name" rping -s -a @SELF@ -V -p @PORT@ "$@" -- rping -c -a @PEER@ -V -p @PORT@ "$@"
}
# rp6: rping by IPv6 address
rp6() {
	side=$1 name=$2; shift 2
	run $side "$name" rping -s -a @SELF6@ -V -p @PORT@ "$@" -- rping -c -a @PEER6@ -V -p @PORT@ "$@"
}

# bad VICTIM NAME: a pingpong on VICTIM's device (its server) while the
# other guest sends xqp-badpkt at that QP (its peer's address, PSNs far
# from the QP's); VICTIM's counts must show each kind taken as it is
# (BAD_N packets a kind: short and truncated ones malformed, a bad ICRC,
# an unknown opcode, an unknown QP, out of sequence, duplicates) and the
# pingpong must pass. Meanwhile, in sequence (xqp-badpkt -t at the QPs of
# xqp-wire-target on VICTIM): a WRITE past the MR, XRCETHs naming a
# missing and a foreign SRQ, each answered with its NAK read off the wire
# (and a good WRITE and XRC SEND, ACKed), and the target finds their
# effects and its QPs in ERR.
BAD_N=20
bad() {
	side=$1 name=$2
	n=$((n + 1)); port=$((18600 + n))
	if [ -n "$ONLY" ] && ! echo "$name" | grep -qE "$ONLY"; then return 0; fi
	# (out of sequence and duplicates: at least those sent; the sequence NAK
	# makes the peer send again what the QP had)
	kinds="rx_malformed:$((2 * BAD_N)) rx_bad_icrc:$BAD_N rx_unsupported:$BAD_N rx_unknown_qp:$BAD_N rx_out_of_seq:+$BAD_N rx_duplicate:+$BAD_N"
	if [ $side = $ME ]; then
		for k in $kinds; do c=${k%:*}; eval "was_$c=$(count $c)"; done
		rm -f /tmp/tgo.$n
		xqp-wire-target $(ls /dev/xqp/uverbs* | head -n 1) $PEER_IP $GIDX /tmp/tgo.$n >/tmp/t.$n 2>&1 &
		tp=$!
		wait_for 20 grep -q '^target ' /tmp/t.$n
		tline=$(grep -m1 '^target ' /tmp/t.$n) || tline="target none"
		timeout $((T + 30)) stdbuf -oL ibv_rc_pingpong -d $DEV -g $GIDX -p $port -n 500 -s 64 >/tmp/s.$n 2>&1 &
		sp=$!
		if await tcp $sp $port; then send "go $n ${tline#target }"; else send "go $n nostart"; fi
		reply=$(receive "done $n" $((T + 60))) || reply="done $n none none"
		st=0; reap $sp 30 || st=$?
		: >/tmp/tgo.$n
		tst=0; reap $tp 20 || tst=$?
		set -- ${reply#done $n }
		cst=$1 ist=${2:-none}
		why= took=
		[ "$st" = 0 ] && [ "$cst" = 0 ] || why="the pingpong: server status $st, client status $cst"
		[ "$ist" = 0 ] || why="$why${why:+; }in sequence: xqp-badpkt -t status $ist (the other guest's lines)"
		[ "$tst" = 0 ] || { why="$why${why:+; }$(grep -m1 '^target: ' /tmp/t.$n || echo "xqp-wire-target status $tst")"; tails /tmp/t.$n; }
		for k in $kinds; do
			c=${k%:*} want=${k#*:}
			eval "d=\$(( \$(count $c) - was_$c ))"
			took="$took $c +$d"
			case $want in
			+*) [ "$d" -ge "${want#+}" ] || why="$why${why:+; }$c +$d, ${want#+} sent";;
			*) [ "$d" = "$want" ] || why="$why${why:+; }$c +$d, $want sent";;
			esac
		done
		# what later checks take as no bad packet
		for c in rx_bad_icrc rx_malformed rx_unsupported; do eval "bad_$c=$(count $c)"; done
		if [ -z "$why" ]; then pass "$name (${took# }; in sequence: 5 answers as the spec says, the target's QPs in ERR; the pingpong passed)"
		else fail "$name" "$why"; tails /tmp/s.$n; fi
		return 0
	fi
	msg=$(receive "go $n" $((T + 60))) || msg=
	set -- $msg
	if [ "$1 $2" != "go $n" ] || [ $# != 10 ]; then send "done $n nostart nostart"; return 0; fi
	shift 2
	targs="$*"
	stdbuf -oL ibv_rc_pingpong -d $DEV -g $GIDX -p $port -n 500 -s 64 $PEER_IP >/tmp/c.$n 2>&1 &
	cp=$!
	wait_for 20 grep -q "remote address" /tmp/c.$n
	qpn=$(sed -n 's/.*remote address:.*QPN \(0x[0-9a-f]*\).*/\1/p' /tmp/c.$n)
	psn=$(sed -n 's/.*local address:.*PSN \(0x[0-9a-f]*\).*/\1/p' /tmp/c.$n)
	xqp-badpkt $MY_IP $PEER_IP ${qpn:-0} ${psn:-0} $BAD_N >/tmp/b.$n 2>&1 ||
		{ echo "    $ME xqp-badpkt failed" >>$out; tails /tmp/b.$n; }
	xqp-badpkt -t $MY_IP $PEER_IP $targs >/tmp/bt.$n 2>&1; ist=$?
	[ $ist = 0 ] || { echo "    $ME xqp-badpkt -t $targs: status $ist" >>$out; tails /tmp/bt.$n; }
	reap $cp $T; cst=$?
	[ $cst = 0 ] || { echo "    $ME client of $name: status $cst" >>$out; tails /tmp/c.$n; }
	send "done $n $cst $ist"
}

# both NAME KIND ARGS...: the case with its server on each guest in turn,
# named by who serves ("a>b" when a's is the server)
both() {
	both_name=$1 both_kind=$2; shift 2
	$both_kind a "$KIND_A>$KIND_B $both_name" "$@"
	$both_kind b "$KIND_B>$KIND_A $both_name" "$@"
}

# the lossy link: netem on eth0 (both guests, at the same point of the list)
lossy() { # on|off
	if [ $1 = on ]; then
		$TC qdisc add dev eth0 root netem $NETEM >/tmp/tc.log 2>&1 &&
			pass "$ME netem on ($NETEM)" || { fail "$ME netem" "tc qdisc add failed"; tails /tmp/tc.log; }
	else
		$TC -s qdisc show dev eth0 | sed "s/^/    $ME netem| /" >>$out
		$TC qdisc del dev eth0 root >/dev/null 2>&1
	fi
}
# count NAME: one of xqp's wire counters, as ib_core shows it (hw_counters)
count() { [ $KIND = xqp ] && cat $sys/$DEV/ports/1/hw_counters/$1 || echo 0; }
retrans() { count retransmits; }
dups() { count rx_duplicate; }
moved() { # RETRANSMITS_BEFORE AFTER DUPLICATES_BEFORE AFTER: the transport worked for it
	[ $KIND = xqp ] || return 0
	if [ -n "$ONLY" ] && ! echo "lossy" | grep -qE "$ONLY"; then return 0; fi	# none ran
	if [ "$2" -gt "$1" ]; then
		pass "$ME retransmitted under loss ($1 -> $2 retransmits, $3 -> $4 duplicates dropped)"
	else
		fail "$ME retransmitted under loss" "retransmits $1 -> $2"
	fi
}
bad_rx_bad_icrc=0 bad_rx_malformed=0 bad_rx_unsupported=0
. /xqp/wg/cases
# no packet of the programs' was bad (the bad case's own are left out)
for c in rx_bad_icrc rx_malformed rx_unsupported; do
	[ $KIND = xqp ] || break
	eval "v=\$(( \$(count $c) - bad_$c ))"
	[ "$v" = 0 ] || fail "$ME no_bad_packets" "$c $v"
done
# the counters three ways: sysfs (hw_counters), rdma statistic, debugfs
if [ $KIND = xqp ]; then
	sed "s/^/    $ME wire| /" $dbg/$DEV/wire >>$out
	$RDMA statistic show link $DEV/1 >/tmp/stat 2>&1
	why=
	for f in $sys/$DEV/ports/1/hw_counters/*; do
		c=${f##*/}
		[ "$c" = lifespan ] && continue
		r=$(tr ' ' '\n' </tmp/stat | grep -A1 -x "$c" | tail -n 1)
		v=$(cat $f) d=$(sed -n "s/^$c //p" $dbg/$DEV/wire)
		# (read in this order: a count still moving only grows)
		[ "${r:-x}" -le "$v" ] 2>/dev/null && [ "$v" -le "${d:-x}" ] 2>/dev/null ||
			why="$why $c: rdma ${r:-none} sysfs $v debugfs ${d:-none};"
	done
	n=$(ls $sys/$DEV/ports/1/hw_counters | grep -vc lifespan)
	if [ -z "$why" ] && [ "$n" -ge 20 ]; then pass "$ME counters ($n in hw_counters and rdma statistic, as debugfs)"
	else fail "$ME counters" "${why:-only $n hw_counters}"; tails /tmp/stat; fi
fi
# where packets were lost, either kind: the NIC's drops, UDP's buffer
# errors, and rxe's own counters (xqp's are above)
{
	$IP -s link show eth0 | sed -n '/RX:/,$p'
	grep '^Udp:' /proc/net/snmp | tail -n 1 | awk '{ print "Udp InErrors " $4 " RcvbufErrors " $6 " SndbufErrors " $7 }'
	if [ $KIND = rxe ]; then
		for f in $sys/$DEV/ports/1/hw_counters/*; do echo "${f##*/} $(cat $f)"; done | grep -v ' 0$'
	fi
} 2>&1 | sed "s/^/    $ME net| /" >>$out
send "end" && receive end 120 >/dev/null
$RDMA link delete $DEV >/tmp/del.log 2>&1 && pass "$ME link_delete" || { fail "$ME link_delete" "rdma link delete $DEV"; tails /tmp/del.log; }
finish
