// The `collective` workload: nccl-tests on the scenario's GPUs. Every size runs `warmup` then `iterations`
// instances back to back on every rank, as all_reduce_perf and its siblings do (NVIDIA/nccl-tests), and the
// report gives nccl-tests' table (nccl-tests.txt) beside one row per instance (collectives.csv).
#include <fmt/format.h>

#include "rocesim/cluster/network.hpp"
#include "rocesim/collective/report.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {

struct CollectiveParams {
  std::string op;
  std::vector<Bytes> sizes;
  std::vector<int64_t> servers;
  int64_t iterations = 0, warmup = 0, root = 0;
  bool in_place = false;
  Time start;
  ProtocolParams protocol;
  static const Schema<CollectiveParams>& schema() {
    static const Schema<CollectiveParams> s = [] {
      Schema<CollectiveParams> sc("collective workload", "NCCL collectives between GPUs, as nccl-tests runs them");
      sc.reserved("type", "collective")
          .add(&CollectiveParams::op, "op", "all_reduce",
               "all_reduce, reduce_scatter, all_gather, broadcast or all_to_all",
               one_of({"all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all"}))
          .add(&CollectiveParams::sizes, "sizes", "[256MiB]",
               "nccl-tests sizes, one after the other: the buffer (all_reduce, broadcast), the input "
               "(reduce_scatter), the output (all_gather), the send buffer (all_to_all)")
          .add(&CollectiveParams::servers, "servers", "[]",
               "servers whose GPUs are the ranks (every GPU of each, server-major); empty: all servers")
          .add(&CollectiveParams::iterations, "iterations", "1", "timed instances per size (nccl-tests -n)",
               in_range<int64_t>(1, 100000))
          .add(&CollectiveParams::warmup, "warmup", "0", "instances per size before the timed ones (nccl-tests -w)",
               in_range<int64_t>(0, 100000))
          .add(&CollectiveParams::in_place, "in_place", "false",
               "report in nccl-tests' in-place columns (the model costs both placements the same)")
          .add(&CollectiveParams::root, "root", "0", "broadcast: the rank that has the data", at_least<int64_t>(0))
          .add(&CollectiveParams::start, "start", "0ns", "when the ranks start")
          .sub(&CollectiveParams::protocol, "protocol", ProtocolParams::schema());
      return sc;
    }();
    return s;
  }
};

WorkloadFlows generate_collective(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                  const WorkloadContext& wc, Rng&) {
  const CollectiveParams p = CollectiveParams::schema().parse(n, ctx, path);
  const std::vector<RankPlace> ranks = select_ranks(p.servers, n, ctx, path, wc, "servers");
  const CollOp op = *parse_coll_op(p.op);
  // The algorithm named is all-reduce's; naming another than rings for an operation it does not run is a mistake.
  if (op != CollOp::kAllReduce && p.protocol.algorithm != "ring") {
    const YAML::Node proto = n["protocol"];
    throw InputError(ctx.file, proto.IsDefined() && proto.IsMap() ? line_of(proto["algorithm"]) : line_of(n),
                     path + ".protocol.algorithm",
                     fmt::format("{} runs all_reduce only; {} runs on {}", p.protocol.algorithm, p.op,
                                 op == CollOp::kAllToAll ? "send/receive pairs" : "rings"));
  }
  if (p.sizes.empty()) {
    throw InputError(ctx.file, line_of(n["sizes"]), path + ".sizes", "needs at least one size");
  }
  for (Bytes b : p.sizes) {
    check_collective_size(op, b, ranks.size(), n["sizes"], ctx, path + ".sizes");
  }
  if (p.root >= static_cast<int64_t>(ranks.size())) {
    throw InputError(ctx.file, line_of(n["root"]), path + ".root",
                     fmt::format("rank {} does not exist (0..{})", p.root, ranks.size() - 1));
  }
  std::vector<Phase> program;
  std::vector<CollectiveCall> calls;
  for (Bytes b : p.sizes) {
    for (int64_t i = 0; i < p.warmup + p.iterations; ++i) {
      const CollectiveCall call{op, b, static_cast<uint32_t>(p.root)};
      program.push_back({Time(), Time(), {call}});
      calls.push_back(call);
    }
  }
  WorkloadFlows out;
  out.resolved = CollectiveParams::schema().dump(p);
  out.install = [p, ranks, program, calls, op, path](Network& net,
                                                     uint16_t workload) -> std::shared_ptr<WorkloadReport> {
    auto g = install_collectives(net, ranks, p.protocol, program, p.start, workload);
    CollectiveReport::Layout table{op, p.sizes, p.warmup, p.iterations, p.in_place, static_cast<uint32_t>(p.root)};
    return std::make_shared<CollectiveReport>(path, g, calls, net, table);
  };
  return out;
}

}  // namespace

WorkloadEntry collective_workload() {
  return {"collective", "NCCL collectives between GPUs (nccl-tests)", generate_collective,
          describe_schema<CollectiveParams>()};
}

}  // namespace rocesim
