#include "rocesim/server/interconnect.hpp"

#include <cmath>
#include <limits>

namespace rocesim {

Interconnect::Interconnect(Simulator& sim, const ServerModel& model, TransferSink& sink)
    : EventHandler(sim.new_source()), sim_(sim), model_(model), sink_(sink), carried_(model.resources(), 0.0) {}

void Interconnect::start(const std::vector<uint16_t>& path, Bytes bytes, Time latency, uint32_t app, uint64_t cookie) {
  if (bytes.count() <= 0 || path.empty()) {
    deliver(app, cookie, latency);
    return;
  }
  advance();
  const uint32_t slot = transfers_.acquire();
  Transfer& t = transfers_[slot];  // a reused slot keeps its path's storage
  t.path = path;
  t.remaining = static_cast<double>(bytes.count());
  t.rate = 0;
  t.latency = latency;
  t.app = app;
  t.cookie = cookie;
  active_.push_back(slot);
  // Transfers that start at the same moment are shared out once, after every event of that moment.
  if (!realloc_pending_) {
    realloc_pending_ = true;
    sim_.at_end_of_now(this, kEvRealloc);
  }
}

void Interconnect::advance() {
  const Time now = sim_.now();
  if (now == last_) {
    return;
  }
  const double dt = (now - last_).sec_f();
  for (uint32_t i : active_) {
    Transfer& t = transfers_[i];
    const double moved = std::min(t.remaining, t.rate * dt);
    t.remaining -= moved;
    for (uint16_t r : t.path) {
      carried_[r] += moved;
    }
  }
  last_ = now;
}

void Interconnect::reallocate() {
  advance();
  // End what has moved its bytes (within a picosecond's worth).
  for (size_t k = 0; k < active_.size();) {
    Transfer& t = transfers_[active_[k]];
    if (t.remaining <= std::max(1e-6, t.rate * 1e-12)) {
      for (uint16_t r : t.path) {
        carried_[r] += t.remaining;
      }
      deliver(t.app, t.cookie, t.latency);
      transfers_.release(active_[k]);
      active_[k] = active_.back();
      active_.pop_back();
    } else {
      ++k;
    }
  }
  // Progressive filling: the resource with the least capacity per unfixed user fixes its users at that share.
  const size_t nr = model_.resources();
  left_.resize(nr);
  users_.assign(nr, 0);
  for (size_t r = 0; r < nr; ++r) {
    left_[r] = model_.capacity(r);
  }
  fixed_.assign(active_.size(), 0);
  for (uint32_t i : active_) {
    for (uint16_t r : transfers_[i].path) {
      ++users_[r];
    }
  }
  // Each resource's transfers (by position in active_), so fixing a bottleneck touches only its own users.
  first_user_.assign(nr + 1, 0);
  for (size_t r = 0; r < nr; ++r) {
    first_user_[r + 1] = first_user_[r] + static_cast<uint32_t>(users_[r]);
  }
  user_list_.resize(first_user_[nr]);
  std::vector<uint32_t>& fill = scratch_fill_;
  fill.assign(first_user_.begin(), first_user_.end() - 1);
  for (uint32_t k = 0; k < active_.size(); ++k) {
    for (uint16_t r : transfers_[active_[k]].path) {
      user_list_[fill[r]++] = k;
    }
  }
  std::vector<uint16_t>& used = scratch_used_;  // resources with unfixed users
  used.clear();
  for (size_t r = 0; r < nr; ++r) {
    if (users_[r] > 0) {
      used.push_back(static_cast<uint16_t>(r));
    }
  }
  while (!used.empty()) {
    double best = std::numeric_limits<double>::infinity();
    uint16_t br = 0;
    for (uint16_t r : used) {
      const double share = left_[r] / users_[r];
      if (share < best) {
        best = share;
        br = r;
      }
    }
    for (uint32_t u = first_user_[br]; u < first_user_[br + 1]; ++u) {
      const uint32_t k = user_list_[u];
      if (fixed_[k]) {
        continue;
      }
      Transfer& t = transfers_[active_[k]];
      fixed_[k] = 1;
      t.rate = best;
      for (uint16_t r : t.path) {
        left_[r] = std::max(0.0, left_[r] - best);
        --users_[r];
      }
    }
    std::erase_if(used, [&](uint16_t r) { return users_[r] == 0; });
  }
  // The next end.
  Time next = Time::max();
  for (uint32_t i : active_) {
    const Transfer& t = transfers_[i];
    const double ps = std::ceil(t.remaining / t.rate * 1e12);
    const Time end = sim_.now() + Time::ps(static_cast<int64_t>(std::max(1.0, ps)));
    if (end < next) {
      next = end;
      first_end_ = i;
    }
  }
  ++done_gen_;
  if (next != Time::max()) {
    sim_.at(next, this, kEvDone, done_gen_);
  }
}

void Interconnect::deliver(uint32_t app, uint64_t cookie, Time latency) {
  sim_.after(latency, this, kEvDeliver, deliveries_.put({app, cookie}));
}

// The application a delivery, or the next transfer to end, will call loads the state it will update.
void Interconnect::prefetch(uint32_t kind, uint64_t arg) const {
  if (kind == kEvDeliver) {
    const auto& [app, cookie] = deliveries_[arg];
    sink_.prefetch_transfer(app, cookie);
  } else if (kind == kEvDone && arg == done_gen_) {  // most transfers deliver at once (no latency)
    const Transfer& t = transfers_[first_end_];
    sink_.prefetch_transfer(t.app, t.cookie);
  }
}

void Interconnect::handle_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kEvRealloc:
      realloc_pending_ = false;
      reallocate();
      break;
    case kEvDone:
      if (arg == done_gen_ && !realloc_pending_) {
        reallocate();
      }
      break;
    case kEvDeliver: {
      const auto [app, cookie] = deliveries_.take(arg);
      sink_.transfer_done(app, cookie);
      break;
    }
    default:
      break;
  }
}

}  // namespace rocesim
