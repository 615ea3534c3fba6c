#include "rocesim/workload/workload.hpp"

namespace rocesim {

std::vector<std::string> workload_types() { return {"incast", "permutation", "flows"}; }

WorkloadFlows generate_workload(const YAML::Node& n, const ParseCtx& ctx, const std::string& path,
                                const WorkloadContext& wc, Rng& rng) {
  const std::string type = read_type(n, ctx, path, workload_types());
  WorkloadFlows out;
  if (type == "incast") {
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
  out.push_back({"workload[].type", "string", "", "", "incast, permutation or flows"});
  describe_incast(out, "workload[incast]");
  describe_permutation(out, "workload[permutation]");
  describe_flow_file(out, "workload[flows]");
}

}  // namespace rocesim
