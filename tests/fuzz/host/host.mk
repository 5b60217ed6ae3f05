# The host libFuzzer target (included by tests/fuzz/Makefile): the core and
# the soft device as the top Makefile builds them for the host tests (same
# sources, same C++ rules for core/), with clang, libFuzzer, ASan and UBSan.
TOP := ../..
HOST_CORE_SRCS := $(filter-out $(TOP)/core/runtime/%,$(wildcard $(TOP)/core/*.cpp))
HOST_SOFT_SRCS := $(addprefix $(TOP)/drivers/soft/,soft.c fabric.c mr.c cq.c wq.c exec.c)
HOST_INC := -I$(TOP)/core -I$(TOP)/core/include -I$(TOP)/tests/host/include \
	-I$(TOP)/drivers -I$(TOP)/tests/host
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
HOST_CORE_CXXFLAGS := -std=gnu++20 -ffreestanding -fno-exceptions -fno-rtti \
	-fno-threadsafe-statics -fno-use-cxa-atexit -nostdinc++ -Wall -Wextra -Werror
HO := $(O)/host-obj
HOST_OBJS := $(patsubst $(TOP)/%,$(HO)/%.o,$(HOST_CORE_SRCS) $(HOST_SOFT_SRCS)) \
	$(HO)/tests/host/seam_host.cpp.o $(HO)/fuzz_core.cpp.o
HOST_HDRS := $(wildcard $(TOP)/core/*.h $(TOP)/core/util/*.h $(TOP)/core/include/xqp/*.h \
	$(TOP)/tests/host/*.h $(TOP)/drivers/soft/*.h)

$(HO)/core/%.cpp.o: $(TOP)/core/%.cpp $(HOST_HDRS)
	@mkdir -p $(dir $@)
	clang++ $(HOST_CORE_CXXFLAGS) -O1 -g $(FUZZ_SAN) $(HOST_INC) -c $< -o $@
$(HO)/drivers/%.c.o: $(TOP)/drivers/%.c $(HOST_HDRS)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) $(HOST_INC) -c $< -o $@
$(HO)/tests/host/seam_host.cpp.o: $(TOP)/tests/host/seam_host.cpp $(HOST_HDRS)
	@mkdir -p $(dir $@)
	clang++ -std=gnu++20 -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) $(HOST_INC) -c $< -o $@
$(HO)/fuzz_core.cpp.o: host/fuzz_core.cpp $(HOST_HDRS)
	@mkdir -p $(dir $@)
	clang++ -std=gnu++20 -Wall -Wextra -Werror -O1 -g $(FUZZ_SAN) $(HOST_INC) -c $< -o $@
$(O)/xqp-fuzz-core: $(HOST_OBJS)
	clang++ -fsanitize=fuzzer,address,undefined -o $@ $^ -pthread
