#include "rocesim/net/frame.hpp"

#include <algorithm>

namespace rocesim::frame {
namespace {

void put16(std::vector<uint8_t>& b, uint32_t v) {
  b.push_back(static_cast<uint8_t>(v >> 8));
  b.push_back(static_cast<uint8_t>(v));
}
void put24(std::vector<uint8_t>& b, uint32_t v) {
  b.push_back(static_cast<uint8_t>(v >> 16));
  put16(b, v & 0xFFFF);
}
void put32(std::vector<uint8_t>& b, uint32_t v) {
  put16(b, v >> 16);
  put16(b, v & 0xFFFF);
}
uint32_t get16(const std::vector<uint8_t>& b, size_t i) { return (uint32_t{b[i]} << 8) | b[i + 1]; }
uint32_t get24(const std::vector<uint8_t>& b, size_t i) { return (uint32_t{b[i]} << 16) | get16(b, i + 1); }
uint32_t get32(const std::vector<uint8_t>& b, size_t i) { return (get16(b, i) << 16) | get16(b, i + 2); }

uint16_t ip_checksum(const uint8_t* h) {
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) {
    sum += (uint32_t{h[i]} << 8) | h[i + 1];
  }
  while (sum >> 16) {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  return static_cast<uint16_t>(~sum);
}

using wire::has_aeth;
using wire::has_immdt;
using wire::has_reth;

// The IPv4 header of `p` with `len` bytes of protocol `proto` after it: don't fragment, TTL 64 less the hops
// taken, the checksum filled in.
void put_ipv4(std::vector<uint8_t>& b, const Packet& p, uint8_t proto, int len) {
  const size_t at = b.size();
  b.push_back(0x45);
  b.push_back(static_cast<uint8_t>((p.dscp << 2) | (p.ecn & 3)));
  put16(b, static_cast<uint32_t>(wire::kIpv4 + len));
  put16(b, p.psn & 0xFFFF);
  put16(b, 0x4000);
  b.push_back(static_cast<uint8_t>(64 - p.hops));
  b.push_back(proto);
  put16(b, 0);
  const auto sip = host_ip(p.src), dip = host_ip(p.dst);
  b.insert(b.end(), sip.begin(), sip.end());
  b.insert(b.end(), dip.begin(), dip.end());
  const uint16_t ck = ip_checksum(b.data() + at);
  b[at + 10] = static_cast<uint8_t>(ck >> 8);
  b[at + 11] = static_cast<uint8_t>(ck);
}

// CRC32c (Castagnoli, reflected polynomial 0x82F63B78), the MPA CRC (RFC 5044 4.1).
uint32_t crc32c(const uint8_t* data, size_t len) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < len; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k) {
      crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
  }
  return ~crc;
}

// The TCP checksum over the IPv4 pseudo-header and the segment (RFC 9293 3.1).
uint16_t tcp_checksum(const uint8_t* ip, const uint8_t* seg, size_t len) {
  uint32_t sum = 0;
  for (int i = 12; i < 20; i += 2) {  // source and destination address
    sum += (uint32_t{ip[i]} << 8) | ip[i + 1];
  }
  sum += 6 + static_cast<uint32_t>(len);
  for (size_t i = 0; i < len; i += 2) {
    sum += (uint32_t{seg[i]} << 8) | (i + 1 < len ? seg[i + 1] : 0);
  }
  while (sum >> 16) {
    sum = (sum & 0xFFFF) + (sum >> 16);
  }
  return static_cast<uint16_t>(~sum);
}

// What a TCP header says besides the packet's addresses.
struct TcpFields {
  uint16_t sport = 0, dport = 0;
  uint32_t seq = 0, ack = 0;
  uint8_t flags = 0x10;  // ACK
  uint32_t tsval = 0, tsecr = 0;
};

