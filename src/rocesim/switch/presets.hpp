// Switch presets: the QoS settings real gear ships, as fragments of a scenario's `switch` section.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <vector>

#include "rocesim/core/presets.hpp"

namespace rocesim {

const std::vector<Preset>& switch_presets();

// If `sw` (the scenario's `switch` mapping) names a preset, fills in the preset's values the user left out and
// returns what it did; nothing if no preset is named.
std::optional<PresetUse> apply_switch_preset(YAML::Node& sw, const ParseCtx& ctx);

}  // namespace rocesim
