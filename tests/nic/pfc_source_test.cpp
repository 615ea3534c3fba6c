// The NIC's PFC source on its own (nic/pfc_source.hpp): a pause storm and the receive buffer of a slow receiver
// or of PCIe writes, driven through the calls the NIC makes, against hand-computed times.
#include "rocesim/nic/pfc_source.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

namespace rocesim {
namespace {

constexpr uint32_t kEvArrivals = kNodeEventBase + 30;  // the rig's own: a burst of frames arrives

// Stands in for the NIC: hands the source its events, builds each owed frame at once (a port always free), and
// notes what it was told.
class Rig final : public EventHandler, public PfcSourceHost {
 public:
  struct Owed {
    Time at;
    uint8_t prios;
    std::array<uint16_t, 8> quanta;
  };
  Simulator sim{1};
  PacketPool pool;
  PfcSource src{sim, pool, *this, *this};
  std::vector<Owed> owed;
  std::vector<Time> drained_at;
  int leaving_count = 0;
  int arrivals = 0, arrival_prio = 3, arrival_frame = 1'000, arrival_payload = 900;

  Rig() : EventHandler(0) {}
  // `n` frames arrive at `at`, all in one event.
  void arrive(Time at, int n) {
    arrivals = n;
    sim.at(at, this, kEvArrivals);
  }
  void run(Time stop) { sim.run(stop); }

