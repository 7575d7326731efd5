/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests only: run a switch's ingress through the reference datapath
 * (switch_ref.c, the per-chunk ingress the burst-vector one replaced)
 * instead of the fast one. tests/fuzz/fuzz_switch_diff.c runs two
 * switches, one of each, on the same inputs and compares them.
 */
#ifndef SWITCH_REF_H
#define SWITCH_REF_H

#include <stdbool.h>

/** @p st: what aifab_switch_ops.init returned; before the first poll. */
void aifab_switch_use_reference(void *st, bool on);

/** @p st as above: read every RX queue's chunks into one ingress burst
 * of per-port segments, as the whole-process clock's marked read does
 * (switch_poll.c sw_rx_gather(); sw_ingress_segs()). */
void aifab_switch_gather_rx(void *st, bool on);

#endif /* SWITCH_REF_H */
