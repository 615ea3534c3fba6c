// The `collective` workload: nccl-tests on the scenario's GPUs. Every size runs `warmup` then `iterations`
// instances back to back on every rank, out of place and then in place, as all_reduce_perf and its siblings do
// (NVIDIA/nccl-tests), and the report gives nccl-tests' table (nccl-tests.txt) beside one row per instance
// (collectives.csv).
#include <fmt/format.h>

#include "rocesim/cluster/network.hpp"
#include "rocesim/collective/report.hpp"
#include "rocesim/workload/ranks.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {

struct CollectiveParams {
  std::string op;
  std::vector<Bytes> sizes;
  Bytes min_bytes, max_bytes, step_bytes;
  int64_t step_factor = 1;
  std::vector<int64_t> servers;
  int64_t iterations = 0, warmup = 0, root = 0;
  std::string placement;
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
          .add(&CollectiveParams::min_bytes, "min_bytes", "0B",
               "instead of sizes, a sweep from this size (nccl-tests -b), each size rounded down to whole elements "
               "(and to one equal block per rank where the operation splits its buffer), sizes that round to 0 "
               "left out",
               at_least(Bytes(0)))
          .add(&CollectiveParams::max_bytes, "max_bytes", "0B", "the sweep's largest size (nccl-tests -e)",
               at_least(Bytes(0)))
          .add(&CollectiveParams::step_factor, "step_factor", "1",
               "the sweep multiplies the size by this (nccl-tests -f); 1: adds step_bytes instead",
               in_range<int64_t>(1, 1 << 20))
          .add(&CollectiveParams::step_bytes, "step_bytes", "1MiB",
               "the sweep's increment when step_factor is 1 "
               "(nccl-tests -i)",
               at_least(Bytes(1)))
          .add(&CollectiveParams::servers, "servers", "[]",
               "servers whose GPUs are the ranks (every GPU of each, server-major); empty: all servers")
          .add(&CollectiveParams::iterations, "iterations", "1", "timed instances per size (nccl-tests -n)",
               in_range<int64_t>(1, 100000))
          .add(&CollectiveParams::warmup, "warmup", "0", "instances per size before the timed ones (nccl-tests -w)",
               in_range<int64_t>(0, 100000))
          .add(&CollectiveParams::placement, "placement", "both",
               "both: each size's timed instances out of place, then again in place, as nccl-tests runs them (both "
               "column groups of nccl-tests.txt filled); out_of_place or in_place: only that one (the model costs "
               "both placements the same)",
               one_of({"both", "out_of_place", "in_place"}))
          .add(&CollectiveParams::root, "root", "0", "broadcast: the rank that has the data", at_least<int64_t>(0))
          .add(&CollectiveParams::start, "start", "0ns", "when the ranks start")
          .sub(&CollectiveParams::protocol, "protocol", ProtocolParams::schema());
      return sc;
    }();
    return s;
  }
};

// nccl-tests' sweep (src/common.cu): min, then times the factor (or plus the increment) up to max, each size
// rounded down to what the operation's buffers hold (its getCollByteCount: whole elements, one equal count per
// rank where the operation splits the buffer).
std::vector<Bytes> sweep_sizes(const CollectiveParams& p, CollOp op, size_t ranks, const YAML::Node& n,
                               const ParseCtx& ctx, const std::string& path) {
  if (p.min_bytes.count() < 1 || p.max_bytes < p.min_bytes || p.max_bytes.count() > (int64_t{1} << 40)) {
    throw InputError(ctx.file, line_of(n["max_bytes"]), path + ".max_bytes",
                     fmt::format("the sweep needs 1 B <= min_bytes <= max_bytes <= 1 TiB (here {} to {})",
                                 to_string(p.min_bytes), to_string(p.max_bytes)));
  }
  const int64_t unit = 4 * (splits_per_rank(op) ? static_cast<int64_t>(ranks) : 1);
  std::vector<Bytes> out;
  for (int64_t b = p.min_bytes.count(); b <= p.max_bytes.count();
       b = p.step_factor > 1 ? b * p.step_factor : b + p.step_bytes.count()) {
    const int64_t rounded = b / unit * unit;
    if (rounded > 0 && (out.empty() || out.back().count() != rounded)) {
      out.push_back(Bytes(rounded));
    }
    if (out.size() > 10000) {
      throw InputError(ctx.file, line_of(n["min_bytes"]), path + ".min_bytes", "the sweep has more than 10000 sizes");
    }
  }
  return out;
}

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
  std::vector<Bytes> sizes = p.sizes;
  if (n["min_bytes"] || n["max_bytes"]) {  // a sweep, even of 0 B (which sweep_sizes refuses)
    if (n["sizes"]) {
      throw InputError(ctx.file, line_of(n["sizes"]), path + ".sizes", "give sizes or a sweep (min_bytes), not both");
    }
    sizes = sweep_sizes(p, op, ranks.size(), n, ctx, path);
  }
  if (sizes.empty()) {
    throw InputError(ctx.file, line_of(n["sizes"]), path + ".sizes", "needs at least one size");
  }
  for (Bytes b : sizes) {
    check_collective_size(op, b, ranks.size(), n["sizes"], ctx, path + ".sizes");
  }
  if (p.root >= static_cast<int64_t>(ranks.size())) {
    throw InputError(ctx.file, line_of(n["root"]), path + ".root",
                     fmt::format("rank {} does not exist (0..{})", p.root, ranks.size() - 1));
  }
  std::vector<Phase> program;
  std::vector<CollectiveCall> calls;
  // Per size: the warm-up, then the timed instances once per placement (nccl-tests' TimeTest: out of place, then
  // in place).
  const int64_t placements = p.placement == "both" ? 2 : 1;
  for (Bytes b : sizes) {
    for (int64_t i = 0; i < p.warmup + placements * p.iterations; ++i) {
      const CollectiveCall call{op, b, static_cast<uint32_t>(p.root)};
      program.push_back({Time(), Time(), {call}});
      calls.push_back(call);
    }
  }
  WorkloadFlows out;
  out.resolved = CollectiveParams::schema().dump(p);
  out.install = [p, ranks, program, calls, op, path, sizes](Network& net,
                                                            uint16_t workload) -> std::shared_ptr<Output> {
    auto g = install_collectives(net, ranks, p.protocol, program, p.start, workload);
    const CollectiveReport::Layout table{.op = op,
                                         .sizes = sizes,
                                         .warmup = p.warmup,
                                         .iterations = p.iterations,
                                         .step_factor = p.step_factor,
                                         .step_bytes = p.step_bytes,
                                         .out_of_place = p.placement != "in_place",
                                         .in_place = p.placement != "out_of_place",
                                         .root = static_cast<uint32_t>(p.root),
                                         .algorithm = p.protocol.algorithm};
    return std::make_shared<CollectiveReport>(path, g, calls, net, table);
  };
  return out;
}

}  // namespace

static WorkloadEntry collective_workload() {
  return {"collective", "NCCL collectives between GPUs (nccl-tests)", generate_collective,
          describe_schema<CollectiveParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> collective_workload_registered(workload_registry(), collective_workload());
}  // namespace

}  // namespace rocesim
