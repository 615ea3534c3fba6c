// `rocesim check`: what can go wrong with PFC on this fabric, found without simulating it: cyclic buffer
// dependencies (deadlock), with routes after link failures too, and configuration lint.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/check/dependency.hpp"
#include "rocesim/check/lint.hpp"
#include "rocesim/io/scenario.hpp"

namespace rocesim {

struct CheckOptions {
  int failures = 0;  // also check every set of up to this many switch-to-switch links down
};

struct CheckReport {
  std::vector<int64_t> lossless;           // the lossless priorities
  size_t switches = 0, switch_queues = 0;  // switches, and egress queues between two switches
  std::optional<DependencyReport> deps;    // none without a lossless priority (no PFC, no deadlock)
  std::vector<Finding> findings;
  bool clean() const { return findings.empty() && (!deps || deps->cycles.empty()); }
};

CheckReport run_check(const Scenario& sc, const CheckOptions& o);
// The human table (`rocesim check`) and the JSON document (`--json`).
std::string check_text(const CheckReport& r, const std::string& scenario_file);
nlohmann::json check_json(const CheckReport& r, const std::string& scenario_file);

}  // namespace rocesim
