#include "rocesim/switch/ecmp.hpp"

#include <gtest/gtest.h>

#include <string>

namespace rocesim {
namespace {

uint32_t murmur(const std::string& s, uint32_t seed) {
  return murmur3_32(reinterpret_cast<const uint8_t*>(s.data()), s.size(), seed);
}

TEST(Ecmp, Murmur3GivesThePublishedX86_32TestVectors) {
  // MurmurHash3_x86_32 verification values (SMHasher; the commonly quoted set of test vectors).
  EXPECT_EQ(murmur("", 0), 0u);
  EXPECT_EQ(murmur("", 1), 0x514E28B7u);
  EXPECT_EQ(murmur("", 0xffffffffu), 0x81F16F39u);
  EXPECT_EQ(murmur(std::string(4, '\0'), 0), 0x2362F9DEu);
  EXPECT_EQ(murmur("\x21\x43\x65\x87", 0), 0xF55B516Bu);
  EXPECT_EQ(murmur("\x21\x43\x65\x87", 0x5082EDEEu), 0x2362F9DEu);
  EXPECT_EQ(murmur("aaaa", 0x9747b28cu), 0x5A97808Au);
  EXPECT_EQ(murmur("Hello, world!", 0x9747b28cu), 0x24884CBAu);
  EXPECT_EQ(murmur("The quick brown fox jumps over the lazy dog", 0x9747b28cu), 0x2FA826CDu);
}

TEST(Ecmp, HpccHashKeysDataByItsPortsAndAcksByThePortsSwapped) {
  HpccEcmp e;
  e.ip = {hpcc_ip(0), hpcc_ip(300)};
  e.dport = 100;
  EXPECT_EQ(e.ip[1], 0x0b012c01u);  // 11.1.44.1
  Packet data;
  data.src = 0;
  data.dst = 1;
  data.sport = 10000;
  const uint8_t key[12] = {0x01, 0x00, 0x00, 0x0b, 0x01, 0x2c, 0x01, 0x0b, 0x10, 0x27, 100, 0};
  for (uint32_t n : {1u, 2u, 3u, 4u, 8u}) {
    EXPECT_EQ(e.pick(data, 7, n), n - 1 - murmur3_32(key, 12, 7) % n) << n;
  }
  Packet ack = data;
  ack.kind = PacketKind::kAck;
  const uint8_t ack_key[12] = {0x01, 0x00, 0x00, 0x0b, 0x01, 0x2c, 0x01, 0x0b, 100, 0, 0x10, 0x27};
  EXPECT_EQ(e.pick(ack, 7, 4), 3 - murmur3_32(ack_key, 12, 7) % 4);
}

}  // namespace
}  // namespace rocesim
