#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "rocesim/core/params.hpp"

namespace rocesim {

struct SwitchPreset {
  std::string name;
  std::string doc;
  std::string yaml;  // a `switch` section fragment
};
const std::vector<SwitchPreset>& switch_presets();

// If `sw` (the scenario's `switch` mapping) names a preset, fills in the preset's values the user left out.
void apply_switch_preset(YAML::Node& sw, const ParseCtx& ctx);

}  // namespace rocesim
