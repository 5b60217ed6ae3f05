# What each product is built from, and the C++ rules of the freestanding
# core: the one list, included by Kbuild (the modules), the Makefile (host
# tests and benchmarks) and tests/fuzz/host/host.mk (the host fuzzer), each
# naming the tree's top as XQP_TOP first. Names are relative to the top.
xqp_rel = $(patsubst $(XQP_TOP)/%,%,$(wildcard $(addprefix $(XQP_TOP)/,$(1))))

# The core: freestanding C++, the same sources in the kernel and on the host.
XQP_CORE_SRCS := $(call xqp_rel,core/*.cpp)
XQP_CORE_HDRS := $(call xqp_rel,core/*.h core/util/*.h core/include/xqp/*.h)
# The platforms the core runs on: the kernel (seam, C++ runtime, module
# init and the C API exports) and the host (the seam for tests, benchmarks
# and the host fuzzer).
XQP_KERNEL_PLATFORM_SRCS := platform/kernel/cxxrt.cpp platform/kernel/seam.c platform/kernel/link_driver.c \
	platform/kernel/exports.c platform/kernel/module.c
XQP_HOST_PLATFORM_SRCS := platform/host/seam_host.cpp platform/host/wire_host.cpp
XQP_HOST_PLATFORM_HDRS := $(call xqp_rel,platform/host/*.h platform/host/include/xqp/*.h)
# The uverbs character device, in xqp.ko beside the core.
XQP_UVERBS_SRCS := $(call xqp_rel,uverbs/*.c)
# The soft device: what builds on both platforms, then the module's own.
XQP_SOFT_SRCS := $(addprefix drivers/soft/,soft.c pool.c inject.c verbs.c srq.c qp.c events.c \
	fabric.c link.c mr.c mw.c mcast.c cq.c wq.c exec.c opcode.c pkt.c icrc.c \
	wire_send.c wire_ack.c wire_resp.c wire_recv.c)
XQP_SOFT_HDRS := $(call xqp_rel,drivers/soft/*.h drivers/rules/*.h)
XQP_SOFT_MODULE_SRCS := $(addprefix drivers/soft/,soft_exports.c soft_main.c selftest.c net.c)

# C++ as the core is written: no exceptions, RTTI, static-init guards,
# atexit or libstdc++ (docs/design.md), on either platform.
XQP_CXX_FREESTANDING := -std=gnu++20 -ffreestanding -fno-exceptions -fno-rtti \
	-fno-threadsafe-statics -fno-use-cxa-atexit -nostdinc++
# Include directories of the core and the devices; the host adds its seam.
XQP_INC_DIRS := core core/include drivers
XQP_HOST_INC_DIRS := $(XQP_INC_DIRS) platform/host/include platform/host

# The module sources as DKMS, the Debian package and scripts/build-module
# copy them (Kbuild builds from these alone).
XQP_MODULE_TREE := Kbuild sources.mk core platform/kernel uverbs drivers tests/kunit uapi
