// Tagger (switch/tagger.hpp) as an egress stage: a packet that bounces (arrives from a higher level and leaves
// toward one) moves to the next priority of the ladder, its DSCP rewritten so that the next switch classifies it
// there. Runs when switch.pfc.tagger.priorities is not empty.
#include "rocesim/switch/egress_stage.hpp"
#include "rocesim/switch/switch.hpp"

namespace rocesim {
namespace {

class TaggerStage final : public EgressStage {
 public:
  TaggerStage(const TagTable& tags, std::vector<char> upward) : tags_(tags), upward_(std::move(upward)) {}
  uint8_t hooks() const override { return kRoute; }
  std::optional<DropReason> on_route(Packet* p, uint16_t out, int& c) override {
    if (out >= upward_.size() || !upward_[out] || !upward_[p->in_port] || tags_.next[c] == c) {
      return std::nullopt;
    }
    c = tags_.next[c];
    p->dscp = tags_.dscp[c];
    return std::nullopt;
  }

 private:
  TagTable tags_;
  std::vector<char> upward_;
};

}  // namespace

static EgressStageEntry tagger_stage() {
  return {"tagger",
          "move a bouncing packet to the next lossless priority (switch.pfc.tagger)",
          [](const EgressStageContext& ctx) -> std::unique_ptr<EgressStage> {
            TagTable tags;
            if (const int missing = tags.build(ctx.params.pfc.tagger, ctx.dscp_to_prio); missing >= 0) {
              throw InputError(ctx.scenario_file, 0, "switch.pfc.tagger.priorities",
                               "Tagger moves packets to priority " + std::to_string(missing) +
                                   ", which no DSCP of switch.dscp_map maps to");
            }
            return tags.active ? std::make_unique<TaggerStage>(tags, ctx.upward) : nullptr;
          },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<EgressStageFactory> tagger_stage_registered(egress_stage_registry(), tagger_stage());
}  // namespace

}  // namespace rocesim
