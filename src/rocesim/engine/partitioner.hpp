// Cutting a fabric into partitions for the partitioned engine (engine.hpp).
//
// The unit that never splits is a switch, or a server with all its NICs (and so its GPUs, PCIe and NVLink).
// Partitions are cut only at links, whose latency (propagation plus the serialisation of the smallest frame) is
// the lookahead that lets each partition run a window on its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rocesim/core/units.hpp"
#include "rocesim/net/wire.hpp"
#include "rocesim/topology/topology.hpp"

namespace rocesim {

struct Partitioning {
  size_t parts = 1;
  std::vector<uint32_t> node_part;  // per graph node
  // The least latency of any link between two units: no frame sent in a window of this length arrives in it.
  // The same for every cut of the same fabric, so windows (and where a run stops) do not depend on the cut.
  Time lookahead;
};

// The least latency of a link between units: its delay plus the serialisation of the smallest frame of `fabric`.
Time fabric_lookahead(const TopologyGraph& g, wire::Fabric fabric);

// The units of `g`: per graph node, the number of its unit (servers as endpoint_server groups their NICs). Nodes
// joined by a link without delay are one unit: a cut there would leave no lookahead.
std::vector<uint32_t> units_of(const TopologyGraph& g);

// The links without delay that join what would otherwise be two units (a switch, or a server with its NICs).
size_t zero_delay_joins(const TopologyGraph& g);

// Cuts `g` into `parts` partitions of about equal load (ports, a NIC's counting as a switch port's): each leaf
// switch with the servers attached to it stays together (on a rail fabric, where every server reaches every leaf,
// the servers are dealt out to the leaves in turn), the other switches are shared out after them.
// `parts` must not exceed the number of units (the caller says so to the user).
Partitioning partition_fabric(const TopologyGraph& g, size_t parts, wire::Fabric fabric);

// The cut given by name (engine.assign): per partition, names separated by spaces, each a switch, a server (all
// its NICs), a NIC, or a prefix ending in `*` (every such name that begins with it). Throws AssignmentError when a
// name matches nothing, a node is named in two partitions or in none, a partition is empty, or a unit is split.
struct AssignmentError {
  size_t partition;  // the partition at fault; SIZE_MAX: the assignment as a whole
  std::string message;
};
Partitioning partition_named(const TopologyGraph& g, const std::vector<std::string>& parts, wire::Fabric fabric);

}  // namespace rocesim
