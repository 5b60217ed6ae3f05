# The module sources (sources.mk's XQP_MODULE_TREE) copied to a directory,
# without any build product of an in-tree build: for scripts/build-module
# and scripts/dkms. Sourced; needs rsync.

# copy_module_tree TOP DEST [PATH...]: TOP's module sources, and the extra
# PATHs (relative to TOP), into DEST; what else DEST holds of them goes.
copy_module_tree() {
	local top=$1 dest=$2 p d
	shift 2
	local filter=(--exclude='*.ko' --exclude='*.o' --exclude='.*.cmd' --exclude='*.s'
		--exclude='*.o.d' --exclude='*.mod' --exclude='*.mod.c' --exclude='generated/')
	for p in $(make -s --no-print-directory -C "$top" print-module-tree) "$@"; do
		d=$p
		while [ "${d%/*}" != "$d" ]; do
			d=${d%/*}
			filter+=(--include="$d/")
		done
		filter+=(--include="$p" --include="$p/***")
	done
	rsync -a --delete "${filter[@]}" --exclude='*' "$top/" "$dest/"
}
