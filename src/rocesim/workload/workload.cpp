#include "rocesim/workload/workload.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rocesim {

Registry<WorkloadGenerator>& workload_registry() {
  static Registry<WorkloadGenerator> r("workload", "");
  return r;
}

WorkloadFlows generate_workload(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                const WorkloadContext& wc, Rng& rng) {
  const WorkloadEntry& e = workload_registry().select(n, ctx, path);
  // `transport` is every flow workload's (their schemas reserve it): read here.
  Transport transport = Transport::kRdma;
  if (n.IsMap() && n["transport"]) {
    const std::string t = read_value<std::string>(n["transport"], ctx, path + ".transport");
    if (!parse_transport(t, transport)) {
      const std::string sug = did_you_mean(t, {"rdma", "tcp", "iwarp"});
      throw InputError(
          ctx.file, line_of(n["transport"]), path + ".transport",
          "unknown transport '" + t + "' (rdma, tcp, iwarp)" + (sug.empty() ? "" : "; did you mean '" + sug + "'?"));
    }
  }
  WorkloadFlows out = e.make(n, ctx, path, wc, rng);
  out.resolved["type"] = e.name;
  for (const FlowSpec& f : out.flows) {  // flow files name their line; a workload's sizes come from its keys
    if (const auto bad = flow_size_error(f.size)) {
      const bool sized = n.IsMap() && n["size"];
      throw InputError(ctx.file, line_of(sized ? n["size"] : n), path + (sized ? ".size" : ""), *bad);
    }
  }
  if (transport != Transport::kRdma) {
    if (out.install) {
      throw InputError(ctx.file, line_of(n["transport"]), path + ".transport",
                       "workload type " + e.name +
                           " runs RDMA applications; transport applies to flow workloads "
                           "(poisson, incast, permutation, all-to-all, flows, hpcc-flows)");
    }
    for (FlowSpec& f : out.flows) {
      if (f.op == RdmaOp::kRead) {
        throw InputError(ctx.file, line_of(n["transport"]), path + ".transport",
                         std::string("a READ flow needs RDMA; over ") + to_string(transport) +
                             " data goes from src to dst (use operation write)");
      }
      f.transport = transport;
    }
    out.resolved["transport"] = to_string(transport);
  }
  return out;
}

void check_flow_count(double flows, const YAML::Node& at, const ParseCtx& ctx, const std::string& key,
                      const std::string& hint) {
  if (flows > static_cast<double>(kMaxWorkloadFlows)) {
    throw InputError(ctx.file, line_of(at), key,
                     fmt::format("{:.0f} flows; a workload may generate at most {}{}", flows, kMaxWorkloadFlows,
                                 hint.empty() ? "" : ": " + hint));
  }
}

std::vector<uint32_t> select_hosts(const std::vector<int64_t>& hosts, const YAML::Node& n, const ParseCtx& ctx,
                                   const std::string& path, const WorkloadContext& wc) {
  std::vector<uint32_t> out;
  if (hosts.empty()) {
    for (uint32_t h = 0; h < wc.hosts; ++h) {
      out.push_back(h);
    }
    return out;
  }
  for (int64_t h : hosts) {
    if (h < 0 || h >= wc.hosts) {
      throw InputError(ctx.file, line_of(n["hosts"]), path + ".hosts",
                       "host " + std::to_string(h) + " does not exist (0.." + std::to_string(wc.hosts - 1) + ")");
    }
    if (std::find(out.begin(), out.end(), static_cast<uint32_t>(h)) != out.end()) {
      throw InputError(ctx.file, line_of(n["hosts"]), path + ".hosts",
                       "host " + std::to_string(h) + " is listed twice; list each host once");
    }
    out.push_back(static_cast<uint32_t>(h));
  }
  if (out.size() < 2) {
    throw InputError(ctx.file, line_of(n["hosts"]), path + ".hosts", "needs at least two hosts");
  }
  return out;
}

}  // namespace rocesim
