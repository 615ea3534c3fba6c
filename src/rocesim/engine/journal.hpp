// Records that nodes write as the run goes (captured frames, trace events, PFC lines), kept per partition and put
// back in the order a run of one partition writes them.
//
// A run of one partition runs its events in (time, key) order (Simulator), and an event's time and key are the
// same however the network is cut; each partition runs its own events in that order too. So records tagged with
// the time and key of the event that wrote them, merged across partitions by (time, key), come out as one
// partition writes them: records of one event stay in the order it wrote them, and no two partitions run the same
// event.
#pragma once

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "rocesim/engine/engine.hpp"

namespace rocesim {

// Contract: add() is called from an event of partition `part` (so from that partition's thread only); drain() runs
// between windows or after the run, when no partition runs.
template <class T>
class Journal {
 public:
  explicit Journal(Engine& engine) {
    for (size_t p = 0; p < engine.partitions(); ++p) {
      parts_.push_back({&engine.sim(p), {}, 0});
    }
  }

  void add(size_t part, T v) {
    Part& p = parts_[part];
    p.items.push_back(Item{Order{p.sim->now(), p.sim->event_key()}, std::move(v)});
  }

  // Hands every record kept so far to `f`, in the order of a run of one partition, and forgets them.
  template <class F>
  void drain(F&& f) {
    using Head = std::pair<Order, size_t>;  // the next record of partition .second
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    for (size_t p = 0; p < parts_.size(); ++p) {
      if (!parts_[p].items.empty()) {
        heads.push({parts_[p].items.front().order, p});
      }
    }
    while (!heads.empty()) {
      const size_t p = heads.top().second;
      heads.pop();
      Part& part = parts_[p];
      // This partition's records up to the next partition's first come out in one run.
      const bool alone = heads.empty();
      const Order limit = alone ? Order{} : heads.top().first;
      do {
        f(std::move(part.items[part.next].value));
        ++part.next;
      } while (part.next < part.items.size() && (alone || part.items[part.next].order < limit));
      if (part.next < part.items.size()) {
        heads.push({part.items[part.next].order, p});
      } else {
        part.items.clear();
        part.next = 0;
      }
    }
  }

 private:
  struct Order {
    Time t;
    uint64_t key;
    auto operator<=>(const Order&) const = default;
  };
  struct Item {
    Order order;
    T value;
  };
  struct Part {
    const Simulator* sim;
    std::vector<Item> items;
    size_t next;
  };
  std::vector<Part> parts_;
};

}  // namespace rocesim
