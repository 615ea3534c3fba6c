// Tagger (Hu et al., "Tagger: Practical PFC Deadlock Prevention in Data Center Networks", CoNEXT 2017): in a
// Clos, cyclic buffer dependencies need packets that turn down then up again ("bounce": they arrive from a switch
// nearer the top and leave toward one), as rerouting after a link failure makes them do. Tagger moves a packet
// onto the next lossless priority at each bounce, so that waits on each priority only ever go up-then-down and
// stay acyclic; a packet that bounces more often than there are priorities to move to goes to a lossy one.
//
// Here a switch's level is its distance in hops from the nearest NIC (a leaf is 1, a spine 2, a fat-tree's core
// 3), from the topology as built; a bounce is a packet that arrives from a higher level and leaves toward one.
// The new priority is written into the packet's DSCP, which the next switch classifies as usual; the switch that
// moves it still accounts it at ingress on the priority it arrived on, and queues it at egress on the new one.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "rocesim/core/params.hpp"

namespace rocesim {

struct TaggerParams {
  // A ladder of lossless priorities: a packet on priorities[i] that bounces moves to priorities[i + 1], and from the
  // last one to `lossy`. Empty: Tagger is off.
  std::vector<int64_t> priorities;
  int64_t lossy = 0;
  static const Schema<TaggerParams>& schema();
};

// Per priority, what a bounce moves a packet to, and the DSCP that carries it. Contract: built with the switch's
// stages; next[p] == p for a priority off the ladder.
struct TagTable {
  std::array<uint8_t, 8> next{};
  std::array<uint8_t, 8> dscp{};
  bool active = false;
  // From the ladder and the switch's DSCP-to-priority map (each priority is written as the smallest DSCP that maps
  // to it). Returns the first priority with no DSCP in `dscp_to_prio`, or -1.
  int build(const TaggerParams& p, const std::array<uint8_t, 64>& dscp_to_prio);
};

}  // namespace rocesim
