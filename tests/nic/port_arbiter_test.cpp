// The NIC's port arbiter on its own (nic/port_arbiter.hpp): which frame goes on the link next, with stand-in
// transports, against hand-computed orders and times.
#include "rocesim/nic/port_arbiter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace rocesim {
namespace {

// A transport that has `packets` data packets of `payload` bytes on priority `prio`, each free to go at `ready`;
// it notes the paused mask it was asked with.
struct FakeTransport {
  explicit FakeTransport(PacketPool& p) : pool(p) {}
  PacketPool& pool;
  int packets = 0;
  uint8_t prio = 0;
  int payload = 1000;
  Time ready;
  Time gap;                // pacing: after a packet, the next may go `gap` later
  bool lone = true;        // one active queue pair (RC): the port wakes at its pacing time
  bool lose_next = false;  // the next packet is an injected loss
  std::vector<uint8_t> asked_paused;

  NicTransport::Next next_packet(uint8_t paused, Time now, Time& earliest) {
    asked_paused.push_back(paused);
    if (packets == 0 || (paused >> prio & 1u)) {
      return {};
    }
    if (ready > now) {
      earliest = std::min(earliest, ready);
      return {};
    }
    --packets;
    ready = now + gap;
    Packet* p = pool.acquire(PacketKind::kData);
    p->priority = prio;
    p->payload = payload;
    p->frame = payload + 100;
    const bool lost = lose_next;
    lose_next = false;
    return {p, lost};
  }
  bool wants_port() const { return packets > 0; }
  size_t active() const { return packets > 0 ? (lone ? 1 : 2) : 0; }
  Time lone_ready() const { return packets > 0 ? ready : Time::max(); }
  uint8_t waiting_prios() const { return packets > 0 ? static_cast<uint8_t>(1u << prio) : 0; }
};

// The far end of the link: the arbiter only needs one to send.
class Far final : public Node {
 public:
  Far(Simulator& sim, PacketPool& pool) : Node(sim, pool, "far", NodeKind::kNic) {}

 private:
  void receive(Packet* p) override { pool_.release(p); }
  void tx_done(uint16_t) override {}
  void pause_ended(uint16_t, uint8_t) override {}
  void link_changed(uint16_t, bool) override {}
  void lost_to_link(Packet* p, uint16_t, bool) override { pool_.release(p); }
};

// The clock and packets, made before the rig's event source.
struct World {
  Simulator sim{1};
  PacketPool pool;
};

// The NIC around the port: puts what the arbiter picks on a 100 Gb/s link (80 ps a byte; noted, not delivered)
// and hands the port its wake events.
class Rig final : public World, public EventHandler, public LinkFrameSource {
 public:
  struct Sent {
    Time at;
    PacketKind kind;
    uint8_t prio;
    bool lost;
  };
  Far far{sim, pool};
  PauseState pause;
  PortArbiter port{sim, *this, *this, pause};
  FakeTransport rc{pool};
  FakeTransport tcp{pool};
  bool with_tcp = false;
  std::vector<Sent> sent;
  std::vector<Time> woken;
  uint8_t owed_seen = 0;

  Rig() : EventHandler(sim.new_source()) { port.connect(LinkEnd{&far, 0, Rate::gbps(100), Time::us(1)}); }
  // As the NIC's try_send: the frame goes on the link and takes its serialisation time.
  void try_send() {
    const PortArbiter::Frame f = port.next(sim.now(), rc, with_tcp ? &tcp : nullptr);
    if (!f.packet) {
      return;
    }
    sent.push_back({sim.now(), f.packet->kind, f.packet->priority, f.lost});  // a lost frame takes the port too
    const Time end = sim.now() + port.tx_time(*f.packet);
    pool.release(f.packet);
    port.sent(end, rc, with_tcp ? &tcp : nullptr);
  }
  // Asks the port at `t` (as a post or an arriving ACK would).
  void kick_at(Time t) { sim.at(t, this, kKick); }
  void queue_control(uint8_t prio) {
    Packet* c = pool.acquire(PacketKind::kAck);
    c->priority = prio;
    c->frame = 64;
    port.queue_control(c);
  }
  Packet* link_frame(uint8_t& owed) override {
    owed_seen = owed;
    owed = 0;
    Packet* f = pool.acquire(PacketKind::kPfc);
    f->frame = 64;
    return f;
  }
  void handle_event(uint32_t kind, uint64_t) override {
    if (kind == kKick) {
      try_send();
    } else if (kind == kEvWake && port.woken(sim.now())) {
      woken.push_back(sim.now());
      try_send();
    }
  }
  void run() { sim.run(Time::ms(1)); }

