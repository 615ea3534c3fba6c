// `rocesim check`: what can go wrong with PFC on this fabric, found without simulating it: cyclic buffer
// dependencies (deadlock), with routes after link failures too, and configuration lint.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocesim/check/dependency.hpp"
#include "rocesim/check/lint.hpp"
#include "rocesim/io/scenario.hpp"

namespace rocesim {

struct CheckOptions {
  int failures = 0;                              // also check every set of up to this many switch-to-switch links down
  std::function<void(size_t, size_t)> progress;  // (sets of failed links checked, of how many)
};

struct CheckReport {
  std::vector<int64_t> lossless;           // the lossless priorities
  size_t switches = 0, switch_queues = 0;  // switches, and egress queues between two switches
  // Per set of lossless priorities with the same graph: those off Tagger's ladder, then those on it (none without
  // a lossless priority: no PFC, no deadlock).
  std::vector<DependencyReport> deps;
  std::vector<Finding> findings;
  size_t cycles() const {
    size_t n = 0;
    for (const DependencyReport& d : deps) {
      n += d.cycles.size();
    }
    return n;
  }
  bool clean() const { return findings.empty() && cycles() == 0; }
};

CheckReport run_check(const Scenario& sc, const CheckOptions& o);
// The human table (`rocesim check`) and the JSON document (`--json`).
std::string check_text(const CheckReport& r, const std::string& scenario_file);
nlohmann::json check_json(const CheckReport& r, const std::string& scenario_file);

}  // namespace rocesim
