// All-to-all: every host sends `size` bytes to every other host. Host i sends to i+1, i+2, ... (modulo the host
// count), the order that spreads receivers evenly. With `window` w > 0, a host has at most w messages in flight:
// its k-th message starts when its (k-w)-th finishes.
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
struct AllToAllParams {
  Bytes size;
  std::vector<int64_t> hosts;
  int64_t priority = 0, window = 0;
  std::string operation;
  Time start;
  static const Schema<AllToAllParams>& schema() {
    static const Schema<AllToAllParams> s = [] {
      Schema<AllToAllParams> sc("all-to-all workload", "every host to every other");
      sc.reserved("type", "all-to-all")
          .reserved("transport", kTransportDoc)
          .add(&AllToAllParams::size, "size", "1MB", "bytes each host sends to each other host", at_least(Bytes(1)))
          .add(&AllToAllParams::hosts, "hosts", "[]", "hosts taking part (all if empty)", {}, "host")
          .add(&AllToAllParams::priority, "priority", "3", "priority of the flows", in_range<int64_t>(0, 7), "priority")
          .add(&AllToAllParams::window, "window", "0", "messages in flight per host (0: all at once)",
               at_least<int64_t>(0), "messages")
          .add(&AllToAllParams::operation, "operation", "write", "write or send", one_of({"write", "send"}))
          .add(&AllToAllParams::start, "start", "0ns", "when the first messages start");
      return sc;
    }();
    return s;
  }
};
}  // namespace

namespace {
WorkloadFlows generate_all_to_all(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                  const WorkloadContext& wc, Rng&) {
  const AllToAllParams p = AllToAllParams::schema().parse(n, ctx, path);
  const std::vector<uint32_t> hosts = select_hosts(p.hosts, n, ctx, path, wc);
  RdmaOp op = RdmaOp::kWrite;
  parse_op(p.operation, op);
  const size_t m = hosts.size();
  check_flow_count(static_cast<double>(m) * static_cast<double>(m - 1), n["hosts"], ctx, path + ".hosts");
  WorkloadFlows out;
  std::vector<std::vector<int64_t>> per_host(m);
  for (size_t k = 1; k < m; ++k) {  // round k: host i sends to i + k
    for (size_t i = 0; i < m; ++i) {
      FlowSpec f;
      f.src = hosts[i];
      f.dst = hosts[(i + k) % m];
      f.size = p.size;
      f.start = p.start;
      f.priority = static_cast<int>(p.priority);
      f.op = op;
      auto& mine = per_host[i];
      if (p.window > 0 && mine.size() >= static_cast<size_t>(p.window)) {
        f.after = mine[mine.size() - static_cast<size_t>(p.window)];
      }
      mine.push_back(static_cast<int64_t>(out.flows.size()));
      out.flows.push_back(f);
    }
  }
  out.resolved = AllToAllParams::schema().dump(p);
  return out;
}

}  // namespace

static WorkloadEntry all_to_all_workload() {
  return {"all-to-all", "every host to every other", generate_all_to_all, describe_schema<AllToAllParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> all_to_all_workload_registered(workload_registry(), all_to_all_workload());
}  // namespace

}  // namespace rocesim
