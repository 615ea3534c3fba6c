// The packet pool: zeroed packets, last-in first-out reuse, growth by 2 MiB chunks, live counts per kind.
#include "rocesim/net/packet.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace rocesim {
namespace {

TEST(PacketPool, ReusesTheMostRecentlyReleasedPacketFirst) {
  PacketPool pool;
  Packet* a = pool.acquire(PacketKind::kData);
  Packet* b = pool.acquire(PacketKind::kData);
  Packet* c = pool.acquire(PacketKind::kAck);
  pool.release(a);
  pool.release(c);
  // Last in, first out: the packet handled last is still in cache.
  EXPECT_EQ(pool.acquire(PacketKind::kData), c);
  EXPECT_EQ(pool.acquire(PacketKind::kData), a);
  EXPECT_NE(pool.acquire(PacketKind::kData), b);
}

TEST(PacketPool, HandsOutZeroedPacketsWhateverTheirLastUse) {
  PacketPool pool;
  Packet* p = pool.acquire(PacketKind::kData);
  p->src = 7;
  p->psn = 99;
  p->frame = 1048;
  p->ecn = 3;
  pool.ext(p).int_hops = 2;
  pool.release(p);
  Packet* q = pool.acquire(PacketKind::kCnp);
  ASSERT_EQ(q, p);
  EXPECT_EQ(q->kind, PacketKind::kCnp);
  EXPECT_EQ(q->src, 0u);
  EXPECT_EQ(q->psn, 0u);
  EXPECT_EQ(q->frame, 0);
  EXPECT_EQ(q->ecn, 0);
  EXPECT_EQ(q->next, nullptr);
  EXPECT_EQ(q->ext, nullptr);
  EXPECT_EQ(pool.ext(q).int_hops, 0);  // the extension is zeroed too
}

TEST(PacketPool, GrowsByWholeChunksAndCountsLivePacketsPerKind) {
  PacketPool pool;
  EXPECT_EQ(pool.capacity(), 0u);
  // 2 MiB chunks of 64-byte packets: 32,768 per chunk; one more packet than that takes a second chunk.
  constexpr size_t kPerChunk = (size_t{2} << 20) / sizeof(Packet);
  std::vector<Packet*> held;
  std::set<Packet*> distinct;
  for (size_t i = 0; i <= kPerChunk; ++i) {
    held.push_back(pool.acquire(i % 2 ? PacketKind::kAck : PacketKind::kData));
    distinct.insert(held.back());
  }
  EXPECT_EQ(distinct.size(), kPerChunk + 1);
  EXPECT_EQ(pool.capacity(), 2 * kPerChunk);
  EXPECT_EQ(pool.live(PacketKind::kData), static_cast<int64_t>(kPerChunk / 2 + 1));
  EXPECT_EQ(pool.live(PacketKind::kAck), static_cast<int64_t>(kPerChunk / 2));
  for (Packet* p : held) {
    pool.release(p);
  }
  EXPECT_EQ(pool.live(PacketKind::kData), 0);
  EXPECT_EQ(pool.live(PacketKind::kAck), 0);
  EXPECT_EQ(pool.capacity(), 2 * kPerChunk);  // kept for reuse, not returned
}

}  // namespace
}  // namespace rocesim
