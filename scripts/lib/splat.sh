# Sourced by every harness that boots a kernel: the one judge of its
# console. A console line matching any pattern (extended regex, anywhere in
# the line, case-sensitive) means the kernel misbehaved and fails the run,
# never retried. Extend here.
SPLAT_PATTERNS=(
	'BUG:'                                   # BUG: KASAN/soft lockup/sleeping in atomic/...
	'kernel BUG at'                          # BUG_ON() ("kernel BUG at f.c:12!", no colon after BUG)
	'WARNING:'                               # WARN_ON(), lockdep reports
	'KASAN:'
	'UBSAN:'
	'possible circular locking'
	'possible recursive locking'
	'inconsistent lock state'
	'suspicious RCU usage'
	'unreferenced object'                    # kmemleak
	'Oops'
	'Kernel panic'
	'general protection fault'
	'Call Trace:'
	'sleeping function called from invalid context'
	'detected stalls? on CPU'                # RCU stall
	'blocked for more than [0-9]+ seconds'   # hung task
	'hard LOCKUP'                            # NMI watchdog ("soft lockup" is a BUG: line)
)

# splat_lines LOG [PATTERN...]: the console lines of LOG that are splats,
# as "LINE:text" (grep -n), nothing if it is clean. The PATTERNs given are
# left out of the judge (memcg-check: an OOM kill's task dump prints a
# "Call Trace:" that is expected there).
splat_lines() {
	local log=$1 p x keep=()
	shift
	for p in "${SPLAT_PATTERNS[@]}"; do
		for x in "$@"; do [ "$x" = "$p" ] && continue 2; done
		keep+=("$p")
	done
	grep -anE "$(IFS='|'; echo "${keep[*]}")" "$log" || true
}

# console_case LOG VM_STATUS [PATTERN...]: the harnesses' case
# kernel_console_clean: prints "PASS kernel_console_clean" or "FAIL
# kernel_console_clean: ..." (the first splats, or a VM that did not
# finish: scripts/vm's 124 and 125) and returns 0 or 1. PATTERNs as for
# splat_lines.
console_case() {
	local log=$1 vm_status=$2 splats
	shift 2
	splats=$(splat_lines "$log" "$@" | head -n 5)
	if [ -n "$splats" ]; then
		echo "FAIL kernel_console_clean: $(printf '%s' "$splats" | head -n 1)"
		printf '%s\n' "$splats" | sed 's/^/  | /'
		return 1
	fi
	if [ "$vm_status" = 124 ] || [ "$vm_status" = 125 ]; then
		echo "FAIL kernel_console_clean: the VM did not finish (status $vm_status)"
		return 1
	fi
	echo "PASS kernel_console_clean"
}
