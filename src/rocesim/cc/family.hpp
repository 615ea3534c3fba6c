// What the two congestion-control families share: RDMA's (cc.hpp: the reaction point of a queue pair) and TCP's
// (tcp_cc.hpp: the window of a connection).
//
// Their per-flow interfaces stay two because they truly differ. An RDMA controller is the whole of its queue pair's
// reaction: it sets a pacing rate and a window from CNPs, per-ACK feedback (RTT, CE counts, in-band telemetry) and
// its own timers, as a NIC does in hardware. A TCP controller is one piece of a stack that keeps slow start, loss
// recovery and the retransmission timer (RFC 5681, RFC 6675); it only grows cwnd outside recovery and sets
// ssthresh and cwnd when the stack reports a loss, a timeout or an ECN echo. Merging them would give every
// algorithm calls it can never receive.
//
// A configured algorithm and its registration are the same in both, and in other configured extension points:
// core/registry.hpp has them (ConfiguredAlgorithm, configured_entry).
#pragma once

#include "rocesim/core/registry.hpp"  // ConfiguredAlgorithm, configured_entry
