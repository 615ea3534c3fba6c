#include "rocesim/nic/post_engine.hpp"

#include <algorithm>

namespace rocesim {

void PostEngine::pend(const WorkPost& post, Time at, bool engine_taken) {
  sim_.at(at, &node_, kEvPost, pending_.put({post, engine_taken}));
}

void PostEngine::on_event(uint64_t slot) {
  Pending& p = pending_[slot];
  if (wqe_gap_ > Time() && !p.engine_taken) {
    p.engine_taken = true;
    const Time ready = std::max(sim_.now(), engine_free_);
    engine_free_ = ready + wqe_gap_;
    if (ready > sim_.now()) {
      sim_.at(ready, &node_, kEvPost, slot);
      return;
    }
  }
  host_.posted(pending_.take(slot).post);
}

}  // namespace rocesim
