// SPDX-License-Identifier: GPL-2.0
/*
 * Model-based randomized test: seeded random op sequences run against the
 * core and against the model of the spec in model.h (the host libFuzzer
 * target tests/fuzz/host/fuzz_core.cpp runs the same model on its bytes).
 * Every return code is predicted by the model and the observable state
 * (usecnt, share counts, driver objects, event deliveries, QP state)
 * compared after each step. `make check` uses a fixed seed; XQP_MODEL_SEED /
 * XQP_MODEL_STEPS / XQP_MODEL_RUNS run longer on demand.
 */
#include <cstdlib>
#include <random>

#include "fixture.h"
#include "model.h"

namespace {

long env(const char *name, long dflt)
{
	const char *v = std::getenv(name);
	return v ? std::strtol(v, nullptr, 0) : dflt;
}

/* The ops: bytes of a seeded Mersenne twister. */
struct RandomOps {
	std::mt19937 rng;
	explicit RandomOps(unsigned seed) : rng(seed) {}
	bool next(uint8_t op[3])
	{
		for (int k = 0; k < 3; k++)
			op[k] = static_cast<uint8_t>(rng());
		return true;
	}
};

/* A failed check is a gtest failure at the model's line. */
struct GtestReport {
	long seed;
	void fail(const char *file, int line, const char *expr, const std::string &trace)
	{
		ADD_FAILURE_AT(file, line) << "check failed: " << expr << "\n  seed " << seed
					   << ", " << trace;
	}
};

class Model : public Core {};

} // namespace

TEST_F(Model, RandomSequencesMatchTheModel)
{
	long seed = env("XQP_MODEL_SEED", 1);
	long steps = env("XQP_MODEL_STEPS", 20000);
	long runs = env("XQP_MODEL_RUNS", 1);
	for (long run = 0; run < runs; run++) {
		RandomOps ops(static_cast<unsigned>(seed + run));
		GtestReport report{seed + run};
		xqp_model::Run<RandomOps, GtestReport> model(soft_, ops, report);
		ASSERT_TRUE(model.run(steps)) << "seed " << seed + run;
	}
}
