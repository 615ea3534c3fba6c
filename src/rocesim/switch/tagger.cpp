#include "rocesim/switch/tagger.hpp"

#include <algorithm>

namespace rocesim {

const Schema<TaggerParams>& TaggerParams::schema() {
  static const Schema<TaggerParams> s = [] {
    Schema<TaggerParams> sc("tagger", "Tagger deadlock prevention: a packet that bounces moves to another priority");
    sc.add(&TaggerParams::priorities, "priorities", "[]",
           "lossless priorities in order: a packet on one that turns down then up (a bounce) moves to the next, from "
           "the last to `lossy` (Hu et al., CoNEXT 2017); empty: off",
           {}, "priority")
        .add(&TaggerParams::lossy, "lossy", "0", "lossy priority for packets that bounced past the last of them",
             in_range<int64_t>(0, 7), "priority")
        .validate([](const TaggerParams& p) -> std::optional<std::pair<std::string, std::string>> {
          for (size_t i = 0; i < p.priorities.size(); ++i) {
            const int64_t c = p.priorities[i];
            if (c < 0 || c > 7) {
              return std::make_pair("priorities", "priority " + std::to_string(c) + " is not in 0..7");
            }
            if (std::count(p.priorities.begin(), p.priorities.end(), c) > 1) {
              return std::make_pair("priorities", "priority " + std::to_string(c) + " is listed twice");
            }
            if (c == p.lossy) {
              return std::make_pair("lossy", "priority " + std::to_string(c) + " is on the ladder: it must be lossy");
            }
          }
          return std::nullopt;
        });
    return sc;
  }();
  return s;
}

int TagTable::build(const TaggerParams& p, const std::array<uint8_t, 64>& dscp_to_prio) {
  active = !p.priorities.empty();
  for (int c = 0; c < 8; ++c) {
    next[c] = static_cast<uint8_t>(c);
    dscp[c] = 0;
  }
  for (size_t i = 0; i < p.priorities.size(); ++i) {
    next[p.priorities[i]] = static_cast<uint8_t>(i + 1 < p.priorities.size() ? p.priorities[i + 1] : p.lossy);
  }
  for (int c = 0; c < 8; ++c) {
    if (!active || next[c] == c) {
      continue;
    }
    const int to = next[c];
    const auto it = std::find(dscp_to_prio.begin(), dscp_to_prio.end(), to);
    if (it == dscp_to_prio.end()) {
      return to;
    }
    dscp[to] = static_cast<uint8_t>(it - dscp_to_prio.begin());
  }
  return -1;
}

}  // namespace rocesim
