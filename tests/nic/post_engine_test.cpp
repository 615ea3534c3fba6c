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
  int chain = 0;  // posts the transport answers by ringing the next one (an application posting on completion)

  Rig(Time fetch, Time gap) : EventHandler(0), engine(sim, *this, *this, fetch, gap) {}
  static WorkPost send(uint32_t qpn) { return WorkPost{WorkPost::kSend, qpn, WorkRequest{}, 0, 0, 0}; }
  void run() { sim.run(Time::ms(1)); }

 private:
  void handle_event(uint32_t kind, uint64_t arg) override {
    ASSERT_EQ(kind, kEvPost);
    engine.on_event(arg);
  }
  void posted(const WorkPost& post) override {
    got.push_back({sim.now(), post.qpn, post.kind});
    if (chain > 0) {
      --chain;
      engine.ring(send(post.qpn + 1), sim.now());
    }
  }
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
  // Ten batches of 100, rung every 200 ns: a batch takes 300 ns of turns, more than the time between batches, so
  // after the first fetch (100 ns) the engine never idles and request i leaves at 100 + 3 i ns, the last at
  // 100 + 999 x 3 = 3,097 ns.
  Rig r(Time::ns(100), Time::ns(3));
  for (int i = 0; i < 1000; ++i) {
    r.engine.ring(Rig::send(static_cast<uint32_t>(i)), Time::ns((i / 100) * 200));
  }
  r.run();
  ASSERT_EQ(r.got.size(), 1000u);
  EXPECT_EQ(r.got.back().at, Time::ns(3'097));
  for (size_t i = 0; i < r.got.size(); ++i) {
    EXPECT_EQ(r.got[i].at, Time::ns(100 + 3 * static_cast<int64_t>(i))) << i;
    EXPECT_EQ(r.got[i].qpn, i);
  }
}

TEST(PostEngine, ARequestRungWhileTheTransportTakesOneIsFetchedAndServedInItsTurn) {
  // Each request, when it reaches the transport, rings the next (as an application that posts on completion):
  // 0 leaves at 100 ns; 1, rung then, is fetched at 200 ns, when the engine is long idle; and so on.
  Rig r(Time::ns(100), Time::ns(30));
  r.chain = 3;
  r.engine.ring(Rig::send(0), Time());
  r.engine.ring(Rig::send(10), Time());  // a second doorbell with the first: its turn is at 130 ns
  r.run();
  ASSERT_EQ(r.got.size(), 5u);
  EXPECT_EQ(r.got[0].at, Time::ns(100));
  EXPECT_EQ(r.got[0].qpn, 0u);
  EXPECT_EQ(r.got[1].at, Time::ns(130));
  EXPECT_EQ(r.got[1].qpn, 10u);
  // 0 rang 1 at 100 ns (fetched at 200); 10 rang 11 at 130 ns (fetched at 230); 1 rang 2 at 200 ns (fetched 300).
  EXPECT_EQ(r.got[2].at, Time::ns(200));
  EXPECT_EQ(r.got[2].qpn, 1u);
  EXPECT_EQ(r.got[3].at, Time::ns(230));
  EXPECT_EQ(r.got[3].qpn, 11u);
  EXPECT_EQ(r.got[4].at, Time::ns(300));
  EXPECT_EQ(r.got[4].qpn, 2u);
}

}  // namespace
}  // namespace rocesim
