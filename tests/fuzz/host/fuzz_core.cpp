// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the core's XRC sharing verbs on a soft device (host
 * seam), checked against the model of the spec in tests/host/model.h (the
 * one tests/host/test_model.cpp runs on random bytes), driven by the
 * fuzzer's bytes: each 3 bytes are one op (kind, x, y), at most 4096 ops.
 * The ops also make allocations and driver ops fail (a failed verb must
 * leave no trace) and raise events. After every op the observable state
 * must match the model; at the end everything is destroyed, and no
 * allocation or core warning may remain. A mismatch aborts (libFuzzer saves
 * the input).
 *
 *   build/fuzz/xqp-fuzz-core -max_total_time=60 -seed=1 CORPUS_DIR
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "model.h"

namespace {

/* The ops: the fuzzer's input, 3 bytes each. */
struct FuzzOps {
	const uint8_t *data;
	size_t size, pos = 0;
	bool next(uint8_t op[3])
	{
		if (pos + 3 > size)
			return false;
		std::memcpy(op, data + pos, 3);
		pos += 3;
		return true;
	}
};

/* A failed check aborts: libFuzzer keeps the input as a reproducer. */
struct AbortReport {
	void fail(const char *file, int line, const char *expr, const std::string &trace)
	{
		std::fprintf(stderr, "fuzz_core: %s:%d: check failed: %s\n  %s\n", file, line, expr,
			     trace.c_str());
		std::abort();
	}
};

void check(bool ok, const char *expr, int line)
{
	if (!ok)
		AbortReport().fail(__FILE__, line, expr, "at the end of the run");
}
#define CHECK(cond) check((cond), #cond, __LINE__)

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xqp_rcu_barrier();
	long allocs = xqp_host_live_allocs(), warns = xqp_host_warn_count();
	xqp_soft *soft = xqp_soft_create("xqp_soft_fuzz", nullptr);
	CHECK(!xqp_is_err(soft));
	FuzzOps ops{data, size};
	AbortReport report;
	xqp_model::Run<FuzzOps, AbortReport>(soft, ops, report).run(4096);
	xqp_soft_destroy(soft);
	xqp_rcu_barrier();
	CHECK(xqp_host_live_allocs() == allocs);
	CHECK(xqp_host_warn_count() == warns);
	return 0;
}
