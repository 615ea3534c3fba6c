#include "rocesim/workload/workload.hpp"

namespace rocesim {

std::vector<std::string> workload_types() {
  return {"poisson", "incast", "permutation", "all-to-all", "flows", "hpcc-flows"};
}

WorkloadFlows generate_workload(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                const WorkloadContext& wc, Rng& rng) {
  const std::string type = read_type(n, ctx, path, workload_types());
  WorkloadFlows out;
  if (type == "poisson") {
    out = generate_poisson(n, ctx, path, wc, rng);
  } else if (type == "all-to-all") {
    out = generate_all_to_all(n, ctx, path, wc, rng);
  } else if (type == "hpcc-flows") {
    out = generate_hpcc_flows(n, ctx, path, wc, rng);
  } else if (type == "incast") {
    out = generate_incast(n, ctx, path, wc, rng);
  } else if (type == "permutation") {
    out = generate_permutation(n, ctx, path, wc, rng);
  } else {
    out = generate_flow_file(n, ctx, path, wc, rng);
  }
  out.resolved["type"] = type;
  return out;
}

void describe_workloads(std::vector<ParamDoc>& out) {
  out.push_back({"workload[].type", "string", "", "", "poisson, incast, permutation, all-to-all, flows or hpcc-flows"});
  describe_hpcc_flows(out, "workload[hpcc-flows]");
  describe_poisson(out, "workload[poisson]");
  describe_all_to_all(out, "workload[all-to-all]");
  describe_incast(out, "workload[incast]");
  describe_permutation(out, "workload[permutation]");
  describe_flow_file(out, "workload[flows]");
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
    out.push_back(static_cast<uint32_t>(h));
  }
  if (out.size() < 2) {
    throw InputError(ctx.file, line_of(n["hosts"]), path + ".hosts", "needs at least two hosts");
  }
  return out;
}

}  // namespace rocesim
