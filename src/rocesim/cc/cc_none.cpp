// No congestion control: every QP sends at line rate and PFC alone keeps the fabric lossless.
#include "rocesim/cc/cc.hpp"

namespace rocesim {
namespace {

struct NoneParams {
  static const Schema<NoneParams>& schema() {
    static const Schema<NoneParams> s =
        Schema<NoneParams>("cc none", "line rate, no reaction to congestion").reserved("type", "none");
    return s;
  }
};

class NoCc final : public CongestionControl {
 public:
  explicit NoCc(Rate line) { rate = line; }
};

class NoneAlgorithm final : public CcAlgorithm {
 public:
  std::unique_ptr<CongestionControl> make(const CcFlowInfo& flow, CcTimers&) const override {
    return std::make_unique<NoCc>(flow.line_rate);
  }
  nlohmann::json dump() const override { return {{"type", "none"}}; }
};

}  // namespace

static CcEntry cc_none() {
  return {"none",
          "line rate, PFC alone",
          [](const YAML::Node& n, const ParseCtx& ctx, const std::string& path) -> std::unique_ptr<CcAlgorithm> {
            NoneParams::schema().parse(n, ctx, path);
            return std::make_unique<NoneAlgorithm>();
          },
          {}};
}

namespace {
// Registered before main (core/registry.hpp).
const Registrar<CcFactory> cc_none_registered(cc_registry(), cc_none());
}  // namespace

}  // namespace rocesim
