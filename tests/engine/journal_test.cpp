#include "rocesim/engine/journal.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace rocesim {
namespace {

// Writes a record each time it runs, and a second in every other event, then runs again `gap` later.
class Writer final : public EventHandler {
 public:
  Writer(Engine& e, size_t part, Journal<std::string>& j, std::string name, Time gap, int times)
      : EventHandler(e.sim(part).new_source()),
        sim_(e.sim(part)),
        part_(part),
        j_(j),
        name_(std::move(name)),
        gap_(gap),
        left_(times) {
    sim_.hold();
    sim_.at(Time(), this, 0);
  }
  void handle_event(uint32_t, uint64_t) override {
    j_.add(part_, name_ + "@" + std::to_string(sim_.now().ps()));
    if (left_ % 2 == 0) {
      j_.add(part_, name_ + " again");
    }
    if (--left_ == 0) {
      sim_.release();
      return;
    }
    sim_.after(gap_, this, 0);
  }

 private:
  Simulator& sim_;
  size_t part_;
  Journal<std::string>& j_;
  std::string name_;
  Time gap_;
  int left_;
};

// The records of four writers on `parts` partitions (writer w in partition w mod parts), drained after the run.
std::vector<std::string> journal_of(size_t parts, int threads) {
  Partitioning cut;
  cut.parts = parts;
  cut.node_part = {0, 1, 2, 3};
  cut.lookahead = Time::ns(1);
  Engine engine(1, cut, threads);
  Journal<std::string> j(engine);
  std::vector<std::unique_ptr<Writer>> writers;
  // Equal gaps put the writers' events at the same times: their order there is the keys'.
  const Time gaps[] = {Time::ps(700), Time::ps(700), Time::ps(350), Time::ps(1400)};
  for (size_t w = 0; w < 4; ++w) {
    writers.push_back(
        std::make_unique<Writer>(engine, w % parts, j, "w" + std::to_string(w), gaps[w], 8 - static_cast<int>(w)));
  }
  std::vector<std::string> out;
  engine.run(Time::us(1), {}, 1 << 20);
  j.drain([&](std::string&& s) { out.push_back(std::move(s)); });
  return out;
}

}  // namespace

TEST(Journal, RecordsOfEveryPartitionComeOutInTheOrderOfOnePartitionsRun) {
  const std::vector<std::string> one = journal_of(1, 1);
  // Writer 0 ran 8 times, 1 seven, 2 six, 3 five: a record each, and a second in half of them.
  ASSERT_EQ(one.size(), 8u + 4 + 7 + 3 + 6 + 3 + 5 + 2);
  // At time 0 the writers run in the order they were made (their first events' keys), each with its second record
  // right after its first.
  EXPECT_EQ(std::vector<std::string>(one.begin(), one.begin() + 6),
            (std::vector<std::string>{"w0@0", "w0 again", "w1@0", "w2@0", "w2 again", "w3@0"}))
      << "w1 started with 7 runs left (odd), so no second record";
  EXPECT_EQ(journal_of(2, 2), one);
  EXPECT_EQ(journal_of(4, 2), one);
  EXPECT_EQ(journal_of(4, 4), one);
}

TEST(Journal, ADrainForgetsWhatItHandedOut) {
  Partitioning cut;
  cut.parts = 2;
  cut.node_part = {0, 1};
  cut.lookahead = Time::ns(1);
  Engine engine(1, cut, 1);
  Journal<int> j(engine);
  j.add(1, 2);
  j.add(0, 1);
  std::vector<int> got;
  j.drain([&](int v) { got.push_back(v); });
  j.drain([&](int v) { got.push_back(v); });
  EXPECT_EQ(got.size(), 2u);
}

}  // namespace rocesim
