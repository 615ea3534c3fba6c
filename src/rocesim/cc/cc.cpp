#include "rocesim/cc/cc.hpp"

namespace rocesim {

const Registry<CcFactory>& cc_registry() {
  static const Registry<CcFactory> r(
      "nic.cc", "dcqcn", {cc_none(), cc_dcqcn(), cc_dcqcn_paper(), cc_hpcc(), cc_dctcp(), cc_timely(), cc_ib_cca()});
  return r;
}

std::unique_ptr<CcAlgorithm> parse_cc(const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
  const CcEntry& e = cc_registry().select(n, ctx, path);
  return e.make(n.IsDefined() && n.IsMap() ? n : YAML::Node(), ctx, path);
}

}  // namespace rocesim
