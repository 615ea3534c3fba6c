#include "rocesim/collective/collective.hpp"

#include "rocesim/collective/algorithm.hpp"

namespace rocesim {

const char* to_string(CollOp op) {
  switch (op) {
    case CollOp::kAllReduce:
      return "all_reduce";
    case CollOp::kReduceScatter:
      return "reduce_scatter";
    case CollOp::kAllGather:
      return "all_gather";
    case CollOp::kBroadcast:
      return "broadcast";
    case CollOp::kAllToAll:
      return "all_to_all";
  }
  return "?";
}

std::optional<CollOp> parse_coll_op(const std::string& s) {
  for (CollOp op :
       {CollOp::kAllReduce, CollOp::kReduceScatter, CollOp::kAllGather, CollOp::kBroadcast, CollOp::kAllToAll}) {
    if (s == to_string(op)) {
      return op;
    }
  }
  return std::nullopt;
}

double busbw_factor(CollOp op, size_t ranks) {
  const auto n = static_cast<double>(ranks);
  switch (op) {
    case CollOp::kAllReduce:
      return 2 * (n - 1) / n;
    case CollOp::kReduceScatter:
    case CollOp::kAllGather:
    case CollOp::kAllToAll:
      return (n - 1) / n;
    case CollOp::kBroadcast:
      return 1;
  }
  return 1;
}

std::string algorithm_of(CollOp op, const ProtocolParams& p) {
  switch (op) {
    case CollOp::kAllToAll:
      return "pairwise";
    case CollOp::kAllReduce:
      return p.algorithm;
    default:
      return "ring";
  }
}

const Schema<ProtocolParams>& ProtocolParams::schema() {
  static const Schema<ProtocolParams> s = [] {
    Schema<ProtocolParams> sc("collective protocol", "NCCL's Simple protocol as the engine runs it");
    sc.add(&ProtocolParams::algorithm, "algorithm", "ring",
           "all-reduce algorithm (NCCL_ALGO): " + registry_doc(collective_algorithm_registry()) +
               "; the other operations run on rings, all-to-all in pairs",
           one_of(collective_algorithm_registry().names()))
        .add(&ProtocolParams::channels, "channels", "8", "rings run side by side, each starting at another GPU (rail)",
             in_range<int64_t>(1, 64))
        .add(&ProtocolParams::slice, "slice", "1MiB",
             "data a ring step moves at a time (NCCL Simple: 4 MiB buffer / 8 steps x 2 steps per slice)",
             at_least(Bytes(64)))
        .add(&ProtocolParams::window, "window", "4",
             "slices in flight per connection (NCCL_STEPS 8 / 2 steps per slice)", in_range<int64_t>(1, 64))
        .add(&ProtocolParams::base_latency, "base_latency", "8.4us",
             "fixed cost of each collective (NCCL src/graph/tuning.cc, Simple ring base latency)", at_least(Time()))
        .add(&ProtocolParams::nvlink_hop, "nvlink_hop", "3.4us",
             "per step across NVLink (tuning.cc, Simple ring NVLink hop latency)", at_least(Time()))
        .add(&ProtocolParams::pcie_hop, "pcie_hop", "5.7us",
             "per step across PCIe between GPUs (tuning.cc, Simple ring PCI hop latency)", at_least(Time()))
        .add(&ProtocolParams::net_hop, "net_hop", "0us",
             "per step across the network on top of the simulated NICs and fabric (proxy thread overhead)",
             at_least(Time()))
        .add(&ProtocolParams::credit_message, "credit_message", "64B",
             "the write a receiver sends back over the network when it frees a slot", at_least(Bytes(1)))
        .add(&ProtocolParams::priority, "priority", "3", "priority of the traffic between servers",
             in_range<int64_t>(0, 7), "priority");
    return sc;
  }();
  return s;
}

bool splits_per_rank(CollOp op) { return op != CollOp::kBroadcast && op != CollOp::kAllReduce; }

}  // namespace rocesim
