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
