// Switch presets: the QoS settings real gear ships, as scenario fragments. A scenario's `switch.preset: NAME`
// takes these values as its defaults; keys written next to it still win.
#include "rocesim/switch/presets.hpp"

namespace rocesim {

const std::vector<Preset>& switch_presets() {
  static const std::vector<Preset> all = {
      {"nvidia-roce-lossless",
       "NVIDIA Onyx `roce lossless` / Cumulus RoCE lossless mode (Onyx user manual \"RoCE Commands\"; Cumulus "
       "Linux \"RDMA over Converged Ethernet - RoCE\"): trust DSCP (26 to 3, 48 to 6), ECN on TC3 at 150/1500 KB "
       "with probability 100 %, PFC on priority 3, TC6 strict, TC3 and TC0 50 % each",
       R"(dscp_map: "0:0, 26:3, 48:6"
pfc: {priorities: [3]}
ecn: {kmin: 150KB, kmax: 1500KB, pmax: 1.0}
ets: {strict: [6], weights: [50, 1, 1, 50, 1, 1, 1, 1]}
)"},
      {"sonic-lossless",
       "SONiC's default lossless QoS (sonic-net/sonic-buildimage files/build_templates/qos_config.j2 and "
       "buffers_config.j2): PFC on 3 and 4, dynamic threshold 2^-3 with 1248 B reserved and a 2288 B xon offset, "
       "WRED/ECN 1 MiB to 2 MiB at 5 %, DWRR 40/30/25/5 on queues 0, 1, 3 and 4 (ComputeAI back end)",
       R"(dscp_map: "0:1, 3:3, 4:4, 8:0, 46:5, 48:6"
pfc: {priorities: [3, 4], xon_offset: 2288B}
admission: {type: dynamic, alpha: 0.125, reserved: 1248B}
ecn: {kmin: 1MiB, kmax: 2MiB, pmax: 0.05}
ets: {strict: [6], weights: [40, 30, 1, 25, 5, 1, 1, 1]}
)"},
  };
  return all;
}

std::optional<PresetUse> apply_switch_preset(YAML::Node& sw, const ParseCtx& ctx) {
  return apply_preset(sw, "switch", switch_presets(), ctx);
}

}  // namespace rocesim
