# The host libFuzzer target (included by tests/fuzz/Makefile): the core and
# the soft device as the top Makefile builds them for the host tests (the
# same sources and C++ rules, from sources.mk), with clang, libFuzzer, ASan
# and UBSan.
TOP := ../..
XQP_TOP := $(TOP)
include $(TOP)/sources.mk
HOST_SRCS := $(XQP_CORE_SRCS) $(XQP_SOFT_SRCS) $(XQP_HOST_PLATFORM_SRCS)
HOST_INC := $(addprefix -I$(TOP)/,$(XQP_HOST_INC_DIRS) tests/host)
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
HO := $(O)/host-obj
HOST_OBJS := $(patsubst %,$(HO)/%.o,$(HOST_SRCS)) $(HO)/fuzz_core.cpp.o
HOST_HDRS := $(addprefix $(TOP)/,$(XQP_CORE_HDRS) $(XQP_HOST_PLATFORM_HDRS) $(XQP_SOFT_HDRS)) \
	$(wildcard $(TOP)/tests/host/*.h)

$(HO)/core/%.cpp.o: $(TOP)/core/%.cpp $(HOST_HDRS)
	@mkdir -p $(dir $@)
	clang++ $(XQP_CXX_FREESTANDING) -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) $(HOST_INC) -c $< -o $@
$(HO)/drivers/%.c.o: $(TOP)/drivers/%.c $(HOST_HDRS)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) $(HOST_INC) -c $< -o $@
$(HO)/platform/host/%.cpp.o: $(TOP)/platform/host/%.cpp $(HOST_HDRS)
	@mkdir -p $(dir $@)
	clang++ -std=gnu++20 -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) $(HOST_INC) -c $< -o $@
$(HO)/fuzz_core.cpp.o: host/fuzz_core.cpp $(HOST_HDRS)
	@mkdir -p $(dir $@)
	clang++ -std=gnu++20 -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) $(HOST_INC) -c $< -o $@
$(O)/xqp-fuzz-core: $(HOST_OBJS)
	clang++ -fsanitize=fuzzer,address,undefined -o $@ $^ -pthread
