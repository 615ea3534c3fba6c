#include "rocesim/sweep/manifest.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "rocesim/core/error.hpp"

namespace rocesim {

std::string Manifest::to_json() const {
  nlohmann::ordered_json j;
  j["rocesim"] = rocesim;
  j["scenario"] = scenario;
  j["set"] = sets;
  j["grid"] = nlohmann::ordered_json::array();
  for (const GridAxis& a : axes) {
    j["grid"].push_back({{"key", a.key}, {"values", a.values}});
  }
  j["seeds"] = seeds;
  j["runs"] = nlohmann::ordered_json::array();
  for (const SweepRun& r : runs) {
    nlohmann::ordered_json one;
    one["name"] = r.name;
    one["values"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : r.point.values) {
      one["values"][k] = v;
    }
    one["seed"] = r.point.seed ? nlohmann::ordered_json(*r.point.seed) : nlohmann::ordered_json();
    one["hash"] = r.hash;
    one["argv"] = r.argv;
    j["runs"].push_back(std::move(one));
  }
  return j.dump(2) + "\n";
}

namespace {

// The value at `key` of `j`, of the expected type, or an error naming the JSON path.
template <class T>
T field(const nlohmann::ordered_json& j, const std::string& key, const std::string& path, const std::string& file) {
  if (!j.is_object() || !j.contains(key)) {
    throw InputError(file, 0, path + key, "missing");
  }
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(file, 0, path + key, "has the wrong type");
  }
}

}  // namespace

Manifest Manifest::parse(const std::string& text, const std::string& file) {
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw InputError(file, 0, "", "not a sweep manifest (JSON object expected)");
  }
  Manifest m;
  m.rocesim = field<std::string>(j, "rocesim", "", file);
  m.scenario = field<std::string>(j, "scenario", "", file);
  m.sets = field<std::vector<std::string>>(j, "set", "", file);
  m.seeds = field<std::vector<int64_t>>(j, "seeds", "", file);
  const auto grid = field<nlohmann::ordered_json>(j, "grid", "", file);
  if (!grid.is_array()) {
    throw InputError(file, 0, "grid", "expected a list");
  }
  for (size_t i = 0; i < grid.size(); ++i) {
    const std::string at = fmt::format("grid[{}].", i);
    m.axes.push_back(
        {field<std::string>(grid[i], "key", at, file), field<std::vector<std::string>>(grid[i], "values", at, file)});
  }
  const auto runs = field<nlohmann::ordered_json>(j, "runs", "", file);
  if (!runs.is_array()) {
    throw InputError(file, 0, "runs", "expected a list");
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string at = fmt::format("runs[{}].", i);
    SweepRun r;
    r.name = field<std::string>(runs[i], "name", at, file);
    if (r.name.empty() || r.name.find_first_not_of("0123456789") != std::string::npos) {
      throw InputError(file, 0, at + "name", "'" + r.name + "' is not a run number");
    }
    const auto values = field<nlohmann::ordered_json>(runs[i], "values", at, file);
    for (const auto& [k, v] : values.items()) {
      if (!v.is_string()) {
        throw InputError(file, 0, at + "values." + k, "has the wrong type");
      }
      r.point.values.emplace_back(k, v.get<std::string>());
    }
    const auto seed = field<nlohmann::ordered_json>(runs[i], "seed", at, file);
    if (!seed.is_null()) {
      r.point.seed = field<int64_t>(runs[i], "seed", at, file);
    }
    r.hash = field<std::string>(runs[i], "hash", at, file);
    r.argv = field<std::vector<std::string>>(runs[i], "argv", at, file);
    if (r.argv.empty()) {
      throw InputError(file, 0, at + "argv", "empty");
    }
    m.runs.push_back(std::move(r));
  }
  return m;
}

std::string scenario_hash(const nlohmann::json& resolved) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : resolved.dump()) {
    h = (h ^ c) * 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

nlohmann::json run_summary(const std::string& sweep_dir, const SweepRun& run) {
  std::ifstream in(sweep_dir + "/runs/" + run.name + "/summary.json");
  if (!in) {
    return nlohmann::json();
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str(), nullptr, false);
}

RunState state_of(const nlohmann::json& summary, const SweepRun& run) {
  if (summary.is_null()) {
    return RunState::kMissing;
  }
  // The keys the sweep reads, of the types rocesim writes them: anything else was edited or cut short.
  const bool whole = summary.is_object() && summary.contains("scenario") && summary["scenario"].is_object() &&
                     (!summary.contains("partial") || summary["partial"].is_boolean());
  if (!whole) {
    return RunState::kDamaged;
  }
  if (scenario_hash(summary["scenario"]) != run.hash) {
    return RunState::kStale;
  }
  return summary.value("partial", false) ? RunState::kPartial : RunState::kComplete;
}

const char* to_string(RunState s) {
  switch (s) {
    case RunState::kComplete:
      return "ok";
    case RunState::kPartial:
      return "partial";
    case RunState::kStale:
      return "stale";
    case RunState::kDamaged:
      return "damaged";
    case RunState::kMissing:
      return "missing";
  }
  return "missing";
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

}  // namespace rocesim
