// The `training` workload: data-parallel training steps. Each iteration every rank computes for `compute`, then
// runs the step's collectives in order; with `overlap` > 0 the last part of the compute runs beside the
// collectives (gradients reduced while the backward pass goes on), and the iteration ends when both are done.
#include <fmt/format.h>

#include <sstream>

#include "rocesim/cluster/network.hpp"
#include "rocesim/collective/report.hpp"
#include "rocesim/core/text.hpp"
#include "rocesim/workload/ranks.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {

struct TrainingParams {
  int64_t iterations = 0;
  Time compute;
  double overlap = 0;
  std::string collectives;
  std::vector<int64_t> servers;
  Time start;
  ProtocolParams protocol;
  static const Schema<TrainingParams>& schema() {
    static const Schema<TrainingParams> s = [] {
      Schema<TrainingParams> sc("training workload", "a training step loop: compute, then collectives");
      sc.reserved("type", "training")
          .add(&TrainingParams::iterations, "iterations", "3", "training steps", in_range<int64_t>(1, 100000))
          .add(&TrainingParams::compute, "compute", "1ms", "GPU compute time of a step")
          .add(&TrainingParams::overlap, "overlap", "0",
               "share of the compute that runs beside the step's collectives (0: none, 1: all)", in_range<double>(0, 1))
          .add(&TrainingParams::collectives, "collectives", "all_reduce:64MiB",
               "the step's collectives in order, \"OP:SIZE, ...\" (e.g. \"reduce_scatter:256MiB, all_gather:256MiB\")")
          .add(&TrainingParams::servers, "servers", "[]", "servers whose GPUs are the ranks; empty: all servers")
          .add(&TrainingParams::start, "start", "0ns", "when the first step starts")
          .sub(&TrainingParams::protocol, "protocol", ProtocolParams::schema());
      return sc;
    }();
    return s;
  }
};

WorkloadFlows generate_training(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                const WorkloadContext& wc, Rng&) {
  const TrainingParams p = TrainingParams::schema().parse(n, ctx, path);
  const std::vector<RankPlace> ranks = select_ranks(p.servers, n, ctx, path, wc, "servers");
  std::vector<CollectiveCall> step;
  std::stringstream ss(p.collectives);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto colon = item.find(':');
    const std::optional<CollOp> op =
        colon == std::string::npos ? std::nullopt : parse_coll_op(trim(item.substr(0, colon)));
    if (!op) {
      throw InputError(
          ctx.file, line_of(n["collectives"]), path + ".collectives",
          "'" + trim(item) + "' is not OP:SIZE (OP: all_reduce, reduce_scatter, all_gather, broadcast, all_to_all)");
    }
    Bytes b;
    try {
      b = parse_bytes(trim(item.substr(colon + 1)));
    } catch (const UnitError& e) {
      throw InputError(ctx.file, line_of(n["collectives"]), path + ".collectives", e.message);
    }
    check_collective_size(*op, b, ranks.size(), n["collectives"], ctx, path + ".collectives");
    step.push_back({*op, b, 0});
  }
  if (step.empty()) {
    throw InputError(ctx.file, line_of(n["collectives"]), path + ".collectives", "needs at least one collective");
  }
  std::vector<Phase> program;
  std::vector<CollectiveCall> calls;
  const Time beside = Time::ps(static_cast<int64_t>(static_cast<double>(p.compute.ps()) * p.overlap));
  for (int64_t i = 0; i < p.iterations; ++i) {
    program.push_back({p.compute - beside, beside, step});
    calls.insert(calls.end(), step.begin(), step.end());
  }
  WorkloadFlows out;
  out.resolved = TrainingParams::schema().dump(p);
  out.install = [p, ranks, program, calls, path](Network& net, uint16_t workload) -> std::shared_ptr<Output> {
    auto g = install_collectives(net, ranks, p.protocol, program, p.start, workload);
    const CollectiveReport::Steps steps{.iterations = program.size(),
                                        .calls_per_step = program.front().calls.size(),
                                        .compute = p.compute,
                                        .beside = program.front().beside,
                                        .start = p.start};
    return std::make_shared<CollectiveReport>(path, g, calls, net, std::nullopt, steps);
  };
  return out;
}

}  // namespace

static WorkloadEntry training_workload() {
  return {"training", "training steps: compute, then collectives (optionally overlapped)", generate_training,
          describe_schema<TrainingParams>()};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<WorkloadGenerator> training_workload_registered(workload_registry(), training_workload());
}  // namespace

}  // namespace rocesim
