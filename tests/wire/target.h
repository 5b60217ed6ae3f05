/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What xqp-wire-target (target.c) and xqp-badpkt -t (badpkt.c) agree on:
 * the made-up peer QP numbers the target's QPs are connected to (the
 * target's answers go to them) and the size of its remote-writable MR.
 */
#ifndef XQP_TESTS_WIRE_TARGET_H
#define XQP_TESTS_WIRE_TARGET_H

#define TARGET_PEER_RC		0xfffe00
#define TARGET_PEER_XRC1	0xfffe01
#define TARGET_PEER_XRC2	0xfffe02
#define TARGET_MR_BYTES		65536

#endif
