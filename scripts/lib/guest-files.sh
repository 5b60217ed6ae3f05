# Sourced by harnesses that put Debian's programs into an scripts/vm guest
# at their own paths: guest_file and guest_with_libs append --file
# arguments to the caller's vm_args array. FROM is HOST (this machine's
# file) or ROOT (the file of the Debian root $root, scripts/debian-root,
# symlinks resolved inside that root). The caller sets $here (scripts/).
declare -A guest_seen=()

# guest_file FROM PATH: PATH at its own path in the guest, once
guest_file() {
	local host=$2
	[ -n "${guest_seen[$2]:-}" ] && return 0
	guest_seen[$2]=1
	[ "$1" = HOST ] || host=$root$("$here/in-root" "$root" readlink -f "$2")
	vm_args+=(--file "$host:$2")
}

# guest_with_libs FROM PATH: the file and every library ldd names for it
guest_with_libs() {
	local lib
	guest_file "$1" "$2"
	while read -r lib; do
		[ -n "$lib" ] && guest_file "$1" "$lib"
	done < <(if [ "$1" = HOST ]; then ldd "$2"; else "$here/in-root" "$root" ldd "$2"; fi |
		awk '/=> \// {print $3} /^[[:space:]]*\/[^ ]*ld-linux/ {print $1}')
}

# root_provider OUT: xqp's provider built in the Debian root $root against
# its libibverbs, into the root's OUT (a directory of the harness's own:
# harnesses may run at once); sets $multiarch, the root's
root_provider() {
	"$here/in-root" --sync "$root"
	"$here/in-root" "$root" make -s -C /tmp/xqp-src/user/provider O="$1" >&2
	multiarch=$("$here/in-root" "$root" cc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
}

# guest_root_providers OUT: the root's rxe provider and xqp's (root_provider
# OUT), with their driver files, at their paths in the guest
guest_root_providers() {
	guest_with_libs ROOT "/usr/lib/$multiarch/libibverbs/librxe-rdmav34.so"
	guest_file ROOT /etc/libibverbs.d/rxe.driver
	guest_with_libs ROOT "$1/libxqp-rdmav34.so"
	vm_args+=(--file "$root$1/libxqp-rdmav34.so:/usr/lib/$multiarch/libibverbs/libxqp-rdmav34.so"
		--file "$root$1/xqp.driver:/etc/libibverbs.d/xqp.driver")
}
