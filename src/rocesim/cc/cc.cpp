#include "rocesim/cc/cc.hpp"

namespace rocesim {

Registry<CcFactory>& cc_registry() {
  static Registry<CcFactory> r("nic.cc", "dcqcn");
  return r;
}

std::unique_ptr<CcAlgorithm> parse_cc(const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
  const CcEntry& e = cc_registry().select(n, ctx, path);
  return e.make(n.IsDefined() && n.IsMap() ? n : YAML::Node(), ctx, path);
}

}  // namespace rocesim
