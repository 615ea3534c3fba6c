#include "rocesim/core/presets.hpp"

namespace rocesim {
namespace {
// A value as the scenario wrote it, on one line (flow style for lists and mappings).
std::string text_of(const YAML::Node& n) {
  if (n.IsScalar()) {
    return n.Scalar();
  }
  YAML::Emitter e;
  e << YAML::Flow << n;
  return e.c_str();
}

// Copies the preset's keys into `node` where the user has not set them (nested mappings merge key by key); a
// key the user set, with a value other than the preset's, goes to `overrides`.
void merge_defaults(YAML::Node node, const YAML::Node& defaults, const std::string& path,
                    std::vector<PresetUse::Override>& overrides) {
  for (const auto& kv : defaults) {
    const std::string key = kv.first.Scalar();
    if (!node[key]) {
      node[key] = YAML::Clone(kv.second);
    } else if (node[key].IsMap() && kv.second.IsMap()) {
      merge_defaults(node[key], kv.second, path + "." + key, overrides);
    } else if (text_of(node[key]) != text_of(kv.second)) {
      overrides.push_back({path + "." + key, text_of(node[key]), text_of(kv.second)});
    }
  }
}
}  // namespace

std::optional<PresetUse> apply_preset(YAML::Node& section, const std::string& key, const std::vector<Preset>& presets,
                                      const ParseCtx& ctx) {
  if (!section.IsMap() || !section["preset"]) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (const auto& p : presets) {
    names.push_back(p.name);
  }
  const std::string name = read_value<std::string>(section["preset"], ctx, key + ".preset");
  if (auto err = one_of(names)(name)) {
    throw InputError(ctx.file, line_of(section["preset"]), key + ".preset", *err);
  }
  PresetUse use{name, {}};
  for (const auto& p : presets) {
    if (p.name == name) {
      merge_defaults(section, YAML::Load(p.yaml), key, use.overrides);
    }
  }
  return use;
}

}  // namespace rocesim
