# The provider's sources and the libibverbs layout they are built for, one
# list for the two Makefiles that need it: user/provider/Makefile (the .so)
# and tests/provider/Makefile (its tests), each naming this folder as
# PROVIDER_DIR first.
# The provider's own sources, and the wire layer it links (user/wire).
PROVIDER_SRCS := xqp.c post.c cq.c
PROVIDER_WIRE := $(PROVIDER_DIR)/../wire
PROVIDER_OBJS = $(patsubst %.c,$(O)/obj/%.o,$(PROVIDER_SRCS)) $(O)/obj/wire.o
PROVIDER_HDRS := $(addprefix $(PROVIDER_DIR)/,xqp.h abi34.h ../../uapi/xqp_uverbs.h) \
	$(PROVIDER_WIRE)/wire.h $(PROVIDER_WIRE)/send_wqe.h
VERBS_H := /usr/include/infiniband/verbs.h
# Which ibv_qp_ex this <infiniband/verbs.h> declares (abi34.h: the members
# since rdma-core 45 that a C preprocessor cannot see).
ABI34_DEFS := $(shell grep -q '(\*wr_flush)' $(VERBS_H) 2>/dev/null && echo -DABI34_HAVE_WR_FLUSH)
PROVIDER_WARN = -std=gnu11 -Wall -Wextra -Werror $(ABI34_DEFS) -I$(PROVIDER_DIR)/../../uapi
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
# Where Debian's libibverbs looks for providers (its VERBS_PROVIDER_DIR).
VERBS_PROVIDER_DIR ?= /usr/lib/$(MULTIARCH)/libibverbs

.PHONY: check-verbs-h
check-verbs-h:
	@test -f $(VERBS_H) || { echo "provider: $(VERBS_H) missing (apt-get install libibverbs-dev)" >&2; exit 1; }
