// Collectives as NCCL runs them between the GPUs (ranks) of a cluster: the operations, their data layout, and
// the bus-bandwidth factors nccl-tests reports (NVIDIA/nccl-tests doc/PERFORMANCE.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"
#include "rocesim/core/units.hpp"

namespace rocesim {

enum class CollOp : uint8_t { kAllReduce, kReduceScatter, kAllGather, kBroadcast, kAllToAll };
const char* to_string(CollOp op);
std::optional<CollOp> parse_coll_op(const std::string& s);
// busbw = algbw x this (nccl-tests): all-reduce 2(n-1)/n; reduce-scatter, all-gather, all-to-all (n-1)/n;
// broadcast 1.
double busbw_factor(CollOp op, size_t ranks);
// Whether the operation needs its size to be a multiple of element size x ranks (its buffer splits into one
// equal block per rank); all-reduce and broadcast need only whole elements.
bool splits_per_rank(CollOp op);

// NCCL's Simple protocol as the engine runs it (values from NVIDIA/nccl: src/include/device.h NCCL_STEPS,
// src/enqueue.cc and src/graph/tuning.cc), one set per group of ranks.
struct ProtocolParams {
  std::string algorithm;  // of all-reduce (algorithm.hpp)
  int64_t channels = 8;   // rings (trees), each starting at another GPU and so on another rail
  Bytes slice;            // data a step moves at a time: buffer / NCCL_STEPS x SLICESTEPS (4 MiB / 8 x 2)
  int64_t window = 4;     // slices in flight per connection: NCCL_STEPS / SLICESTEPS
  Time base_latency;      // per collective (tuning.cc baseLat, Simple ring 8.4 us)
  Time nvlink_hop;        // per step across NVLink (hwLat NVLINK Simple ring 3.4 us)
  Time pcie_hop;          // per step across PCIe (hwLat PCI Simple ring 5.7 us)
  Time net_hop;           // per step across the network beyond what the fabric simulation takes (proxy)
  Bytes credit_message;   // the clear-to-send a receiver writes back for a freed slot over the network
  int64_t priority = 3;   // of the traffic between servers
  static const Schema<ProtocolParams>& schema();
};

// The NCCL protocol the engine's constants are of (the only one it runs).
inline constexpr const char* kNcclProtocol = "Simple";
// The algorithm an operation runs under these parameters: all-to-all in pairs, all-reduce the one named, the rest
// on rings.
std::string algorithm_of(CollOp op, const ProtocolParams& p);

}  // namespace rocesim
