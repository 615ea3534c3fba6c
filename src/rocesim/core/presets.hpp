// Presets: named sets of a scenario section's values that real gear ships with (a switch's QoS, a GPU server's
// build). A section's `preset: NAME` takes the preset's values as its defaults; keys written next to it win.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "rocesim/core/params.hpp"

namespace rocesim {

struct Preset {
  std::string name;
  std::string doc;   // what it is, with the sources of its values
  std::string yaml;  // a fragment of the section
};

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

// If `section` (the scenario's mapping at `key`, e.g. "switch") names one of `presets`, fills in the preset's
// values the user left out and returns what it did; nothing if no preset is named. An unknown name is an
// InputError naming `key`.preset.
std::optional<PresetUse> apply_preset(YAML::Node& section, const std::string& key, const std::vector<Preset>& presets,
                                      const ParseCtx& ctx);

}  // namespace rocesim
