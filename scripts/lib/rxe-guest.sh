# Sourced by the benchmarks that run programs on xqp beside soft-RoCE (rxe)
# in one Debian 6.12 guest (rxe-compare, bench-msgrate, bench-placement, bench-latency).
# The caller sets $rel (scripts/distro-kernel 6.12) and has a vm_args array.

# rxe_guest_modules KO_DIR: Debian's rdma_rxe and what it needs (its ICRC
# asks the crypto API for "crc32", which the guest cannot modprobe, hence
# crc32_generic), veth, and xqp from KO_DIR with two soft devices (one
# in-kernel fabric: xqp_soft0 and xqp_soft1) and xqp_ibdev
rxe_guest_modules() {
	local m mods=/lib/modules/$rel/kernel
	for m in drivers/infiniband/core/ib_core drivers/infiniband/core/ib_uverbs \
		 net/ipv4/udp_tunnel net/ipv6/ip6_udp_tunnel crypto/crc32_generic \
		 drivers/infiniband/sw/rxe/rdma_rxe drivers/net/veth; do
		vm_args+=(--module "$mods/$m.ko.xz")
	done
	vm_args+=(--module "$1/xqp.ko" --module "$1/xqp_soft.ko devices=2"
		--module "$1/xqp_ibdev.ko")
}

# rxe_guest_setup: the guest script's lines (sh) that put rxe0 on veth0
# (10.77.0.1; GID index 1 is its IPv4 address, what the programs name for
# rxe's loopback) and wait for its GIDs; they use $IP and $RDMA and write a
# failure to $out
rxe_guest_setup() {
	cat <<'EOF'
/bin/busybox ip link set lo up
$IP link add veth0 type veth peer name veth1 && $IP link set veth0 up && $IP link set veth1 up \
	&& $IP addr add 10.77.0.1/24 dev veth0 && $RDMA link add rxe0 type rxe netdev veth0 \
	|| echo "FAIL rxe_setup: veth/rxe could not be set up" >>$out
sleep 3	# IPv6 DAD, GID table
EOF
}
