#include "rocesim/cc/cc.hpp"

namespace rocesim {

std::vector<std::string> cc_types() { return {"none", "dcqcn", "dcqcn-paper", "hpcc", "dctcp"}; }

std::unique_ptr<CcAlgorithm> parse_cc(const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
  const std::string type = read_type(n, ctx, path, cc_types(), "dcqcn");
  const YAML::Node params = n.IsDefined() && n.IsMap() ? n : YAML::Node();
  if (type == "none") {
    return parse_cc_none(params, ctx, path);
  }
  if (type == "hpcc") {
    return parse_cc_hpcc(params, ctx, path);
  }
  if (type == "dctcp") {
    return parse_cc_dctcp(params, ctx, path);
  }
  return parse_cc_dcqcn(type, params, ctx, path);
}

void describe_cc(std::vector<ParamDoc>& out, const std::string& prefix) {
  out.push_back(ParamDoc{prefix + ".type", "string", "dcqcn", "",
                         "congestion control: none (line rate, PFC alone), dcqcn (NVIDIA ConnectX defaults), "
                         "dcqcn-paper (SIGCOMM 2015 defaults), hpcc (in-band telemetry), dctcp (window on ECN echo)"});
  describe_cc_none(out, prefix + "[none]");
  describe_cc_dcqcn("dcqcn", out, prefix + "[dcqcn]");
  describe_cc_dcqcn("dcqcn-paper", out, prefix + "[dcqcn-paper]");
  describe_cc_hpcc(out, prefix + "[hpcc]");
  describe_cc_dctcp(out, prefix + "[dctcp]");
}

}  // namespace rocesim
