// Packet conservation (Network::conservation) and the summary's drop count across transports and drop places:
// every packet a NIC sends is delivered, dropped (by a switch, on a link that is down, or by a NIC's receive
// buffer), or still in the network.
#include <gtest/gtest.h>

#include "../test_util.hpp"
#include "rocesim/analysis/results.hpp"
#include "rocesim/run/summary.hpp"

namespace rocesim {
namespace {

const char* kStar =
    "seed: 1\nstop: 5ms\ntopology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}\n"
    "switch: {pfc: {priorities: [3]}}\nnic: {cc: none}\n";

FlowSpec flow(uint32_t src, uint32_t dst, int64_t size, Transport t, int prio = 0) {
  FlowSpec f = test::write_flow(src, dst, Bytes(size), Time(), prio);
  f.transport = t;
  return f;
}

int64_t nic_sum(const Network& net, int64_t NicCounters::*field) {
  int64_t n = 0;
  for (const auto& nic : net.nics()) {
    n += nic->counters().*field;
  }
  return n;
}

TEST(Conservation, KernelTcpAndIwarpSegmentsCountAsSentAndDelivered) {
  // 100 full segments (144,800 B of 1448-byte kernel TCP, 142,800 B of 1428-byte iWARP FPDUs: 20 bytes of each
  // 1448 are MPA, DDP and RDMAP) and an ACK for every second one (tcp.ack_every 2; the last is acknowledged at
  // once, and it is the 100th): 150 segments sent, 150 taken in, none left over.
  for (const auto& [t, size] : {std::pair{Transport::kTcp, 144'800}, std::pair{Transport::kIwarp, 142'800}}) {
    auto s = test::make_sim(kStar);
    s->net().add_flow(flow(0, 1, size, t));
    s->run();
    ASSERT_TRUE(s->net().flows()[0].done);
    const auto c = s->net().conservation();
    EXPECT_EQ(c.sent, 150) << to_string(t);
    EXPECT_EQ(c.delivered, 150) << to_string(t);
    EXPECT_EQ(c.dropped, 0) << to_string(t);
    EXPECT_EQ(c.in_network, 0) << to_string(t);
    EXPECT_TRUE(c.holds()) << to_string(t);
  }
}

TEST(Conservation, KernelTcpThroughAFailedLinkIsConservedWithItsDrops) {
  // host1's link fails 50 us into a 10 MB transfer and comes back at 1 ms; the segments on it are lost and the
  // switch drops what it has no route for. The run stops before TCP's 200 ms retransmission timeout.
  auto s = test::make_sim(std::string(kStar) +
                          "events:\n  - {at: 50us, type: link_down, link: host1}\n"
                          "  - {at: 1ms, type: link_up, link: host1}\n");
  s->net().add_flow(flow(0, 1, 10'000'000, Transport::kTcp));
  s->run();
  const auto c = s->net().conservation();
  const int64_t lost = nic_sum(s->net(), &NicCounters::lost_link_down);
  EXPECT_GT(test::all_drops(s->net()) + lost, 0);
  EXPECT_EQ(c.dropped, test::all_drops(s->net()) + lost);
  int64_t segments = 0;  // every frame sent is a TCP segment (data or ACK)
  for (const auto& nic : s->net().nics()) {
    segments += nic->tcp() ? nic->tcp()->segments_sent() : 0;
  }
  EXPECT_EQ(c.sent, segments);
  EXPECT_GT(c.sent, c.dropped);
  EXPECT_TRUE(c.holds()) << c.sent << " sent, " << c.delivered << " delivered, " << c.dropped << " dropped, "
                         << c.in_network << " in the network";
  EXPECT_TRUE(summary_json(*s, RunInfo{})["packets"]["conserved"].get<bool>());
}

TEST(Conservation, FramesASlowReceiversBufferDropsAreInTheSummarysDropCount) {
  // A slow receiver on priority 0, which is not lossless: its receive buffer does not pause the switch for it,
  // overflows and drops. Those drops are the summary's, beside the switch's, and conservation holds.
  auto s = test::make_sim(std::string(kStar) +
                          "events:\n  - {at: 0us, type: slow_receiver, nic: host1, rate: 25Gbps, priority: 0}\n");
  s->net().add_flow(flow(0, 1, 4'000'000, Transport::kRdma, 0));
  s->run();
  const int64_t rx_dropped = s->net().nic(1).counters().rx_dropped;
  EXPECT_GT(rx_dropped, 0);
  EXPECT_EQ(s->net().nic(1).counters().rx_dropped_lossless, 0);
  const nlohmann::json sum = summary_json(*s, RunInfo{});
  EXPECT_EQ(sum["drops"]["total"].get<int64_t>(), test::all_drops(s->net()) + rx_dropped);
  EXPECT_EQ(sum["drops"]["by_reason"]["nic_rx_buffer"].get<int64_t>(), rx_dropped);
  EXPECT_EQ(sum["drops"]["lossless"].get<int64_t>(), 0);
  EXPECT_EQ(sum["packets"]["dropped"].get<int64_t>(),
            test::all_drops(s->net()) + rx_dropped + nic_sum(s->net(), &NicCounters::lost_link_down));
  EXPECT_TRUE(sum["packets"]["conserved"].get<bool>());
  // The terminal's line says so too.
  EXPECT_NE(
      summary_table(sum).find("drops            " + std::to_string(test::all_drops(s->net()) + rx_dropped) + " total"),
      std::string::npos)
      << summary_table(sum);
}

}  // namespace
}  // namespace rocesim
