#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
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

// A preset as a scenario used it: its name, and each of its keys the scenario set itself (the scenario's value
// won), with both values as written.
struct PresetUse {
  std::string name;
  struct Override {
    std::string key;  // e.g. switch.ecn.kmin
    std::string value, preset_value;
  };
  std::vector<Override> overrides;
};

// If `sw` (the scenario's `switch` mapping) names a preset, fills in the preset's values the user left out and
// returns what it did; nothing if no preset is named.
std::optional<PresetUse> apply_switch_preset(YAML::Node& sw, const ParseCtx& ctx);

}  // namespace rocesim
