#include "rocesim/collective/algorithm.hpp"

#include <algorithm>

namespace rocesim {

AlgorithmEntry ring_algorithm();
AlgorithmEntry tree_algorithm();
AlgorithmEntry halving_doubling_algorithm();

const Registry<AlgorithmFactory>& collective_algorithm_registry() {
  static const Registry<AlgorithmFactory> r("protocol.algorithm", "ring",
                                            {ring_algorithm(), tree_algorithm(), halving_doubling_algorithm()});
  return r;
}

GroupLayout::GroupLayout(std::vector<RankPlace> r) : ranks(std::move(r)) {
  for (uint32_t i = 0; i < ranks.size(); ++i) {
    const auto it = std::find(servers.begin(), servers.end(), ranks[i].server);
    if (it == servers.end()) {
      servers.push_back(ranks[i].server);
      local.emplace_back();
    }
    local[static_cast<size_t>(std::find(servers.begin(), servers.end(), ranks[i].server) - servers.begin())].push_back(
        i);
  }
}

uint32_t GroupLayout::connect(uint32_t from, uint32_t to, int64_t window) {
  CollLink l;
  l.window = window;
  l.from = from;
  l.to = to;
  l.net = ranks[from].server != ranks[to].server;
  links.push_back(l);
  return static_cast<uint32_t>(links.size() - 1);
}

std::vector<int64_t> split_blocks(int64_t total, size_t parts, int64_t unit) {
  std::vector<int64_t> out(parts, 0);
  const auto p = static_cast<int64_t>(parts);
  const int64_t units = total / unit, rest = total % unit;
  for (int64_t i = 0; i < p; ++i) {
    out[static_cast<size_t>(i)] = (units / p + (i < units % p)) * unit;
  }
  out.back() += rest;
  return out;
}

std::vector<int64_t> slices_of(int64_t bytes, int64_t slice) {
  const int64_t n = std::max<int64_t>(1, (bytes + slice - 1) / slice);
  return split_blocks(bytes, static_cast<size_t>(n), 1);
}

}  // namespace rocesim
