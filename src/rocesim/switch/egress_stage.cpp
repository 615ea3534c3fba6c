#include "rocesim/switch/egress_stage.hpp"

namespace rocesim {

Registry<EgressStageFactory>& egress_stage_registry() {
  static Registry<EgressStageFactory> r("switch egress stages", "");
  return r;
}

std::vector<std::unique_ptr<EgressStage>> make_egress_stages(const EgressStageContext& ctx) {
  std::vector<std::unique_ptr<EgressStage>> out;
  for (const std::string& name : egress_stage_registry().names()) {
    if (auto s = egress_stage_registry().find(name)->make(ctx)) {
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace rocesim