 private:
  void handle_event(uint32_t kind, uint64_t arg) override {
    if (kind != kEvArrivals) {
      src.on_event(kind, arg);
      return;
    }
    for (int i = 0; i < arrivals; ++i) {
      Packet* p = pool.acquire(PacketKind::kData);
      p->priority = static_cast<uint8_t>(arrival_prio);
      p->frame = static_cast<uint16_t>(arrival_frame);
      p->payload = static_cast<uint16_t>(arrival_payload);
      ASSERT_TRUE(src.buffering());
      src.take(p);
    }
  }
  void owe_pfc(uint8_t prios) override {
    Packet* f = src.frame(prios);
    EXPECT_EQ(f->kind, PacketKind::kPfc);
    Owed o{sim.now(), prios, {}};
    std::copy(std::begin(pool.ext(f).pfc_quanta), std::end(pool.ext(f).pfc_quanta), o.quanta.begin());
    owed.push_back(o);
    pool.release(f);
  }
  void leaving(const Packet&) override { ++leaving_count; }
  void drained(Packet* p) override {
    drained_at.push_back(sim.now());
    pool.release(p);
  }
};

// 100,000 B with 30,000 B of headroom and a 9,216 B XON gap: XOFF above 70,000 B, XON at or below 60,784 B.
const RxBufferLimits kLimits{Bytes(100'000), Bytes(30'000), Bytes(9'216)};
const Rate kLink = Rate::gbps(100);
// 65535 quanta of 512 bit times at 100 Gb/s: 335.5392 us; refreshed every half of it.
const Time kRefresh = Time::ps(167'769'600);

TEST(PfcSource, StormOwesAnXoffOnItsPriorityEveryHalfPauseLifetimeUntilItEnds) {
  Rig r;
  r.src.schedule_storm(Time::us(10), Time::ms(1), 5, kLink);
  r.run(Time::ms(3));
  // XOFFs at 10 us + k x 167.7696 us, k = 0..5 (k = 6 would be after 1 ms).
  ASSERT_EQ(r.owed.size(), 6u);
  for (size_t k = 0; k < r.owed.size(); ++k) {
    EXPECT_EQ(r.owed[k].at, Time::us(10) + kRefresh * static_cast<int64_t>(k)) << k;
    EXPECT_EQ(r.owed[k].prios, 1u << 5);
    EXPECT_EQ(r.owed[k].quanta[5], PfcSource::kQuanta);
  }
  EXPECT_EQ(r.src.counters().pause_sent, 6);
  EXPECT_EQ(r.src.counters().resume_sent, 0);
  EXPECT_FALSE(r.src.buffering());  // a storm holds no frames
}

TEST(PfcSource, SlowReceiverPausesAboveTheXoffPointAndResumesAtTheXonPointAsFramesDrain) {
  Rig r;
  // Frames of 1,000 B reach memory at 10 Gb/s: one every 800 ns.
  r.src.schedule_slow_receiver(Time(), Time::max(), Rate::gbps(10), 1u << 3, kLimits, kLink);
  r.arrive(Time::ns(1), 71);  // 71,000 B: above the XOFF point
  r.run(Time::ms(1));
  ASSERT_EQ(r.owed.size(), 2u);
  EXPECT_EQ(r.owed[0].at, Time::ns(1));
  EXPECT_EQ(r.owed[0].prios, 1u << 3);
  EXPECT_EQ(r.owed[0].quanta[3], PfcSource::kQuanta);
  // After 11 frames left (60,000 B): 1 ns + 11 x 800 ns.
  EXPECT_EQ(r.owed[1].at, Time::ns(1 + 11 * 800));
  EXPECT_EQ(r.owed[1].quanta[3], 0);
  ASSERT_EQ(r.drained_at.size(), 71u);
  EXPECT_EQ(r.drained_at.back(), Time::ns(1 + 71 * 800));
  EXPECT_EQ(r.leaving_count, 71);
  EXPECT_EQ(r.src.counters().pause_sent, 1);
  EXPECT_EQ(r.src.counters().resume_sent, 1);
  EXPECT_EQ(r.src.counters().rx_buffer_max, 71'000);
  EXPECT_EQ(r.src.counters().rx_dropped, 0);
}

TEST(PfcSource, XoffIsRefreshedEveryHalfPauseLifetimeWhileTheBufferStaysAboveTheXonPointAndNotAfter) {
  Rig r;
  // One frame every 800 us: the buffer stays above the XON point for 11 x 800 us = 8.8 ms.
  r.src.schedule_slow_receiver(Time(), Time::max(), Rate::mbps(10), 1u << 3, kLimits, kLink);
  r.arrive(Time(), 71);
  r.run(Time::ms(20));
  // The XOFF at 0, refreshes at k x 167.7696 us for k = 1..52 (52 x 167.7696 us = 8.724 ms), the XON at 8.8 ms,
  // and nothing after: the refresh scheduled by the last XOFF lapses.
  ASSERT_EQ(r.owed.size(), 54u);
  for (size_t k = 0; k < 53; ++k) {
    EXPECT_EQ(r.owed[k].at, kRefresh * static_cast<int64_t>(k)) << k;
    EXPECT_EQ(r.owed[k].quanta[3], PfcSource::kQuanta) << k;
  }
  EXPECT_EQ(r.owed[53].at, Time::us(8'800));
  EXPECT_EQ(r.owed[53].quanta[3], 0);
}

TEST(PfcSource, LossyFramesAboveTheXoffPointAreDroppedAndCountedApartFromLosslessOnes) {
  Rig r;
  r.arrival_prio = 0;  // not among the lossless priorities
  r.src.schedule_slow_receiver(Time(), Time::max(), Rate::mbps(10), 1u << 3, kLimits, kLink);
  r.arrive(Time::ns(1), 80);
  r.run(Time::us(1));
  // A lossy frame stops at the XOFF point: 70 fit, 10 are dropped, and it pauses nothing.
  EXPECT_EQ(r.src.counters().rx_dropped, 10);
  EXPECT_EQ(r.src.counters().rx_dropped_lossless, 0);
  EXPECT_EQ(r.src.counters().rx_buffer_max, 70'000);
  EXPECT_TRUE(r.owed.empty());
}

TEST(PfcSource, PcieWritesDrainAtTheSlowerOfTheReceiverAndThePayloadsWriteTime) {
  Rig r;
  // 900 B of payload at 36 Gb/s: 200 ns a frame; no slow receiver.
  r.src.set_dma_write(Rate::gbps(36), 1u << 3, kLimits, kLink);
  EXPECT_TRUE(r.src.buffering());
  r.arrive(Time::ns(1), 3);
  r.run(Time::us(1));
  EXPECT_EQ(r.drained_at, (std::vector<Time>{Time::ns(201), Time::ns(401), Time::ns(601)}));
  // A slow receiver of 1,000-byte frames at 4 Gb/s (2 us each) is slower than PCIe, and sets the pace.
  r.src.schedule_slow_receiver(Time::us(2), Time::max(), Rate::gbps(4), 1u << 3, kLimits, kLink);
  r.arrive(Time::us(3), 2);
  r.run(Time::us(20));
  ASSERT_EQ(r.drained_at.size(), 5u);
  EXPECT_EQ(r.drained_at[3], Time::us(5));
  EXPECT_EQ(r.drained_at[4], Time::us(7));
  EXPECT_TRUE(r.src.buffering());  // PCIe still paces what comes
}

TEST(PfcSource, SlowReceiverEndsOnceItsTimeIsUpAndItsBufferIsEmpty) {
  Rig r;
  r.src.schedule_slow_receiver(Time::us(1), Time::us(2), Rate::gbps(10), 1u << 3, kLimits, kLink);
  EXPECT_FALSE(r.src.buffering());
  r.arrive(Time::ns(1'999), 5);  // four frames still wait when the slow receiver ends
  r.run(Time::ns(2'001));
  EXPECT_TRUE(r.src.buffering());  // frames still in the buffer keep their order behind it
  r.run(Time::us(10));
  // The frame draining when the fault ended reaches memory at its time (1,999 ns + 800 ns); the rest at once.
  EXPECT_EQ(r.drained_at, std::vector<Time>(5, Time::ns(2'799)));
  EXPECT_FALSE(r.src.buffering());
}

}  // namespace
}  // namespace rocesim
