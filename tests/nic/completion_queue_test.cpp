// The NIC's completion queue on its own (nic/completion_queue.hpp): completions reach the application after the
// event that made them, in order, and the run waits for them.
#include "rocesim/nic/completion_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace rocesim {
namespace {

constexpr uint32_t kEvWork = kNodeEventBase + 30;   // the rig's own: a message completes
constexpr uint32_t kEvTimer = kNodeEventBase + 31;  // the rig's own: a timer that holds nothing

// Stands in for a NIC and its server: a message holds the run until it completes; completing it queues a
// completion and releases its hold, as the NIC does.
class Rig final : public EventHandler, public CompletionSink {
 public:
  struct Heard {
    Time at;
    uint32_t owner;
    uint64_t wr_id;
    bool inside_work;  // heard while the event that made it was still running
  };
  Simulator sim{1};
  CompletionQueue cq{sim, *this};
  std::vector<Heard> heard;
  int per_event = 1;
  bool in_work = false;
  uint64_t next_wr = 0;
  int repost = 0;  // completions the application answers with another message
  int chain = 0;   // completions whose hearing makes another completion at once (as a RECV of a SEND's landing)

  Rig() : EventHandler(0) {}
  void message_at(Time t) {
    sim.hold();
    sim.at(t, this, kEvWork);
  }
  // An event that does not hold the run (a timer): the run may end before it.
  void timer_at(Time t) { sim.at(t, this, kEvTimer); }

 private:
  void handle_event(uint32_t kind, uint64_t) override {
    if (kind == kEvCqe) {
      cq.on_event();
      return;
    }
    if (kind == kEvTimer) {
      return;
    }
    in_work = true;
    for (int i = 0; i < per_event; ++i) {
      Completion c;
      c.wr_id = next_wr++;
      cq.push(static_cast<uint32_t>(i), c);
    }
    in_work = false;
    sim.release();
  }
  void on_completion(uint32_t owner, const Completion& c) override {
    heard.push_back({sim.now(), owner, c.wr_id, in_work});
    if (repost > 0) {
      --repost;
      message_at(sim.now() + Time::ns(10));
    }
    if (chain > 0) {
      --chain;
      Completion next;
      next.wr_id = next_wr++;
      cq.push(owner + 10, next);
    }
  }
};

TEST(CompletionQueue, TheApplicationHearsOfACompletionAfterTheEventThatMadeItAndTheRunWaitsForIt) {
  Rig r;
  r.cq.set_sink(&r);
  r.message_at(Time::ns(50));
  r.sim.run(Time::ms(1));
  // The message's hold was released inside its event: without the queue's own hold the run would end there.
  ASSERT_EQ(r.heard.size(), 1u);
  EXPECT_EQ(r.heard[0].at, Time::ns(50));
  EXPECT_FALSE(r.heard[0].inside_work);
  EXPECT_EQ(r.sim.held(), 0);
}

TEST(CompletionQueue, CompletionsOfOneEventArriveInTheOrderTheyWereMade) {
  Rig r;
  r.cq.set_sink(&r);
  r.per_event = 4;
  r.message_at(Time::ns(50));
  r.message_at(Time::ns(80));
  r.sim.run(Time::ms(1));
  ASSERT_EQ(r.heard.size(), 8u);
  for (size_t i = 0; i < r.heard.size(); ++i) {
    EXPECT_EQ(r.heard[i].wr_id, i);
    EXPECT_EQ(r.heard[i].owner, i % 4);
    EXPECT_EQ(r.heard[i].at, i < 4 ? Time::ns(50) : Time::ns(80));
  }
}

TEST(CompletionQueue, AnApplicationMayPostFromInsideACompletion) {
  Rig r;
  r.cq.set_sink(&r);
  r.repost = 3;
  r.message_at(Time::ns(50));
  r.sim.run(Time::ms(1));
  ASSERT_EQ(r.heard.size(), 4u);
  for (size_t i = 0; i < r.heard.size(); ++i) {
    EXPECT_EQ(r.heard[i].at, Time::ns(50 + 10 * static_cast<int64_t>(i)));
  }
}

TEST(CompletionQueue, WithoutASinkNothingIsQueuedAndNothingHoldsTheRun) {
  Rig r;
  r.message_at(Time::ns(50));
  r.timer_at(Time::ns(500));
  r.sim.run(Time::ms(1));
  EXPECT_TRUE(r.heard.empty());
  // The run ended with the message's release: no completion held it on to the timer.
  EXPECT_EQ(r.sim.now(), Time::ns(50));
  EXPECT_EQ(r.sim.held(), 0);
}

TEST(CompletionQueue, ACompletionMadeWhileOneIsHeardIsHeardAfterItAndHoldsTheRunUntilThen) {
  Rig r;
  r.cq.set_sink(&r);
  r.per_event = 2;
  r.chain = 2;
  r.message_at(Time::ns(50));
  r.timer_at(Time::ns(500));
  r.sim.run(Time::ms(1));
  // 0 and 1 from the message; 2 made while 0 was heard, 3 while 1 was: in the order made, all at 50 ns.
  ASSERT_EQ(r.heard.size(), 4u);
  const uint32_t owners[] = {0, 1, 10, 11};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.heard[i].wr_id, i);
    EXPECT_EQ(r.heard[i].owner, owners[i]);
    EXPECT_EQ(r.heard[i].at, Time::ns(50));
  }
  EXPECT_EQ(r.sim.held(), 0);
  EXPECT_EQ(r.sim.now(), Time::ns(50));  // every hold released: the run ended before the timer
}

}  // namespace
}  // namespace rocesim
