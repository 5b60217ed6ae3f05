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
)

# splat_lines LOG: the console lines of LOG that are splats, as
# "LINE:text" (grep -n), nothing if it is clean.
splat_lines() {
	grep -anE "$(IFS='|'; echo "${SPLAT_PATTERNS[*]}")" "$1" || true
}
