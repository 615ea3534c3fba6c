// Byte-exact RoCEv2, CNP and PFC frames: built from a simulated packet for captures, and parsed back for tests.
// Frames exclude the Ethernet FCS, as captures do. PFC layout: IEEE 802.1Qbb, as in Huawei's CloudEngine PFC docs.
// RoCEv2 headers, CNP and ICRC: Linux include/rdma/ib_pack.h, drivers/infiniband/sw/rxe/rxe_hdr.h and rxe_icrc.c,
// and secdev/scapy scapy/contrib/roce.py.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rocesim/net/packet.hpp"

namespace rocesim::frame {

// Addresses the simulator gives its endpoints: host h is 10.x.y.z with x.y.z = h + 1, MAC 02:00:00:x:y:z
// (locally administered); a switch port's MAC (the source of its PFC frames) is 02:ff:ss:ss:pp:pp.
std::array<uint8_t, 4> host_ip(uint32_t host);
std::array<uint8_t, 6> host_mac(uint32_t host);
std::array<uint8_t, 6> port_mac(uint32_t node, uint16_t port);
// The TCP port a kernel TCP connection's receiver listens on (iperf3's) and an iWARP connection's.
inline constexpr uint16_t kTcpPort = 5201;
inline constexpr uint16_t kIwarpPort = 4791 + 1;
// QP numbers on the wire: the simulator's per-NIC QP index + 2 (QP 0 and 1 are special in InfiniBand).
inline uint32_t wire_qpn(uint32_t qp_index) { return (qp_index + 2) & 0xFFFFFF; }

// What a frame needs beyond the packet: the message length for RETH, the PFC source MAC.
struct Context {
  uint32_t dma_length = 0;
  uint32_t node = 0;  // the sending node, for PFC source MACs
  uint16_t port = 0;
  bool roce_v1 = false;  // RDMA packets in RoCEv1 framing (fabric: roce-v1)
  // iWARP segments: the data's sequence number, or the ACK's acknowledgment number, and the SACK edges, in the
  // bytes TCP carries (the simulator's TCP counts payload; the capture maps one to the other).
  uint32_t tcp_seq = 0;
  std::array<uint32_t, 2 * wire::kMaxSackBlocks> tcp_sack{};
};

// The whole frame, FCS excluded: Ethernet, IPv4, UDP 4791, BTH, RETH/AETH, payload (zeros), pad, INT (when the
// packet carries telemetry: 2 bytes of hop count and 8 bytes per hop, at the end of the payload), ICRC; or a PFC
// MAC control frame; or a TCP segment (IPv4, TCP with timestamps and SACK, iWARP's MPA/DDP/RDMAP FPDU).
std::vector<uint8_t> build(const Packet& p, const Context& c);
// The MPA Request (`reply` false: from the end that sends the connection's data, the initiator) or Reply (from the
// other end) that open the iWARP connection a segment `p` belongs to (RFC 5044 7.1): CRC on, markers off.
std::vector<uint8_t> build_mpa_start(const Packet& p, bool reply);

// The invariant CRC of a RoCEv2 frame (Ethernet header first, FCS excluded, ICRC excluded): CRC-32 over 8 bytes
// of 0xFF, then the IPv4 header with TOS, TTL and checksum set to all ones, the UDP header with its checksum set
// to all ones, the BTH with its FECN/BECN byte set to 0xFF, and the rest (IBTA RoCEv2 annex A17.3.3).
uint32_t icrc(const uint8_t* frame, size_t len_without_icrc);
uint32_t crc32(const uint8_t* data, size_t len, uint32_t crc = 0);

// A parsed frame: the fields tests compare with the simulator's record.
struct Parsed {
  uint16_t ethertype = 0;
  // PFC
  uint16_t pfc_opcode = 0;
  uint8_t pfc_enable = 0;
  std::array<uint16_t, 8> pfc_quanta{};
  // IPv4 / UDP
  uint8_t dscp = 0, ecn = 0;
  std::array<uint8_t, 4> src_ip{}, dst_ip{};
  uint16_t sport = 0, dport = 0;
  bool ip_checksum_ok = false;
  // BTH and extensions
  uint8_t opcode = 0;
  bool becn = false, ack_req = false;
  uint8_t pad = 0;
  uint32_t dest_qp = 0, psn = 0;
  std::optional<uint32_t> reth_length;
  std::optional<uint8_t> aeth_syndrome;
  bool icrc_ok = false;
};
std::optional<Parsed> parse(const std::vector<uint8_t>& f);

}  // namespace rocesim::frame
