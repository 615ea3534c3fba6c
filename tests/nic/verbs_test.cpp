// RDMA READ and SEND: completion times against hand-computed values, loss recovery, receiver-not-ready.
#include <gtest/gtest.h>

#include <sstream>

#include "../test_util.hpp"
#include "rocesim/workload/workload.hpp"

namespace rocesim {
namespace {
const char* kPair = R"(seed: 1
stop: 20ms
topology: {type: leaf-spine, leaves: 2, spines: 2, servers_per_leaf: 2}
nic: {cc: none, mtu: 1024}
)";

FlowSpec flow(uint32_t src, uint32_t dst, int64_t size, RdmaOp op) {
  FlowSpec f;
  f.src = src;
  f.dst = dst;
  f.size = Bytes(size);
  f.priority = 3;
  f.op = op;
  return f;
}
}  // namespace

TEST(Verbs, ReadCompletesInOneRoundTripPlusTransferTime) {
  auto s = test::make_sim(kPair);
  Network& net = s->net();
  // Host 0 reads 1 MB from host 3: the 98-byte request (BTH + RETH, + 20 B preamble/gap) crosses 4 links
  // (100/400/400/100 Gb/s, 1 us each), the first 1110-byte response (1024 + 62 + AETH 4 + 20) comes back across
  // them, and the other 976 responses (975 x 1106 B, the last 576 + 62 + 4 + 20 = 662 B) follow at 100 Gb/s:
  // 8 us + 2 x 1208 x 8/100 ns + 2 x 1208 x 8/400 ns + 1,079,012 x 8/100 ns = 94,562.56 ns.
  const uint32_t id = net.add_flow(flow(0, 3, 1'000'000, RdmaOp::kRead));
  s->run();
  const FlowRecord& f = net.flows()[id];
  ASSERT_TRUE(f.done);
  EXPECT_NEAR(f.ideal_fct.ps() / 1000.0, 94'562.56, 0.01);
  EXPECT_NEAR(static_cast<double>((f.end - f.spec.start).ps()), static_cast<double>(f.ideal_fct.ps()),
              0.005 * f.ideal_fct.ps());
  EXPECT_EQ(f.delivered, 1'000'000);
  // The data went from host 3 to host 0: responses are data packets sent by 3 and taken by 0.
  EXPECT_EQ(net.nic(3).counters().data_sent, 977);
  EXPECT_EQ(net.nic(0).counters().data_rcvd, 977);
  EXPECT_EQ(net.nic(0).counters().data_sent, 0);
  // Response frames: 977 x 62 header bytes (+ pad 0) + 1 MB of payload + AETH (4 B) on the first and the last.
  EXPECT_EQ(net.nic(3).counters().tx_bytes, 977 * 62 + 1'000'000 + 2 * 4);
}

TEST(Verbs, ALostReadResponseIsRequestedAgain) {
  auto s = test::make_sim(kPair);
  Network& net = s->net();
  const uint32_t id = net.add_flow(flow(0, 3, 1'000'000, RdmaOp::kRead));
  net.nic(3).inject_drop(net.flow_path(id).send_qpn, 200);
  s->run();
  const FlowRecord& f = net.flows()[id];
  ASSERT_TRUE(f.done);
  EXPECT_EQ(f.naks, 1);  // one gap, one new request from PSN 200
  EXPECT_GT(f.retransmits, 0);
  EXPECT_EQ(f.delivered, 1'000'000);
  EXPECT_TRUE(net.conservation().holds());
}

TEST(Verbs, ALostLastReadResponseIsRecoveredByTheRequestersTimeout) {
  auto s = test::make_sim(kPair, {"nic.retransmit_timeout=200us"});
  Network& net = s->net();
  const uint32_t id = net.add_flow(flow(0, 3, 100'000, RdmaOp::kRead));
  net.nic(3).inject_drop(net.flow_path(id).send_qpn, 97);  // the last of 98 responses
  s->run();
  const FlowRecord& f = net.flows()[id];
  ASSERT_TRUE(f.done);
  EXPECT_EQ(f.timeouts, 1);
  EXPECT_GE(f.end - f.spec.start, Time::us(200));
  EXPECT_EQ(f.delivered, 100'000);
}

TEST(Verbs, SendToAPostedReceiveTakesItsIdealTime) {
  auto s = test::make_sim(kPair);
  Network& net = s->net();
  const uint32_t id = net.add_flow(flow(0, 3, 1'000'000, RdmaOp::kSend));
  s->run();
  const FlowRecord& f = net.flows()[id];
  ASSERT_TRUE(f.done);
  EXPECT_EQ(f.rnr_naks, 0);
  // SEND frames carry no extended header: 977 x 62 + 1 MB.
  EXPECT_EQ(net.nic(0).counters().tx_bytes, 977 * 62 + 1'000'000);
  // SEND carries no RETH, so its first packet is 16 bytes shorter and its ideal time below WRITE's.
  EXPECT_LT(f.ideal_fct, net.ideal_fct(0, 3, Bytes(1'000'000), f.sport, RdmaOp::kWrite));
  EXPECT_NEAR(static_cast<double>((f.end - f.spec.start).ps()), static_cast<double>(f.ideal_fct.ps()),
              0.005 * f.ideal_fct.ps());
}

TEST(Verbs, SendWithoutAPostedReceiveGetsReceiverNotReadyAndRetries) {
  // The receive is posted at 100 us; the RNR timer is 30 us. Attempts at 0, then one RNR timer plus a round
  // trip (~8.3 us) after each NAK, are refused until the receive exists; the first after 100 us succeeds.
  auto s = test::make_sim(kPair, {"nic.rnr_timer=30us"});
  Network& net = s->net();
  FlowSpec spec = flow(0, 3, 64'000, RdmaOp::kSend);
  spec.recv_posted = Time::us(100);
  const uint32_t id = net.add_flow(spec);
  s->run();
  const FlowRecord& f = net.flows()[id];
  ASSERT_TRUE(f.done);
  EXPECT_EQ(f.rnr_naks, 3);  // attempts near 0, 38 and 76 us are refused; the one near 114 us is taken
  EXPECT_GT(f.end, Time::us(114));
  EXPECT_LT(f.end, Time::us(114) + f.ideal_fct + Time::us(10));
  EXPECT_EQ(f.delivered, 64'000);
  EXPECT_EQ(f.naks, 0);  // receiver-not-ready is not a sequence error
  EXPECT_TRUE(net.conservation().holds());
}

TEST(Verbs, FlowFileTakesReadAndSend) {
  std::istringstream in("src,dst,size,start,priority,operation\n0,1,1MB,0us,3,read\n1,0,4KB,5us,3,send\n");
  const auto flows = read_flow_csv(in, "f.csv", 2);
  ASSERT_EQ(flows.size(), 2u);
  EXPECT_EQ(flows[0].op, RdmaOp::kRead);
  EXPECT_EQ(flows[1].op, RdmaOp::kSend);
  std::istringstream bad("src,dst,size,start,priority,operation\n0,1,1MB,0us,3,atomic\n");
  try {
    read_flow_csv(bad, "f.csv", 2);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.key(), "operation");
  }
}

}  // namespace rocesim