// IPv4 and TCP with timestamps (and SACK when `p` carries blocks, edges `sack`) after the Ethernet header in `b`, then
// `payload_bytes` of payload written by `put_payload`, and the checksum.
template <class PutPayload>
std::vector<uint8_t> tcp_segment(const Packet& p, std::vector<uint8_t> b, const TcpFields& t, int payload_bytes,
                                 const uint32_t* sack, PutPayload put_payload) {
  const int blocks = p.ext ? p.ext->sack_blocks : 0;
  const int options = wire::kTcpTimestamps + wire::sack_option(blocks);
  const size_t ip_at = b.size();
  put_ipv4(b, p, 6, wire::kTcp + options + payload_bytes);
  const size_t tcp_at = b.size();
  put16(b, t.sport);
  put16(b, t.dport);
  put32(b, t.seq);
  put32(b, t.ack);
  b.push_back(static_cast<uint8_t>(((wire::kTcp + options) / 4) << 4));
  b.push_back(t.flags);
  put16(b, 0xFFFF);  // window (scaled)
  put16(b, 0);       // checksum, below
  put16(b, 0);
  b.push_back(1);  // NOP, NOP, timestamps (RFC 7323 3.2)
  b.push_back(1);
  b.push_back(8);
  b.push_back(10);
  put32(b, t.tsval);
  put32(b, t.tsecr);
  if (blocks > 0) {  // NOP, NOP, SACK (RFC 2018 3)
    b.push_back(1);
    b.push_back(1);
    b.push_back(5);
    b.push_back(static_cast<uint8_t>(2 + 8 * blocks));
    for (int k = 0; k < 2 * blocks; ++k) {
      put32(b, sack[k]);
    }
  }
  put_payload(b);
  const uint16_t tck = tcp_checksum(b.data() + ip_at, b.data() + tcp_at, b.size() - tcp_at);
  b[tcp_at + 16] = static_cast<uint8_t>(tck >> 8);
  b[tcp_at + 17] = static_cast<uint8_t>(tck);
  return b;
}

// A TCP segment (kernel TCP or iWARP): for iWARP data one FPDU: MPA length, DDP/RDMAP tagged header of an RDMA
// WRITE (RFC 5040, 5041), payload, pad, CRC32c. Sequence numbers start at 0 in each direction of a connection:
// data segments carry ACK 1, ACKs sequence 1; on an iWARP connection both streams begin with the MPA Request or
// Reply (build_mpa_start), which the numbers count.
std::vector<uint8_t> build_tcp(const Packet& p, const Context& c, std::vector<uint8_t> b) {
  const bool iwarp = (p.flags & Packet::kFlagIwarp) != 0;
  const bool data = p.payload > 0;
  const uint32_t start = iwarp ? wire::kMpaStartFrame : 0;
  const uint16_t port = iwarp ? kIwarpPort : kTcpPort;
  const auto ns = static_cast<uint32_t>(p.sent.ps() / 1000);
  const uint32_t seq = iwarp ? c.tcp_seq : p.psn;
  std::array<uint32_t, 2 * wire::kMaxSackBlocks> sack{};
  for (int k = 0; p.ext && k < 2 * p.ext->sack_blocks; ++k) {
    sack[k] = (iwarp ? c.tcp_sack[k] : p.ext->sack[k]) + start;
  }
  TcpFields t;
  t.sport = data ? p.sport : port;
  t.dport = data ? port : p.sport;
  t.seq = (data ? seq : 1) + start;
  t.ack = (data ? 1 : seq) + start;
  if (data && (p.flags & Packet::kFlagLast)) {
    t.flags |= 0x08;  // PSH
  }
  if (p.flags & Packet::kFlagEce) {
    t.flags |= 0x40;
  }
  t.tsval = data ? ns : 0;
  t.tsecr = data ? 0 : ns;
  if (!(data && iwarp)) {
    return tcp_segment(p, std::move(b), t, p.payload, sack.data(),
                       [&](std::vector<uint8_t>& v) { v.resize(v.size() + p.payload, 0); });
  }
  const int ulpdu = wire::kDdpRdmapTagged + p.payload;
  const int fpdu = wire::kMpaLength + ulpdu + wire::pad_bytes(wire::kMpaLength + ulpdu) + wire::kMpaCrc;
  return tcp_segment(p, std::move(b), t, fpdu, sack.data(), [&](std::vector<uint8_t>& v) {
    const size_t fpdu_at = v.size();
    put16(v, static_cast<uint32_t>(ulpdu));
    v.push_back(static_cast<uint8_t>(0x80 | ((p.flags & Packet::kFlagLast) ? 0x40 : 0) | 1));  // tagged, last, DV 1
    v.push_back(0x40);  // RDMAP version 1, opcode 0: RDMA Write
    put32(v, p.flow);   // STag
    put32(v, 0);        // tagged offset (64 bits; its value is not modelled)
    put32(v, 0);
    v.resize(v.size() + static_cast<size_t>(p.payload + wire::pad_bytes(wire::kMpaLength + ulpdu)), 0);
    // The CRC32c goes least significant byte first, as iSCSI's does (RFC 5044 4.1; RFC 3385).
    const uint32_t crc = crc32c(v.data() + fpdu_at, v.size() - fpdu_at);
    put32(v, __builtin_bswap32(crc));
  });
}

}  // namespace

