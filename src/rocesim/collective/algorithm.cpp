#include "rocesim/collective/algorithm.hpp"

#include <algorithm>
#include <unordered_map>

namespace rocesim {

Registry<AlgorithmFactory>& collective_algorithm_registry() {
  static Registry<AlgorithmFactory> r("protocol.algorithm", "ring");
  return r;
}

GroupLayout::GroupLayout(std::vector<RankPlace> r) : ranks(std::move(r)) {
  std::unordered_map<uint32_t, uint32_t> entry;  // server -> its entry of `servers`
  for (uint32_t i = 0; i < ranks.size(); ++i) {
    const auto [it, added] = entry.try_emplace(ranks[i].server, static_cast<uint32_t>(servers.size()));
    if (added) {
      servers.push_back(ranks[i].server);
      local.emplace_back();
    }
    local[it->second].push_back(i);
    rank_server.push_back(it->second);
  }
  slots.assign(servers.size(), 0);
}

uint32_t GroupLayout::connect(uint32_t from, uint32_t to, int64_t window) {
  CollLink l;
  l.window = window;
  l.from = from;
  l.to = to;
  l.net = ranks[from].server != ranks[to].server;
  l.slot_from = slots[rank_server[from]]++;
  l.slot_to = l.net ? slots[rank_server[to]]++ : l.slot_from;
  links.push_back(l);
  return static_cast<uint32_t>(links.size() - 1);
}

BlockSplit::BlockSplit(int64_t total, size_t parts, int64_t unit)
    : parts_(static_cast<int64_t>(parts)),
      unit_(unit),
      base_units_(total / unit / parts_),
      bigger_(total / unit % parts_),
      rest_(total % unit) {}

int64_t BlockSplit::operator[](size_t i) const {
  const auto k = static_cast<int64_t>(i);
  return (base_units_ + (k < bigger_)) * unit_ + (k == parts_ - 1 ? rest_ : 0);
}

size_t BlockSplit::equal_below(size_t i) const {
  const auto k = static_cast<int64_t>(i);
  if (k == parts_ - 1) {
    return 1;
  }
  return static_cast<size_t>(k < bigger_ ? k + 1 : k - bigger_ + 1);
}

std::vector<int64_t> split_blocks(int64_t total, size_t parts, int64_t unit) {
  const BlockSplit split(total, parts, unit);
  std::vector<int64_t> out(parts, 0);
  for (size_t i = 0; i < parts; ++i) {
    out[i] = split[i];
  }
  return out;
}

std::vector<int64_t> slices_of(int64_t bytes, int64_t slice) {
  const int64_t n = std::max<int64_t>(1, (bytes + slice - 1) / slice);
  return split_blocks(bytes, static_cast<size_t>(n), 1);
}

void Runner::push_slices(const Item& it, int64_t slice, uint64_t times) {
  // slices_of's cut: the first `bigger` slices hold a byte more than the others.
  const int64_t n = std::max<int64_t>(1, (it.bytes + slice - 1) / slice);
  const int64_t bigger = it.bytes % n;
  Item small = it, big = it;
  small.bytes = it.bytes / n;
  big.bytes = small.bytes + 1;
  if (bigger == 0) {
    push_back(small, static_cast<uint64_t>(n) * times);
    return;
  }
  for (uint64_t k = 0; k < times; ++k) {
    push_back(big, static_cast<uint64_t>(bigger));
    push_back(small, static_cast<uint64_t>(n - bigger));
  }
}

}  // namespace rocesim
