#include "rocesim/sweep/grid.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "rocesim/core/error.hpp"

namespace rocesim {

std::vector<std::string> GridPoint::sets() const {
  std::vector<std::string> out;
  for (const auto& [key, value] : values) {
    out.push_back(key + "=" + value);
  }
  return out;
}

GridAxis parse_grid_axis(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--grid", 0, arg, "expected KEY=V1,V2,..., e.g. switch.ecn.kmin=100KB,200KB");
  }
  GridAxis axis{arg.substr(0, eq), {}};
  std::string value;
  int depth = 0;
  const auto push = [&] {
    if (value.empty()) {
      throw InputError("--grid", 0, axis.key, "an empty value in '" + arg.substr(eq + 1) + "'");
    }
    axis.values.push_back(value);
    value.clear();
  };
  for (char c : arg.substr(eq + 1)) {
    if (c == ',' && depth == 0) {
      push();
      continue;
    }
    depth += (c == '[' || c == '{') ? 1 : (c == ']' || c == '}') ? -1 : 0;
    if (depth < 0) {
      throw InputError("--grid", 0, axis.key, "unbalanced brackets in '" + arg.substr(eq + 1) + "'");
    }
    value += c;
  }
  if (depth != 0) {
    throw InputError("--grid", 0, axis.key, "unbalanced brackets in '" + arg.substr(eq + 1) + "'");
  }
  push();
  std::set<std::string> seen;
  for (const std::string& v : axis.values) {
    if (!seen.insert(v).second) {
      throw InputError("--grid", 0, axis.key, "'" + v + "' is given twice");
    }
  }
  return axis;
}

namespace {

int64_t parse_seed(const std::string& text, const std::string& all) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0) {
    throw InputError("--seeds", 0, all, "'" + text + "' is not a seed (a whole number 0 or more; e.g. 1-5 or 1,3,9)");
  }
  return v;
}

}  // namespace

std::vector<int64_t> parse_seeds(const std::string& text) {
  constexpr int64_t kMaxSeeds = 100000;
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  size_t from = 0;
  while (from <= text.size()) {
    size_t comma = text.find(',', from);
    if (comma == std::string::npos) {
      comma = text.size();
    }
    const std::string part = text.substr(from, comma - from);
    const size_t dash = part.find('-', 1);
    const int64_t lo = parse_seed(dash == std::string::npos ? part : part.substr(0, dash), text);
    const int64_t hi = dash == std::string::npos ? lo : parse_seed(part.substr(dash + 1), text);
    if (hi < lo || hi - lo >= kMaxSeeds) {
      throw InputError("--seeds", 0, text, "'" + part + "' is not a range LO-HI with LO <= HI (at most 100000 seeds)");
    }
    for (int64_t s = lo;; ++s) {  // stops at hi without stepping past it (hi may be the largest int64)
      if (!seen.insert(s).second) {
        throw InputError("--seeds", 0, text, "seed " + std::to_string(s) + " is given twice");
      }
      out.push_back(s);
      if (s == hi) {
        break;
      }
    }
    if (static_cast<int64_t>(out.size()) > kMaxSeeds) {
      throw InputError("--seeds", 0, text, "more than 100000 seeds");
    }
    from = comma + 1;
  }
  return out;
}

std::vector<GridPoint> expand_grid(const std::vector<GridAxis>& axes, const std::vector<int64_t>& seeds) {
  std::set<std::string> keys;
  for (const GridAxis& a : axes) {
    if (!keys.insert(a.key).second) {
      throw InputError("--grid", 0, a.key, "the key has two --grid axes; give its values in one");
    }
  }
  constexpr double kMaxRuns = 100000;
  double runs = std::max<double>(1, static_cast<double>(seeds.size()));
  for (const GridAxis& a : axes) {
    runs *= static_cast<double>(a.values.size());
  }
  if (runs > kMaxRuns) {
    throw InputError("--grid", 0, axes.empty() ? std::string("--seeds") : axes.back().key,
                     "the grid has " + std::to_string(static_cast<int64_t>(runs)) + " runs; at most 100000");
  }
  std::vector<GridPoint> out{GridPoint{}};
  for (const GridAxis& a : axes) {
    std::vector<GridPoint> next;
    for (const GridPoint& p : out) {
      for (const std::string& v : a.values) {
        GridPoint q = p;
        q.values.emplace_back(a.key, v);
        next.push_back(std::move(q));
      }
    }
    out = std::move(next);
  }
  if (seeds.empty()) {
    return out;
  }
  std::vector<GridPoint> seeded;
  for (const GridPoint& p : out) {
    for (int64_t s : seeds) {
      GridPoint q = p;
      q.seed = s;
      seeded.push_back(std::move(q));
    }
  }
  return seeded;
}

}  // namespace rocesim
