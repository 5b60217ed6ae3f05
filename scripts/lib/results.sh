# Sourced by every harness whose guest reports cases between two markers,
# TAG-RESULTS-BEGIN and TAG-RESULTS-END, one case a line: "PASS name ..." or
# "FAIL name: why", detail lines indented by four spaces. The one reader of
# those blocks (the console's judge is lib/splat.sh).

# results_between LOG TAG: the lines of LOG's TAG block (carriage returns
# of a serial console dropped).
results_between() {
	sed -n "/^$2-RESULTS-BEGIN/,/^$2-RESULTS-END/{/^$2-RESULTS-/d;p}" "$1" | tr -d '\r'
}

# results_collect LOG TAG NONE_WHY [SHOW_RE]: LOG's TAG block into the
# caller's $results, its cases (and lines matching SHOW_RE) shown, and its
# PASS and FAIL lines added to the caller's $passed and $failed. No block at
# all is one failure, "FAIL NONE_WHY", with the log's tail.
results_collect() {
	local log=$1 tag=$2 why=$3 show=${4:-}
	results=$(results_between "$log" "$tag")
	printf '%s\n' "$results" | grep -E "^(PASS|FAIL|    ${show:+|$show})" || true
	passed=$(($passed + $(printf '%s\n' "$results" | grep -c '^PASS ' || true)))
	failed=$(($failed + $(printf '%s\n' "$results" | grep -c '^FAIL ' || true)))
	if [ -z "$results" ]; then
		echo "FAIL $why"
		tail -n 40 "$log" | sed 's/^/  | /'
		failed=$((failed + 1))
	fi
}

# results_summary NAME: the harness's last line, "NAME: N passed, N
# failed"; the status is 0 only when none failed.
results_summary() {
	echo "$1: $passed passed, $failed failed"
	[ "$failed" = 0 ]
}

# The counts start at zero when a harness sources this file.
passed=0 failed=0
