#include "rocesim/nic/completion_queue.hpp"

namespace rocesim {

void CompletionQueue::push(uint32_t owner, const Completion& c) {
  if (!sink_) {
    return;
  }
  sim_.hold();
  queued_.push_back({owner, c});
  sim_.at(sim_.now(), &node_, kEvCqe);
}

void CompletionQueue::on_event() {
  const auto [owner, c] = queued_[head_++];
  if (head_ == queued_.size()) {
    queued_.clear();
    head_ = 0;
  }
  sink_->on_completion(owner, c);
  sim_.release();
}

}  // namespace rocesim
