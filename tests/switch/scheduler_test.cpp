// The ETS scheduler on its own: strict classes, then deficit round robin by weight (IEEE 802.1Qaz; Shreedhar and
// Varghese), against sequences worked out by hand.
#include "rocesim/switch/scheduler.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rocesim/core/error.hpp"
#include "rocesim/io/scenario.hpp"

namespace rocesim {
namespace {

EtsParams ets(std::vector<int64_t> strict, std::vector<int64_t> weights) {
  EtsParams p;
  p.type = "ets";
  p.strict = std::move(strict);
  p.weights = std::move(weights);
  return p;
}

// Classes `c` with a head packet of `bytes` each.
ClassView view(std::vector<std::pair<int, uint16_t>> heads, uint8_t blocked = 0) {
  ClassView v;
  for (auto [c, bytes] : heads) {
    v.head_bytes[c] = bytes;
    v.nonempty |= static_cast<uint8_t>(1u << c);
  }
  v.blocked = blocked;
  return v;
}

TEST(Ets, DwrrServesTwoBackloggedClassesInTheRatioOfTheirWeights) {
  // Quantum unit 1000 B: class 0 (weight 2) gets 2000 B a round, class 3 (weight 1) 1000 B. With 1000 B heads
  // that is two packets of class 0, then one of class 3, over and over.
  auto s = make_scheduler(ets({}, {2, 0, 0, 1, 0, 0, 0, 0}), 1000);
  SchedulerState st;
  const ClassView v = view({{0, 1000}, {3, 1000}});
  std::vector<int> got;
  for (int i = 0; i < 9; ++i) {
    got.push_back(s->pick(v, st));
  }
  EXPECT_EQ(got, (std::vector<int>{0, 0, 3, 0, 0, 3, 0, 0, 3}));
}

TEST(Ets, DeficitCarriesOverWithinARoundAndIsForgottenWhenTheClassEmpties) {
  // Weight 1 each, quantum 1000 B, heads of 600 B: class 0 sends one (400 B left, too little for another), then
  // class 1 one; next turn class 0 has 1400 B and sends two. If class 0 empties, its 400 B are dropped.
  auto s = make_scheduler(ets({}, {1, 1, 0, 0, 0, 0, 0, 0}), 1000);
  SchedulerState st;
  const ClassView both = view({{0, 600}, {1, 600}});
  std::vector<int> got;
  for (int i = 0; i < 6; ++i) {
    got.push_back(s->pick(both, st));
  }
  // 0 (400 left), 1 (400 left), 0 (1400 -> 800), 0 (200), 1 (1400 -> 800), 1 (200).
  EXPECT_EQ(got, (std::vector<int>{0, 1, 0, 0, 1, 1}));

  // Class 0 empties holding 400 B of credit: it starts its next turn from 1000 B, not 1400 B.
  SchedulerState fresh;
  EXPECT_EQ(s->pick(both, fresh), 0);              // class 0: 1000 - 600 = 400 left
  EXPECT_EQ(s->pick(view({{1, 600}}), fresh), 1);  // class 0 is empty: credit gone; class 1: 400 left
  EXPECT_EQ(s->pick(both, fresh), 0);              // class 1 cannot send 600 with 400; class 0: 1000 -> 400
  EXPECT_EQ(s->pick(both, fresh), 1);              // (with the old 400 kept, class 0 would have 800 and go again)
}

TEST(Ets, AStrictClassGoesFirstAndAPausedClassIsSkipped) {
  auto s = make_scheduler(ets({6}, {1, 1, 1, 1, 1, 1, 1, 1}), 1000);
  SchedulerState st;
  EXPECT_EQ(s->pick(view({{3, 1000}, {6, 100}}), st), 6);
  EXPECT_EQ(s->pick(view({{3, 1000}, {6, 100}}, 1u << 6), st), 3);  // 6 paused (PFC)
  EXPECT_EQ(s->pick(view({{3, 1000}}, 1u << 3), st), -1);           // the only class is paused
  EXPECT_EQ(s->pick(ClassView{}, st), -1);
}

TEST(Ets, WeightsAboveTheLimitAreRejected) {
  try {
    parse_scenario("topology: {type: star, hosts: 2}\nswitch: {ets: {weights: [10001, 1, 1, 1, 1, 1, 1, 1]}}\n",
                   "w.yaml", ".", {});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("weights"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0..10000"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rocesim
