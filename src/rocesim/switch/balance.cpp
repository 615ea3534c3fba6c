#include "rocesim/switch/balance.hpp"

namespace rocesim {

Registry<BalanceFactory>& balance_registry() {
  static Registry<BalanceFactory> r("routing.balance", "ecmp");
  return r;
}

std::unique_ptr<BalanceAlgorithm> parse_balance(const YAML::Node& n, const ParseCtx& ctx, const std::string& path) {
  return make_selected(balance_registry(), n, ctx, path);
}

}  // namespace rocesim
