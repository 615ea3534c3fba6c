// Applications on servers: completions of each kind reach the application that owns the queue pair, several
// messages share a queue pair, timers, and records stay with the requester.
#include <gtest/gtest.h>

#include "../test_util.hpp"

namespace rocesim {
namespace {
const char* kPair = R"(seed: 1
stop: 20ms
topology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}
nic: {cc: none, mtu: 1024}
)";

// Remembers every completion it hears.
class Recorder final : public Application {
 public:
  std::vector<Completion> seen;
  std::vector<std::pair<Time, uint64_t>> timers;
  void on_completion(Host&, const Completion& c) override { seen.push_back(c); }
  void on_timer(Host& h, uint64_t cookie) override { timers.push_back({h.now(), cookie}); }
};

struct Pair {
  std::unique_ptr<Simulation> sim;
  Recorder* a = nullptr;
  Recorder* b = nullptr;
  uint32_t qa = 0, qb = 0;
};

Pair connect(const Network::ConnectOptions& o) {
  Pair s;
  s.sim = test::make_sim(kPair);
  Network& net = s.sim->net();
  auto ra = std::make_unique<Recorder>();
  auto rb = std::make_unique<Recorder>();
  s.a = ra.get();
  s.b = rb.get();
  const uint32_t app_a = net.server(0).add_app(std::move(ra));
  const uint32_t app_b = net.server(1).add_app(std::move(rb));
  std::tie(s.qa, s.qb) = net.connect(0, app_a, 1, app_b, o);
  return s;
}

WorkRequest wr(RdmaOp op, int64_t bytes, uint64_t id) {
  WorkRequest w;
  w.op = op;
  w.size = Bytes(bytes);
  w.wr_id = id;
  return w;
}
}  // namespace

TEST(Host, MessagesOnOneQueuePairCompleteInOrderWithTheirIds) {
  Pair s = connect({});
  Host& h = s.sim->net().server(0);
  for (uint64_t i = 0; i < 3; ++i) {
    h.post(s.qa, wr(RdmaOp::kWrite, 10'000, 100 + i), Time());
  }
  s.sim->run();
  ASSERT_EQ(s.a->seen.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(s.a->seen[i].wr_id, 100 + i);
    EXPECT_EQ(s.a->seen[i].kind, WcKind::kSend);
    EXPECT_EQ(s.a->seen[i].qp, s.qa);
  }
  EXPECT_LT(s.a->seen[0].at, s.a->seen[1].at);
  EXPECT_TRUE(s.b->seen.empty());  // a plain WRITE completes only at the requester
  // 10,000 B is 10 packets of 1024 B: the three messages use PSNs 0..29 back to back, 30,000 B arrive.
  const auto& flows = s.sim->net().flows();
  ASSERT_EQ(flows.size(), 3u);
  for (const auto& f : flows) {
    EXPECT_TRUE(f.done);
    EXPECT_EQ(f.delivered, 10'000);
  }
  EXPECT_EQ(s.sim->net().nic(0).counters().data_sent, 30);
  EXPECT_TRUE(s.sim->net().nic(1).records().empty());  // the responder keeps no record of them
}

TEST(Host, WriteWithImmediateAndSendCompleteAtTheResponderToo) {
  Network::ConnectOptions o;
  Pair s = connect(o);
  Host& a = s.sim->net().server(0);
  Host& b = s.sim->net().server(1);
  b.post_recv(s.qb, 1, Time());
  a.post(s.qa, wr(RdmaOp::kWriteImm, 3000, 1), Time());
  a.post(s.qa, wr(RdmaOp::kSend, 500, 2), Time());
  s.sim->run();
  ASSERT_EQ(s.b->seen.size(), 2u);
  EXPECT_EQ(s.b->seen[0].kind, WcKind::kRecv);
  EXPECT_EQ(s.b->seen[0].op, RdmaOp::kWriteImm);
  EXPECT_EQ(s.b->seen[0].bytes, 3000);
  EXPECT_EQ(s.b->seen[1].op, RdmaOp::kSend);
  EXPECT_EQ(s.b->seen[1].bytes, 500);
  EXPECT_EQ(s.a->seen.size(), 2u);
  // The responder's completion comes before the requester's: the requester waits for the ACK's way back.
  EXPECT_LT(s.b->seen[1].at, s.a->seen[1].at);
}

TEST(Host, SeveralReadsOnOneQueuePairEachComplete) {
  Network::ConnectOptions o;
  o.a_sends = false;
  o.a_reads = true;
  Pair s = connect(o);
  Host& a = s.sim->net().server(0);
  a.post(s.qa, wr(RdmaOp::kRead, 5000, 7), Time());
  a.post(s.qa, wr(RdmaOp::kRead, 1, 8), Time());
  a.post(s.qa, wr(RdmaOp::kRead, 20'000, 9), Time::us(3));
  s.sim->run();
  ASSERT_EQ(s.a->seen.size(), 3u);
  EXPECT_EQ(s.a->seen[0].wr_id, 7u);
  EXPECT_EQ(s.a->seen[1].wr_id, 8u);
  EXPECT_EQ(s.a->seen[2].wr_id, 9u);
  int64_t delivered = 0;
  for (const auto& f : s.sim->net().flows()) {
    delivered += f.delivered;
  }
  EXPECT_EQ(delivered, 25'001);
  // The responder sent 5 + 1 + 20 response packets.
  EXPECT_EQ(s.sim->net().nic(1).counters().data_sent, 26);
}

TEST(Host, TimersFireAfterTheirDelayInOrder) {
  Pair s = connect({});
  Host& a = s.sim->net().server(0);
  a.hold();
  a.after(Time::us(5), 0, 42);
  a.after(Time::us(2), 0, 41);
  a.post(s.qa, wr(RdmaOp::kWrite, 100, 1), Time::us(10));
  a.release();
  s.sim->run();
  ASSERT_EQ(s.a->timers.size(), 2u);
  EXPECT_EQ(s.a->timers[0], std::make_pair(Time::us(2), uint64_t{41}));
  EXPECT_EQ(s.a->timers[1], std::make_pair(Time::us(5), uint64_t{42}));
  ASSERT_EQ(s.a->seen.size(), 1u);
  EXPECT_GT(s.a->seen[0].at, Time::us(10));
}

TEST(Host, PostingADirectionTheQueuePairLacksIsAProgramError) {
  Pair s = connect({});
  EXPECT_THROW(s.sim->net().server(0).post(s.qa, wr(RdmaOp::kRead, 100, 1), Time()), std::logic_error);
  EXPECT_THROW(s.sim->net().server(1).post(s.qb, wr(RdmaOp::kWrite, 100, 1), Time()), std::logic_error);
}

}  // namespace rocesim
