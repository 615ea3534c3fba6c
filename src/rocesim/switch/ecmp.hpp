// How a switch picks one of several equal-cost next hops for a packet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rocesim/core/rng.hpp"
#include "rocesim/net/packet.hpp"
#include "rocesim/net/wire.hpp"

namespace rocesim {

// ECMP over the five-tuple: addresses, UDP ports (destination 4791; the source port is the flow's entropy) and
// protocol, hashed with a per-switch seed so that tiers do not polarise.
inline uint64_t ecmp_hash(const Packet& p, uint64_t seed) {
  uint64_t key = (uint64_t{p.src} << 32 | p.dst) ^ (uint64_t{p.sport} << 16 | wire::kRoceUdpPort) * 0x9E37ULL ^
                 (uint64_t{17} << 56) ^ seed;
  return splitmix64(key);
}
// Which of `n` next hops a hash picks (multiply-shift: uniform, no division).
inline uint32_t ecmp_pick(uint64_t h, uint32_t n) {
  return static_cast<uint32_t>((static_cast<unsigned __int128>(h) * n) >> 64);
}

// MurmurHash3 x86_32 (Austin Appleby, public domain; SMHasher's MurmurHash3.cpp) of `len` bytes, read as
// little-endian 32-bit blocks, as the HPCC ns-3 simulator hashes its ECMP key (simulation/src/point-to-point/
// model/switch-node.cc, SwitchNode::EcmpHash, on x86).
constexpr uint32_t murmur3_32(const uint8_t* key, size_t len, uint32_t seed) {
  const auto mix = [](uint32_t k) {
    k *= 0xcc9e2d51u;
    k = (k << 15) | (k >> 17);
    return k * 0x1b873593u;
  };
  uint32_t h = seed;
  size_t i = 0;
  for (; i + 4 <= len; i += 4) {
    const uint32_t k =
        uint32_t{key[i]} | uint32_t{key[i + 1]} << 8 | uint32_t{key[i + 2]} << 16 | uint32_t{key[i + 3]} << 24;
    h ^= mix(k);
    h = (h << 13) | (h >> 19);
    h = h * 5 + 0xe6546b64u;
  }
  uint32_t tail = 0;
  for (size_t j = len; j > i; --j) {
    tail = tail << 8 | key[j - 1];
  }
  if (len > i) {
    h ^= mix(tail);
  }
  h ^= static_cast<uint32_t>(len);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

// The HPCC ns-3 simulator's address of node id i: 11.(i / 256).(i % 256).1 (scratch/third.cc, node_id_to_ip).
constexpr uint32_t hpcc_ip(uint32_t i) { return 0x0b000001u + ((i / 256) << 16) + ((i % 256) << 8); }

// The HPCC ns-3 simulator's ECMP (`routing.ecmp: hpcc-ns3`), for runs that must take the paths that simulator
// takes: MurmurHash3 of the source and destination addresses and `sport | dport << 16`, seeded with the switch's
// node id, modulo the number of next hops (SwitchNode::GetOutDev). Its data packets carry the flow file's dport as
// UDP destination port; its ACKs, NAKs and CNPs swap the two (rdma-hw.cc). Its list of next hops is in the order
// scratch/third.cc's breadth-first search meets them, iterating each node's neighbours in the order of their
// object addresses: on its fat-trees (the 320-host mix/fat.txt and a k=8 one, at commit 9f4be2a, g++ 12, glibc)
// every list was in descending interface order, so index i of its list is the i-th highest port here.
struct HpccEcmp {
  std::vector<uint32_t> ip;  // per endpoint: its address in that simulator, 11.x.y.1 (hpcc_ip)
  uint16_t dport = 100;      // the flow file's destination port, the same for every flow
  uint32_t pick(const Packet& p, uint32_t seed, uint32_t n) const {
    const bool forward = p.kind == PacketKind::kData || p.kind == PacketKind::kReadRequest;
    const uint32_t ports =
        forward ? uint32_t{p.sport} | uint32_t{dport} << 16 : uint32_t{dport} | uint32_t{p.sport} << 16;
    uint8_t key[12] = {};  // that simulator's union of three 32-bit words, on a little-endian machine
    for (int w = 0; w < 3; ++w) {
      const uint32_t v = w == 0 ? ip[p.src] : w == 1 ? ip[p.dst] : ports;
      for (int b = 0; b < 4; ++b) {
        key[4 * w + b] = static_cast<uint8_t>(v >> (8 * b));
      }
    }
    return n - 1 - murmur3_32(key, sizeof key, seed) % n;  // the switch's sets list ports in ascending order
  }
};

// One switch's way of choosing: rocesim's hash with the switch's seed, or, when `hpcc` is set, that simulator's,
// or with `lid_div` InfiniBand's by destination (Network::use_destination_routing): (dst / lid_div) mod n.
struct Ecmp {
  uint64_t seed = 0;
  const HpccEcmp* hpcc = nullptr;
  uint32_t hpcc_seed = 0;  // the switch's node id
  uint32_t lid_div = 0;
  uint32_t pick(const Packet& p, uint32_t n) const {
    if (hpcc || lid_div) [[unlikely]] {
      return hpcc ? hpcc->pick(p, hpcc_seed, n) : p.dst / lid_div % n;
    }
    return ecmp_pick(ecmp_hash(p, seed), n);
  }
};

}  // namespace rocesim
