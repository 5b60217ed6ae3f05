# xqp top-level Makefile: the front door.
#   make run     build everything and demo shared QPs in the test kernel (QEMU)
#   make check   every test: host (plain, ASan+UBSan, TSan), build gates,
#                KUnit in the test kernel, smoke on Debian's kernel; ends with
#                one line "N passed, N failed"
#   make bench   benchmarks: the core on the host, then xqp against Linux's
#                ib_core through uverbs in QEMU (make bench-vm), then the data
#                path between two processes in QEMU (make bench-traffic), then
#                the verbs in the kernel against ib_core (make bench-kernel;
#                PNG plots into docs/img)
# Internal targets are listed in README.md.

SHELL := /bin/bash
.DEFAULT_GOAL := all
BUILD ?= build
Q ?= @

# ---- host build of the core + soft device + GoogleTest ------------------
# The sources and the core's C++ rules: sources.mk, shared with Kbuild.
XQP_TOP := .
include sources.mk
CORE_SRCS := $(XQP_CORE_SRCS)
SOFT_SRCS := $(XQP_SOFT_SRCS)
TEST_SRCS := $(wildcard tests/host/test_*.cpp) $(XQP_HOST_PLATFORM_SRCS)
HOST_INC := $(addprefix -I,$(XQP_HOST_INC_DIRS))
CORE_CXXFLAGS := $(XQP_CXX_FREESTANDING) -Wall -Wextra -Werror
SOFT_CFLAGS := -std=gnu11 -Wall -Wextra -Werror
TEST_CXXFLAGS := -std=gnu++20 -Wall -Wextra -Werror
HOST_HDRS := $(XQP_CORE_HDRS) $(XQP_HOST_PLATFORM_HDRS) $(XQP_SOFT_HDRS) $(wildcard tests/host/*.h)

# variant name -> extra flags
HOST_VARIANTS := plain asan tsan
# Line tables only: sanitizer reports and gdb backtraces keep their files
# and lines, and the host build (three variants, in every make check) takes
# about 40% less compiler time than with -g (ASan, test_traffic.cpp: 26 s
# against 45). `make host-build HOST_DEBUG=-g` for variables in gdb.
HOST_DEBUG ?= -g1
FLAGS_plain := -O1 $(HOST_DEBUG)
FLAGS_asan := -O1 $(HOST_DEBUG) -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FLAGS_tsan := -O1 $(HOST_DEBUG) -fsanitize=thread

define host_variant
$(BUILD)/host/$(1)/%.cpp.o: %.cpp $(HOST_HDRS)
	@mkdir -p $$(dir $$@)
	$(Q)$$(if $$(filter core/%,$$<),$(CXX) $(CORE_CXXFLAGS),$(CXX) $(TEST_CXXFLAGS)) $(FLAGS_$(1)) $(HOST_INC) -c $$< -o $$@
$(BUILD)/host/$(1)/%.c.o: %.c $(HOST_HDRS)
	@mkdir -p $$(dir $$@)
	$(Q)$(CC) $(SOFT_CFLAGS) $(FLAGS_$(1)) $(HOST_INC) -c $$< -o $$@
$(BUILD)/host/$(1)/xqp-tests: $(addprefix $(BUILD)/host/$(1)/,$(addsuffix .o,$(CORE_SRCS) $(SOFT_SRCS) $(TEST_SRCS)))
	$(Q)$(CXX) $(FLAGS_$(1)) -o $$@ $$^ -lgtest -lgtest_main -lgmock -pthread
endef
$(foreach v,$(HOST_VARIANTS),$(eval $(call host_variant,$(v))))

# ---- benchmarks (host, optimised, no sanitizers) --------------------------
BENCH_OBJS := $(addprefix $(BUILD)/host/bench/,$(addsuffix .o,$(CORE_SRCS) $(SOFT_SRCS) $(XQP_HOST_PLATFORM_SRCS) bench/host/bench_core.cpp))
FLAGS_bench := -O2 -g -DNDEBUG
$(eval $(call host_variant,bench))
$(BUILD)/host/bench/xqp-bench: $(BENCH_OBJS)
	$(Q)$(CXX) -o $@ $^ -lbenchmark -pthread

# One after the other, even under -j: neither may time the other's load.
bench:
	$(Q)$(MAKE) --no-print-directory bench-host
	$(Q)$(MAKE) --no-print-directory bench-vm
	$(Q)$(MAKE) --no-print-directory bench-traffic
	$(Q)$(MAKE) --no-print-directory bench-kernel

bench-host: $(BUILD)/host/bench/xqp-bench
	$(Q)mkdir -p $(BUILD)/bench
	$(Q)$< --benchmark_out=$(BUILD)/bench/results.json --benchmark_out_format=json

# xqp vs Linux's ib_core, same uverbs program, test kernel + Debian 6.12 in
# QEMU (scripts/bench-vm; one VM at a time; build/bench/vm-results.txt).
bench-vm:
	$(Q)scripts/bench-vm

# SEND latency and rate, RDMA WRITE bandwidth, RC and XRC, between two
# processes on two soft devices, test kernel + Debian 6.12 in QEMU
# (scripts/bench-traffic; build/bench/traffic-results.txt); then the
# message rate with 1, 16 and 256 QP pairs beside rxe's (bench-msgrate).
bench-traffic:
	$(Q)scripts/bench-traffic
	$(Q)$(MAKE) --no-print-directory bench-msgrate
# perftest's 8-byte message rate, RC and XRC with 1, 16 and 256 QP pairs,
# polling and events, xqp beside rxe in one Debian 6.12 guest
# (scripts/bench-msgrate; build/bench/msgrate.md).
bench-msgrate:
	$(Q)scripts/bench-msgrate

# Debian's rc and ud pingpongs on xqp and rxe under a host CPU hog (or busy
# guest processes: PLACEMENT_GUEST_HOGS), the two processes on one vCPU, on
# two, or where the guest puts them, beside the guest's own floor for two
# processes, xqp-bench-switch (scripts/bench-placement; build/bench/placement.md).
bench-placement:
	$(Q)scripts/bench-placement

# perftest's latency programs (2 B: write, send, read RC; send XRC) on xqp
# and rxe in one Debian 6.12 guest, their typical latency beside their tails
# (99%, 99.9%, max) and the guest's own floor, xqp-bench-floor
# (scripts/bench-latency; build/bench/latency.md).
bench-latency:
	$(Q)scripts/bench-latency

# xqp's core against Linux's ib_core in the same kernel, Debian 6.12 in QEMU
# (scripts/bench-kernel; build/bench/kernel-results.txt). Its correctness
# pass is scripts/bench-kernel --check.
bench-kernel:
	$(Q)scripts/bench-kernel
	$(Q)scripts/bench-plot

# The scaling metrics at more vCPUs, on a lent many-core machine: builds the
# bundle to carry there (scripts/bench-scale; run and report are its other steps).
bench-scale:
	$(Q)scripts/bench-scale bundle

# ftrace call-path profile of the benchmark's verbs on Debian 6.12
# (scripts/bench-profile [kernel] [uverbs]; counts calls, not time).
bench-profile:
	$(Q)scripts/bench-profile

# The module sources (sources.mk), for the scripts that copy them.
print-module-tree:
	@echo $(XQP_MODULE_TREE)

host-build: $(foreach v,$(HOST_VARIANTS),$(BUILD)/host/$(v)/xqp-tests)

# Runs one host variant; the result line is collected by scripts/check.
host-test-%: $(BUILD)/host/%/xqp-tests
	$(Q)$< --gtest_brief=1

all: host-build

check:
	$(Q)scripts/check

run:
	$(Q)scripts/run

# Modules, provider, udev rule, libxqpverbs (scripts/install; DESTDIR, KVER,
# PREFIX).
install:
	$(Q)scripts/install install
uninstall:
	$(Q)scripts/install uninstall

# DKMS (dkms.conf, scripts/dkms): install for KVER (default: running kernel),
# remove, or check against Debian's 6.12 and 6.1 kernels (part of check).
dkms-install:
	$(Q)scripts/dkms install $(KVER)
dkms-remove:
	$(Q)scripts/dkms remove
dkms-check:
	$(Q)scripts/dkms check

# Debian packages (scripts/deb, install/debian): xqp-dkms,
# xqp-ibverbs-provider, xqp-utils for Debian 12 (this host) and Debian 13
# (a trixie root), lintian-checked, into build/deb/SUITE/. deb-check
# installs them with apt in a booted Debian 12 and Debian 13 machine
# (systemd, udev, DKMS) and runs a user's steps, a kernel upgrade's DKMS
# rebuild too (scripts/deb-install; make check builds and lintian-checks only).
deb:
	$(Q)scripts/deb bookworm
	$(Q)scripts/deb trixie
deb-check: deb
	$(Q)DEB_INSTALL_UPGRADE=1 scripts/deb-install bookworm
	$(Q)DEB_INSTALL_UPGRADE=1 scripts/deb-install trixie

# Reliability: N plain boots of the test kernel, splats counted
# (docs/reliability.md). Not timed, not part of check.
N ?= 30
boot-sweep:
	$(Q)scripts/boot-sweep -n $(N)

# xqp res in the test kernel's VM (docs/res.md).
res-check:
	$(Q)scripts/res-check "$$(scripts/test-kernel)/bzImage" $(BUILD)/ko/test
# Links (rdma link add ... type xqp) beside rxe, test kernel (docs/design.md).
link-check:
	$(Q)scripts/link-check "$$(scripts/test-kernel)/bzImage" $(BUILD)/ko/test
# rdma_cm on linked devices: rdmacm-utils and perftest on xqp beside rxe, test
# kernel, Debian 12's userspace (CM_ROOT=$$(scripts/debian-root trixie) for
# 13's; CM_ONLY, CM_QUICK; docs/design.md "Two faces of one device").
rdmacm-check:
	$(Q)scripts/rdmacm-check "$$(scripts/test-kernel)/bzImage" $(BUILD)/ko/test
# RoCE v2 on the wire: xqp in two namespaces and rxe as its peer (WIRE_ONLY=GLOB
# runs the pingpong cases whose names match).
wire-check:
	$(Q)scripts/wire-check "$$(scripts/test-kernel)/bzImage" $(BUILD)/ko/test
# RoCE v2 between two guests (Debian 6.12, a QEMU network): rxe <-> xqp both
# ways, xqp <-> xqp with XRC, tshark on the capture, 16 MiB lossy transfers
# under netem (WG_QUICK=1 make check's slice; WG_PAIRS, WG_ONLY, WG_NETEM,
# WG_LOSS_MIB; docs/wire.md, docs/reliability.md).
wire-guests:
	$(Q)scripts/wire-guests $(BUILD)/ko/distro-6.12
# perftest between the same two guests: xqp <-> xqp beside rxe <-> rxe
# (build/bench/wire.md; docs/benchmarks.md).
bench-wire:
	$(Q)WG_BENCH=1 scripts/wire-guests $(BUILD)/ko/distro-6.12
# kill -9 and removal under traffic, test kernel (KILL_ROUNDS, KILL_MS,
# KILL_PROCS, KILL_SEED; docs/reliability.md).
kill-rounds:
	$(Q)scripts/kill-rounds "$$(scripts/test-kernel)/bzImage" $(BUILD)/ko/test
# A hostile process in a small memory cgroup, Debian 6.12 (MEMCG_LIMIT,
# MEMCG_SECONDS; docs/reliability.md).
memcg-check:
	$(Q)scripts/memcg-check /boot/vmlinuz-$$(scripts/distro-kernel 6.12) $(BUILD)/ko/distro-6.12

# The char-device fuzzer in the KCOV test kernel (tests/fuzz, scripts/fuzz,
# docs/reliability.md "Fuzzing"; corpus kept in ~/.cache/xqp/fuzz-corpus),
# and the host libFuzzer target (the core against the model).
DURATION ?= 1200
fuzz:
	$(Q)scripts/fuzz long $(DURATION)
fuzz-host:
	$(Q)scripts/fuzz host-long $(DURATION)

# The allocation and driver-op failure sweeps in the test kernel
# (scripts/fault-sweep; FAULT_SWEEP=full: the next pieces of the whole sweep,
# a campaign recorded in tests/fault/campaign.tsv).
fault-sweep:
	$(Q)scripts/fault-sweep

.PHONY: fault-sweep
.PHONY: res-check link-check rdmacm-check wire-check wire-guests bench-wire bench-msgrate bench-placement bench-latency kill-rounds memcg-check fuzz fuzz-host bench-profile bench-scale
.PHONY: print-module-tree
.PHONY: all host-build check run install uninstall dkms-install dkms-remove dkms-check deb deb-check boot-sweep bench bench-host bench-vm bench-traffic bench-kernel clean
clean:
	rm -rf $(BUILD)
