#include "rocesim/nic/post_engine.hpp"

#include <algorithm>

namespace rocesim {

void PostEngine::pend(const WorkPost& post, Time at, bool engine_taken) {
  size_t slot = pending_.size();
  if (free_.empty()) {
    pending_.push_back({post, engine_taken});
  } else {
    slot = free_.back();
    free_.pop_back();
    pending_[slot] = {post, engine_taken};
  }
  sim_.at(at, &node_, kEvPost, slot);
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
  const WorkPost post = p.post;
  free_.push_back(static_cast<uint32_t>(slot));
  host_.posted(post);
}

}  // namespace rocesim
