// A sweep's runs: the cartesian product of `--grid KEY=V1,V2,...` axes and a list of seeds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rocesim {

// One `--grid` argument: a parameter key and the values it takes, in the order given.
struct GridAxis {
  std::string key;
  std::vector<std::string> values;
};

// One run of a sweep: a value for each axis (in axis order) and a seed (none: the scenario's own).
struct GridPoint {
  std::vector<std::pair<std::string, std::string>> values;
  std::optional<int64_t> seed;
  // The `--set KEY=VALUE` overrides this point stands for, in axis order.
  std::vector<std::string> sets() const;
};

// "switch.ecn.kmin=100KB,200KB": values split at commas outside brackets, so a list value stays whole
// ("switch.pfc.priorities=[3],[3,4]" has two values). Throws InputError naming `--grid` and the argument.
GridAxis parse_grid_axis(const std::string& arg);

// "1-5", "7", "1,3,9", "1-3,10": distinct seeds in the order given. Throws InputError naming `--seeds`.
std::vector<int64_t> parse_seeds(const std::string& text);

// Every combination: the first axis varies slowest, the seed fastest. No seeds: one point per combination, with
// the scenario's seed. Throws InputError if two axes name the same key.
std::vector<GridPoint> expand_grid(const std::vector<GridAxis>& axes, const std::vector<int64_t>& seeds);

}  // namespace rocesim
