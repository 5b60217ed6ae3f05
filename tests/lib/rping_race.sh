# Sourced by guest scripts (tests/wire/guest.sh, scripts/rdmacm-check's):
# rping_teardown_race FILE: rping's output ends as its teardown race ends
# it: in Debian 13's rping (rdma-core 56.1) main destroys the CM event
# channel without stopping the cm thread, which, back from handling
# DISCONNECTED, asks the closed channel for its next event and exits 255
# ("rdma_get_cm_event: Bad file descriptor") if it gets there before main
# returns (rdma-core has since stopped the thread through an eventfd
# first); after a disconnect and with nothing else wrong printed
rping_teardown_race() {
	[ "$(tail -n 1 "$1")" = "rdma_get_cm_event: Bad file descriptor" ] &&
		grep -q "DISCONNECT EVENT" "$1" &&
		[ "$(grep -vc -e "DISCONNECT EVENT" -e "^rdma_get_cm_event: Bad file descriptor\$" -e "^ping data" -e "^server ping data" "$1")" = 0 ]
}
