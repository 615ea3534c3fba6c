// The NIC's post engine on its own (nic/post_engine.hpp): the WQE fetch after a doorbell and the send engine's
// message rate, against hand-computed times.
#include "rocesim/nic/post_engine.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace rocesim {
namespace {

// Stands in for the NIC: hands the engine its events and notes when each post reached it.
class Rig final : public EventHandler, public PostEngineHost {
 public:
  struct Arrival {
    Time at;
    uint32_t qpn;
    WorkPost::Kind kind;
  };
  Simulator sim{1};
  PostEngine engine;
  std::vector<Arrival> got;

  Rig(Time fetch, Time gap) : EventHandler(0), engine(sim, *this, *this, fetch, gap) {}
  static WorkPost send(uint32_t qpn) { return WorkPost{WorkPost::kSend, qpn, WorkRequest{}, 0, 0, 0}; }
  void run() { sim.run(Time::ms(1)); }

 private:
  void handle_event(uint32_t kind, uint64_t arg) override {
    ASSERT_EQ(kind, kEvPost);
    engine.on_event(arg);
  }
  void posted(const WorkPost& post) override { got.push_back({sim.now(), post.qpn, post.kind}); }
};

TEST(PostEngine, DoorbellsRungTogetherLeaveTheSendEngineOnePerWqeGapAfterTheFetch) {
  Rig r(Time::ns(100), Time::ns(10));
  for (uint32_t q = 0; q < 5; ++q) {
    r.engine.ring(Rig::send(q), Time());
  }
  r.run();
  ASSERT_EQ(r.got.size(), 5u);
  for (uint32_t q = 0; q < 5; ++q) {
    EXPECT_EQ(r.got[q].at, Time::ns(100 + 10 * q)) << q;
    EXPECT_EQ(r.got[q].qpn, q);
  }
}

TEST(PostEngine, WithoutAWqeGapEveryRequestReachesTheTransportWhenFetched) {
  Rig r(Time::ns(250), Time());
  r.engine.ring(Rig::send(0), Time::ns(5));
  r.engine.ring(Rig::send(1), Time::ns(5));
  r.engine.ring(Rig::send(2), Time::ns(40));
  r.run();
  ASSERT_EQ(r.got.size(), 3u);
  EXPECT_EQ(r.got[0].at, Time::ns(255));
  EXPECT_EQ(r.got[1].at, Time::ns(255));
  EXPECT_EQ(r.got[2].at, Time::ns(290));
}

TEST(PostEngine, AnIdleSendEngineTakesARequestAtOnceAndABusyOneWhenItsTurnComes) {
  // 215 M messages/s (ConnectX-6): a turn every 4.65 ns, rounded here to 5 ns. Two rung at 0 hold the engine
  // until 1,010 ns; one fetched at 1,007 ns waits for it; one fetched at 1,100 ns goes at once.
  Rig r(Time::us(1), Time::ns(5));
  r.engine.ring(Rig::send(0), Time());
  r.engine.ring(Rig::send(1), Time());
  r.engine.ring(Rig::send(2), Time::ns(7));
  r.engine.ring(Rig::send(3), Time::ns(100));
  r.run();
  ASSERT_EQ(r.got.size(), 4u);
  EXPECT_EQ(r.got[0].at, Time::ns(1'000));
  EXPECT_EQ(r.got[1].at, Time::ns(1'005));
  EXPECT_EQ(r.got[2].at, Time::ns(1'010));
  EXPECT_EQ(r.got[3].at, Time::ns(1'100));
}

TEST(PostEngine, DirectPostsNeitherWaitForAFetchNorTakeTheSendEnginesTurns) {
  Rig r(Time::ns(100), Time::ns(50));
  r.engine.ring(Rig::send(0), Time());
  r.engine.direct(WorkPost{WorkPost::kRecv, 7, WorkRequest{}, 0, 0, 16}, Time::ns(120));
  r.engine.direct(Rig::send(8), Time::ns(130));
  r.engine.ring(Rig::send(1), Time::ns(60));  // fetched at 160 ns: the engine is free from 150 ns
  r.run();
  ASSERT_EQ(r.got.size(), 4u);
  EXPECT_EQ(r.got[0].at, Time::ns(100));
  EXPECT_EQ(r.got[1].at, Time::ns(120));
  EXPECT_EQ(r.got[1].kind, WorkPost::kRecv);
  EXPECT_EQ(r.got[2].at, Time::ns(130));
  EXPECT_EQ(r.got[2].qpn, 8u);
  EXPECT_EQ(r.got[3].at, Time::ns(160));
}

TEST(PostEngine, ABacklogOfRequestsLeavesAtTheMessageRate) {
  // 100 rung every 200 ns, which take 300 ns of turns: each reaches the transport at max(fetched, previous + gap),
  // here 100 ns + 999 x 3 ns for the last.
  Rig r(Time::ns(100), Time::ns(3));
  Time expected_last;
  for (int i = 0; i < 1000; ++i) {
    const Time rung = Time::ns((i / 100) * 200);
    r.engine.ring(Rig::send(static_cast<uint32_t>(i)), rung);
    expected_last = std::max(expected_last + Time::ns(3), rung + Time::ns(100));
    if (i == 0) {
      expected_last = rung + Time::ns(100);
    }
  }
  r.run();
  ASSERT_EQ(r.got.size(), 1000u);
  EXPECT_EQ(r.got.back().at, expected_last);
  for (size_t i = 1; i < r.got.size(); ++i) {
    EXPECT_GE(r.got[i].at - r.got[i - 1].at, Time::ns(3)) << i;
  }
}

}  // namespace
}  // namespace rocesim
