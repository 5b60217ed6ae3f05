/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One KUnit suite from its variable, its name, its setup and its cases:
 * the case array with its terminator, the struct kunit_suite and its
 * registration, written once here instead of in every suite's file.
 *
 *	XQP_KUNIT_SUITE(xqp_events_suite, "xqp_cq_srq_events", XQP_KT_FIXTURE,
 *			KUNIT_CASE(cq_event_reaches_handler),
 *			KUNIT_CASE(events_without_handler));
 *
 * @setup is designated initializers of struct kunit_suite: XQP_KT_FIXTURE
 * (a soft device per test, xqp_test.h), XQP_SUITE_FIXTURE(init, exit)
 * (state set up once for the whole suite) or XQP_NO_FIXTURE.
 */
#ifndef XQP_KUNIT_SUITE_H
#define XQP_KUNIT_SUITE_H

#include <kunit/test.h>

#define XQP_NO_FIXTURE .init = NULL
#define XQP_KT_FIXTURE .init = xqp_kt_init, .exit = xqp_kt_exit
#define XQP_SUITE_FIXTURE(init, exit) .suite_init = (init), .suite_exit = (exit)

#define XQP_KUNIT_SUITE(var, suite_name, setup, ...)			\
	static struct kunit_case var##_cases[] = { __VA_ARGS__, {} };	\
	static struct kunit_suite var = {				\
		.name = suite_name,					\
		setup,							\
		.test_cases = var##_cases,				\
	};								\
	kunit_test_suite(var)

#endif