 private:
  static constexpr uint32_t kKick = kNodeEventBase + 30;
};

// A 1,000-byte payload in a 1,100-byte frame: 1,120 bytes on the wire (preamble and gap), 89.6 ns at 100 Gb/s.
constexpr Time kDataTime = Time::ps(1120 * 80);

TEST(PortArbiter, ControlPacketsGoBeforeDataHighestPriorityFirst) {
  Rig r;
  r.rc.packets = 1;
  r.queue_control(1);
  r.queue_control(3);
  r.kick_at(Time());
  r.run();
  ASSERT_EQ(r.sent.size(), 3u);
  EXPECT_EQ(r.sent[0].kind, PacketKind::kAck);
  EXPECT_EQ(r.sent[0].prio, 3);
  EXPECT_EQ(r.sent[1].kind, PacketKind::kAck);
  EXPECT_EQ(r.sent[1].prio, 1);
  EXPECT_EQ(r.sent[2].kind, PacketKind::kData);
  // Back to back: each frame starts when the one before it has left (64 + 20 bytes of wire each, 6.72 ns).
  EXPECT_EQ(r.sent[1].at, Time::ps(84 * 80));
  EXPECT_EQ(r.sent[2].at, Time::ps(2 * 84 * 80));
}

TEST(PortArbiter, APausedPriorityHoldsBackOnlyItsOwnControlPacketsAndData) {
  Rig r;
  r.rc.packets = 1;
  r.rc.prio = 3;
  r.pause.since[3] = Time();
  r.pause.set_until(3, Time::us(2));
  r.port.pause_changed();
  r.queue_control(3);
  r.queue_control(1);
  r.kick_at(Time());
  r.run();
  // At 0 only priority 1's ACK may go; the transport is asked with priority 3 paused.
  ASSERT_GE(r.sent.size(), 1u);
  EXPECT_EQ(r.sent[0].prio, 1);
  EXPECT_EQ(r.rc.asked_paused.at(0), 1u << 3);
  // Nothing asks again before the pause ends (the NIC's pause-end calls it): priority 3 still waits.
  EXPECT_EQ(r.sent.size(), 1u);
  r.pause.end_pause(3, Time::us(2));
  r.port.pause_changed();
  r.kick_at(Time::us(2));
  r.run();
  ASSERT_EQ(r.sent.size(), 3u);
  EXPECT_EQ(r.sent[1].kind, PacketKind::kAck);
  EXPECT_EQ(r.sent[1].at, Time::us(2));
  EXPECT_EQ(r.sent[2].kind, PacketKind::kData);
}

TEST(PortArbiter, AnOwedLinkFrameGoesFirstEvenOnAPausedPriority) {
  Rig r;
  r.rc.packets = 1;
  r.queue_control(3);
  r.pause.since[3] = Time();
  r.pause.set_until(3, Time::us(5));
  r.port.pause_changed();
  r.port.owe_link_frame(0b1000);
  r.kick_at(Time());
  r.run();
  ASSERT_EQ(r.sent.size(), 2u);
  EXPECT_EQ(r.sent[0].kind, PacketKind::kPfc);
  EXPECT_EQ(r.owed_seen, 0b1000);
  EXPECT_EQ(r.sent[1].kind, PacketKind::kData);  // priority 0's data; the paused priority's ACK waits
}

TEST(PortArbiter, ALonePacedQueuePairIsWokenAtItsPacingTimeNotAtEachFrameEnd) {
  Rig r;
  r.rc.packets = 3;
  r.rc.ready = Time::us(3);
  r.rc.gap = Time::us(1);
  r.kick_at(Time());
  r.run();
  // Held by pacing at 0: the port asks to be woken at 3 us and sends; then at 4 and 5 us, the queue pair's pacing
  // times, with no wake-up when each frame has left (89.6 ns after it started).
  ASSERT_EQ(r.sent.size(), 3u);
  EXPECT_EQ(r.sent[0].at, Time::us(3));
  EXPECT_EQ(r.sent[1].at, Time::us(4));
  EXPECT_EQ(r.sent[2].at, Time::us(5));
  EXPECT_EQ(r.woken, (std::vector<Time>{Time::us(3), Time::us(4), Time::us(5)}));
}

TEST(PortArbiter, NewWorkOnABusyPortWaitsForTheFrameOnTheWire) {
  Rig r;
  r.rc.packets = 1;
  r.kick_at(Time());
  r.sim.run(Time::ps(1));
  r.queue_control(0);
  r.kick_at(Time::ns(10));  // the data frame is on the wire until 89.6 ns
  r.run();
  ASSERT_EQ(r.sent.size(), 2u);
  EXPECT_EQ(r.sent[1].kind, PacketKind::kAck);
  EXPECT_EQ(r.sent[1].at, kDataTime);
}

TEST(PortArbiter, TcpAndTheQueuePairsTakeTurnsOnThePort) {
  Rig r;
  r.with_tcp = true;
  r.rc.packets = 3;
  r.rc.lone = false;
  r.tcp.packets = 3;
  r.tcp.prio = 1;
  r.kick_at(Time());
  r.run();
  ASSERT_EQ(r.sent.size(), 6u);
  for (size_t i = 0; i < r.sent.size(); ++i) {
    EXPECT_EQ(r.sent[i].prio, i % 2) << "frame " << i;  // RC (priority 0) first, then TCP (1), in turn
    EXPECT_EQ(r.sent[i].at, kDataTime * static_cast<int64_t>(i));
  }
}

TEST(PortArbiter, PcieHoldsDataToTheRateItFetchesPayloadsAt) {
  Rig r;
  r.rc.packets = 3;
  r.rc.lone = false;
  r.port.set_dma_read(Rate::gbps(50));  // 1,000 bytes of payload in 160 ns, slower than the link's 89.6 ns
  r.queue_control(0);
  r.kick_at(Time());
  r.run();
  ASSERT_EQ(r.sent.size(), 4u);
  EXPECT_EQ(r.sent[0].kind, PacketKind::kAck);  // control packets carry no payload to fetch
  const Time fetch = Time::ns(160);
  EXPECT_EQ(r.sent[1].at, Time::ps(84 * 80));
  EXPECT_EQ(r.sent[2].at, Time::ps(84 * 80) + fetch);
  EXPECT_EQ(r.sent[3].at, Time::ps(84 * 80) + fetch * 2);
}

TEST(PortArbiter, InfinibandDataWaitsForCreditsAndTheWaitIsCounted) {
  Rig r;
  r.rc.packets = 2;
  CreditTx credits;
  credits.limit.fill(credit_blocks(1100));  // room for one 1,100-byte frame on each VL
  r.port.use_credits(credits, 1100);
  r.kick_at(Time());
  r.run();
  ASSERT_EQ(r.sent.size(), 1u);
  EXPECT_EQ(credits.sent[0], credit_blocks(1100));
  // The second packet's VL has no credits: it waits, counted from the moment the port found it held.
  EXPECT_EQ(credits.waited_until(0, Time::us(1)), Time::us(1) - kDataTime);
  credits.on_credit(0, 2 * credit_blocks(1100), 1100, Time::us(1));
  r.kick_at(Time::us(1));
  r.run();
  ASSERT_EQ(r.sent.size(), 2u);
  EXPECT_EQ(r.sent[1].at, Time::us(1));
}

TEST(PortArbiter, AnInjectedLossTakesThePortAndPcieTimeButNoCredits) {
  Rig r;
  r.rc.packets = 2;
  r.rc.lone = false;
  r.rc.lose_next = true;
  CreditTx credits;
  credits.limit.fill(credit_blocks(1100) * 4);
  r.port.use_credits(credits, 1100);
  r.port.set_dma_read(Rate::gbps(50));  // 1,000 bytes of payload in 160 ns
  r.kick_at(Time());
  r.run();
  ASSERT_EQ(r.sent.size(), 2u);
  EXPECT_TRUE(r.sent[0].lost);
  EXPECT_FALSE(r.sent[1].lost);
  EXPECT_EQ(r.sent[1].at, Time::ns(160));           // after the lost packet's payload was fetched
  EXPECT_EQ(credits.sent[0], credit_blocks(1100));  // the packet that arrives takes credits, the lost one none
}

}  // namespace
}  // namespace rocesim