std::array<uint8_t, 4> host_ip(uint32_t host) {
  const uint32_t v = host + 1;
  return {10, static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
}
std::array<uint8_t, 6> host_mac(uint32_t host) {
  const uint32_t v = host + 1;
  return {0x02, 0, 0, static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
}
std::array<uint8_t, 6> port_mac(uint32_t node, uint16_t port) {
  return {0x02,
          0xFF,
          static_cast<uint8_t>(node >> 8),
          static_cast<uint8_t>(node),
          static_cast<uint8_t>(port >> 8),
          static_cast<uint8_t>(port)};
}

uint32_t crc32(const uint8_t* data, size_t len, uint32_t crc) {
  // Reflected CRC-32 (IEEE 802.3 polynomial 0x04C11DB7), as Ethernet's FCS and zlib compute it.
  crc = ~crc;
  for (size_t i = 0; i < len; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k) {
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
  }
  return ~crc;
}

uint32_t icrc(const uint8_t* f, size_t len) {
  if (len < static_cast<size_t>(wire::kEth + wire::kIpv4 + wire::kUdp + wire::kBth)) {
    return 0;  // not a RoCEv2 frame
  }
  std::vector<uint8_t> pseudo(8 + len - wire::kEth, 0xFF);
  std::copy(f + wire::kEth, f + len, pseudo.begin() + 8);
  uint8_t* ip = pseudo.data() + 8;
  ip[1] = 0xFF;            // TOS: DSCP and ECN may change in flight
  ip[8] = 0xFF;            // TTL
  ip[10] = ip[11] = 0xFF;  // header checksum
  uint8_t* udp = ip + wire::kIpv4;
  udp[6] = udp[7] = 0xFF;  // UDP checksum
  uint8_t* bth = udp + wire::kUdp;
  bth[4] = 0xFF;  // FECN, BECN and reserved bits
  return crc32(pseudo.data(), pseudo.size());
}

// RoCEv1's GRH (IBTA vol 1, 8.3; annex A16): IP version 6, traffic class from the DSCP and ECN, flow label 0,
// payload length (BTH to ICRC), next header 0x1B (the BTH), hop limit 1 (the packet stays in its subnet), and
// link-local GIDs fe80::/64 with the interface identifier of the host's MAC (modified EUI-64, RFC 4291).
void put_grh(std::vector<uint8_t>& b, const Packet& p, int payload_len) {
  const uint8_t tclass = static_cast<uint8_t>(p.dscp << 2 | (p.ecn & 3));
  b.push_back(static_cast<uint8_t>(0x60 | tclass >> 4));
  b.push_back(static_cast<uint8_t>(tclass << 4));
  put16(b, 0);
  put16(b, static_cast<uint32_t>(payload_len));
  b.push_back(0x1B);
  b.push_back(1);
  for (uint32_t host : {p.src, p.dst}) {
    const auto mac = host_mac(host);
    const std::array<uint8_t, 16> gid{
        0xfe,   0x80,   0,    0,    0,      0,      0,     0, static_cast<uint8_t>(mac[0] ^ 0x02),
        mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]};
    b.insert(b.end(), gid.begin(), gid.end());
  }
}

// RoCEv1's ICRC (IBTA annex A16.8): as InfiniBand's over a GRH, with 8 bytes of 0xFF for the LRH it lacks: the
// GRH's traffic class, flow label and hop limit and the BTH's FECN/BECN byte masked to ones.
uint32_t icrc_v1(const uint8_t* f, size_t len) {
  std::vector<uint8_t> pseudo(8 + len - wire::kEth, 0xFF);
  std::copy(f + wire::kEth, f + len, pseudo.begin() + 8);
  uint8_t* grh = pseudo.data() + 8;
  grh[0] |= 0x0F;                   // traffic class (high nibble) ...
  grh[1] = grh[2] = grh[3] = 0xFF;  // ... and flow label
  grh[7] = 0xFF;                    // hop limit
  grh[wire::kGrh + 4] = 0xFF;       // BTH: FECN, BECN and reserved bits
  return crc32(pseudo.data(), pseudo.size());
}

std::vector<uint8_t> build_mpa_start(const Packet& p, bool reply) {
  const bool data = p.payload > 0;
  Packet q = p;  // addresses, DSCP and ECN of the connection's segments
  q.ext = nullptr;
  q.src = (data != reply) ? p.src : p.dst;
  q.dst = (data != reply) ? p.dst : p.src;
  const uint16_t initiator_port = p.sport;
  std::vector<uint8_t> b;
  const auto dmac = host_mac(q.dst), smac = host_mac(q.src);
  b.insert(b.end(), dmac.begin(), dmac.end());
  b.insert(b.end(), smac.begin(), smac.end());
  put16(b, 0x0800);
  TcpFields t;
  t.sport = reply ? kIwarpPort : initiator_port;
  t.dport = reply ? initiator_port : kIwarpPort;
  t.seq = reply ? 1 : 0;  // the Request opens the initiator's stream at 0, the Reply the responder's at 1
  t.ack = reply ? wire::kMpaStartFrame : 1;
  t.flags |= 0x08;  // PSH
  const char* key = reply ? "MPA ID Rep Frame" : "MPA ID Req Frame";
  return tcp_segment(q, std::move(b), t, wire::kMpaStartFrame, nullptr, [&](std::vector<uint8_t>& v) {
    v.insert(v.end(), key, key + 16);
    v.push_back(0x40);  // CRC on, markers off, not rejected
    v.push_back(1);     // revision 1
    put16(v, 0);        // no private data
  });
}

std::vector<uint8_t> build(const Packet& p, const Context& c) {
  std::vector<uint8_t> b;
  b.reserve(p.frame);
  if (p.kind == PacketKind::kPfc) {
    // IEEE 802.1Qbb PFC: MAC control (0x8808), opcode 0x0101, class-enable vector, eight quanta, pad to 60 B.
    const std::array<uint8_t, 6> dst{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
    b.insert(b.end(), dst.begin(), dst.end());
    const auto src = port_mac(c.node, c.port);
    b.insert(b.end(), src.begin(), src.end());
    put16(b, 0x8808);
    put16(b, 0x0101);
    const PacketExt none;
    const PacketExt& x = p.ext ? *p.ext : none;
    put16(b, x.pfc_enable);
    for (uint16_t q : x.pfc_quanta) {
      put16(b, q);
    }
    b.resize(wire::kPfcFrame - wire::kFcs, 0);
    return b;
  }
  const auto dmac = host_mac(p.dst), smac = host_mac(p.src);
  b.insert(b.end(), dmac.begin(), dmac.end());
  b.insert(b.end(), smac.begin(), smac.end());
  const bool v1 = c.roce_v1 && p.kind != PacketKind::kTcp;
  put16(b, v1 ? wire::kRoceV1EtherType : 0x0800);
  if (p.kind == PacketKind::kTcp) {
    return build_tcp(p, c, std::move(b));
  }
  const int ext = wire::ext_headers(p.opcode) + (p.opcode == wire::kCnp ? wire::kCnpReserved : 0);
  const int pad = wire::pad_bytes(p.payload);
  // Whatever the frame holds beyond the headers, payload and pad is the INT block (HPCC).
  const int base = wire::kBth + ext + p.payload + pad + wire::kIcrc;
  const int int_len =
      std::max(0, p.frame - wire::kFcs - base - wire::framing(v1 ? wire::Fabric::kRoceV1 : wire::Fabric::kRoceV2).head);
  const int transport_len = wire::kBth + ext + p.payload + pad + int_len + wire::kIcrc;
  if (v1) {
    put_grh(b, p, transport_len);
  } else {
    put_ipv4(b, p, 17, wire::kUdp + transport_len);
    // UDP: destination 4791; the source port is the QP's ECMP entropy; checksum 0 (RoCEv2 allows it).
    put16(b, p.sport);
    put16(b, wire::kRoceUdpPort);
    put16(b, static_cast<uint32_t>(wire::kUdp + transport_len));
    put16(b, 0);
  }
  // BTH
  b.push_back(p.opcode);
  b.push_back(static_cast<uint8_t>(pad << 4));
  put16(b, 0xFFFF);                                   // default P_Key
  b.push_back(p.opcode == wire::kCnp ? 0x40 : 0x00);  // BECN on CNPs
  put24(b, wire_qpn(p.qpn));
  b.push_back((p.flags & Packet::kFlagAckReq) ? 0x80 : 0x00);
  put24(b, p.psn & 0xFFFFFF);
  if (has_reth(p.opcode)) {
    put32(b, 0);
    put32(b, 0x10000000);  // virtual address
    put32(b, p.flow);      // R_Key
    put32(b, c.dma_length);
  }
  if (has_immdt(p.opcode)) {
    put32(b, 0);  // immediate data (its value is not modelled)
  }
  if (has_aeth(p.opcode)) {
    uint8_t syndrome = 0x1F;  // ACK, unlimited credits
    if (p.kind == PacketKind::kNak) {
      syndrome = (p.flags & Packet::kFlagRnr) ? 0x20 | 12 : 0x60;  // RNR (timer code 12) or PSN sequence error
    }
    b.push_back(syndrome);
    put24(b, 0);  // MSN
  }
  if (p.opcode == wire::kCnp) {
    b.resize(b.size() + wire::kCnpReserved, 0);
  }
  b.resize(b.size() + p.payload + pad, 0);
  if (int_len >= 2) {
    // rocesim INT block: hop count (2 B), then per hop 8 B: rate in 10 Gb/s (1 B), queue in 64 B units (3 B),
    // bytes sent in 64 B units modulo 2^16 (2 B), time in ns modulo 2^16 (2 B); unused hops are zero.
    const size_t at = b.size();
    put16(b, static_cast<uint32_t>(p.int_hops()));
    for (int h = 0; h < p.int_hops() && b.size() + 8 <= at + static_cast<size_t>(int_len); ++h) {
      const IntHop& t = p.telemetry()[h];
      b.push_back(static_cast<uint8_t>(t.rate_mbps / 10000));
      put24(b, std::min<uint32_t>(t.qlen / 64, 0xFFFFFF));
      put16(b, static_cast<uint32_t>((t.tx_bytes / 64) & 0xFFFF));
      put16(b, static_cast<uint32_t>((t.ts.ps() / 1000) & 0xFFFF));
    }
    b.resize(at + static_cast<size_t>(int_len), 0);
  }
  const uint32_t crc = v1 ? icrc_v1(b.data(), b.size()) : icrc(b.data(), b.size());
  for (int k = 0; k < 4; ++k) {
    b.push_back(static_cast<uint8_t>(crc >> (8 * k)));  // little-endian, like the FCS
  }
  return b;
}

std::optional<Parsed> parse(const std::vector<uint8_t>& f) {
  if (f.size() < 14) {
    return std::nullopt;
  }
  Parsed p;
  p.ethertype = static_cast<uint16_t>(get16(f, 12));
  if (p.ethertype == 0x8808) {
    if (f.size() < 34) {
      return std::nullopt;
    }
    p.pfc_opcode = static_cast<uint16_t>(get16(f, 14));
    p.pfc_enable = static_cast<uint8_t>(get16(f, 16));
    for (int i = 0; i < 8; ++i) {
      p.pfc_quanta[i] = static_cast<uint16_t>(get16(f, 18 + 2 * i));
    }
    return p;
  }
  if (p.ethertype != 0x0800 || f.size() < 14 + 20 + 8 + 12 + 4) {
    return std::nullopt;
  }
  const size_t ip = 14;
  p.dscp = f[ip + 1] >> 2;
  p.ecn = f[ip + 1] & 3;
  std::copy(f.begin() + ip + 12, f.begin() + ip + 16, p.src_ip.begin());
  std::copy(f.begin() + ip + 16, f.begin() + ip + 20, p.dst_ip.begin());
  std::vector<uint8_t> hdr(f.begin() + ip, f.begin() + ip + 20);
  hdr[10] = hdr[11] = 0;
  p.ip_checksum_ok = ip_checksum(hdr.data()) == get16(f, ip + 10);
  const size_t udp = ip + 20;
  p.sport = static_cast<uint16_t>(get16(f, udp));
  p.dport = static_cast<uint16_t>(get16(f, udp + 2));
  const size_t bth = udp + 8;
  p.opcode = f[bth];
  p.pad = (f[bth + 1] >> 4) & 3;
  p.becn = f[bth + 4] & 0x40;
  p.dest_qp = get24(f, bth + 5);
  p.ack_req = f[bth + 8] & 0x80;
  p.psn = get24(f, bth + 9);
  size_t at = bth + 12;
  if (has_reth(p.opcode)) {
    p.reth_length = get32(f, at + 12);
    at += wire::kReth;
  }
  if (has_aeth(p.opcode)) {
    p.aeth_syndrome = f[at];
  }
  uint32_t stored = 0;
  for (int k = 0; k < 4; ++k) {
    stored |= uint32_t{f[f.size() - 4 + static_cast<size_t>(k)]} << (8 * k);
  }
  p.icrc_ok = icrc(f.data(), f.size() - 4) == stored;
  return p;
}

}  // namespace rocesim::frame
