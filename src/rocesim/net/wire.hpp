// Header sizes of RoCEv2 over Ethernet/IPv4, as they appear on the wire, and the BTH opcode and extended
// headers of each packet of a message. Sources: IBTA Architecture Specification vol 1 (9.2-9.4, table 38) and
// its RoCEv2 annex A17; Linux include/rdma/ib_pack.h.
#pragma once

#include <cstdint>

namespace rocesim::wire {

inline constexpr int kEth = 14;              // destination, source, EtherType
inline constexpr int kFcs = 4;               // Ethernet frame check sequence
inline constexpr int kPreambleIfg = 8 + 12;  // preamble + SFD, and the minimum inter-frame gap
inline constexpr int kIpv4 = 20;
inline constexpr int kUdp = 8;
inline constexpr int kBth = 12;
inline constexpr int kReth = 16;  // on RDMA WRITE first/only and READ request
inline constexpr int kAeth = 4;   // on ACK/NAK and READ responses
inline constexpr int kImmDt = 4;  // immediate data: on the last (or only) packet of RDMA WRITE with immediate
inline constexpr int kIcrc = 4;
inline constexpr int kCnpReserved = 16;  // CNP payload: 16 reserved bytes (scapy cnp())
inline constexpr int kMinFrame = 64;     // Ethernet minimum frame, FCS included
inline constexpr uint16_t kRoceUdpPort = 4791;

// BTH PadCnt: the payload is padded to a multiple of 4 bytes.
constexpr int pad_bytes(int payload) { return (4 - payload % 4) % 4; }
// The link layer the RDMA transport runs on (`fabric`): RoCEv2 (IBTA annex A17: Ethernet, IPv4, UDP port 4791),
// RoCEv1 (annex A16: Ethernet with EtherType 0x8915 and a GRH, not routable over IP), or native InfiniBand (IBTA
// vol 1 chapter 5 and 7: LRH, the transport headers, ICRC and VCRC, framed by a start and an end delimiter
// symbol, no preamble or gap; vol 2 5.6).
enum class Fabric : uint8_t { kRoceV2, kRoceV1, kInfiniband };
inline constexpr int kGrh = 40;
inline constexpr uint16_t kRoceV1EtherType = 0x8915;
inline constexpr int kLrh = 8;
inline constexpr int kVcrc = 2;
inline constexpr int kIbDelimiters = 2;  // SDP/SLP and EGP: with them a packet fills whole 4-lane words
// An InfiniBand flow control packet (vol 1, 7.9.4): op, FCTBS, VL and FCCL in 4 bytes, then a 2-byte LPCRC.
inline constexpr int kIbFlowControl = 6;
// Bytes before the BTH and after the ICRC of each fabric's packets, and the least frame.
struct Framing {
  int head = 0, tail = 0, min = 0;
};
constexpr Framing framing(Fabric f) {
  switch (f) {
    case Fabric::kRoceV1:
      return {kEth + kGrh, kFcs, kMinFrame};
    case Fabric::kInfiniband:
      return {kLrh, kVcrc, 0};
    default:
      return {kEth + kIpv4 + kUdp, kFcs, kMinFrame};
  }
}
// Frame bytes of an RDMA packet on `f` carrying `payload` bytes and `ext` bytes of extended transport headers.
constexpr int rdma_frame(Fabric f, int payload, int ext) {
  const Framing k = framing(f);
  const int n = k.head + kBth + ext + payload + pad_bytes(payload) + kIcrc + k.tail;
  return n < k.min ? k.min : n;
}
// Frame bytes (Ethernet header to FCS) of a RoCEv2 packet carrying `payload` bytes and `ext` bytes of extended
// transport headers.
constexpr int roce_frame(int payload, int ext) { return rdma_frame(Fabric::kRoceV2, payload, ext); }
// Bytes a link spends on a frame besides it: preamble, SFD and gap on Ethernet; the delimiters on InfiniBand.
constexpr int frame_gap(Fabric f) { return f == Fabric::kInfiniband ? kIbDelimiters : kPreambleIfg; }

// An IEEE 802.1Qbb PFC frame is a minimum-size MAC control frame (IEEE 802.1Qbb clause 36; 802.3 annex 31D).
inline constexpr int kPfcFrame = 64;
inline constexpr int kAckFrame = roce_frame(0, kAeth);         // 66 B
inline constexpr int kCnpFrame = roce_frame(kCnpReserved, 0);  // 78 B
// Bytes the link spends on a frame: the frame plus preamble, SFD and inter-frame gap.
constexpr int on_wire(int frame) { return frame + kPreambleIfg; }

// BTH opcodes of the RC transport (IBTA vol 1 table 38); CNP is RoCEv2 annex A17.9.3.
enum Opcode : uint8_t {
  kSendFirst = 0x00,
  kSendMiddle = 0x01,
  kSendLast = 0x02,
  kSendOnly = 0x04,
  kWriteFirst = 0x06,
  kWriteMiddle = 0x07,
  kWriteLast = 0x08,
  kWriteLastImm = 0x09,
  kWriteOnly = 0x0A,
  kWriteOnlyImm = 0x0B,
  kReadRequest = 0x0C,
  kReadRespFirst = 0x0D,
  kReadRespMiddle = 0x0E,
  kReadRespLast = 0x0F,
  kReadRespOnly = 0x10,
  kAcknowledge = 0x11,
  kCnp = 0x81,
};

// DSCP code points of the RoCE convention (NVIDIA "RoCE configuration for ConnectX" defaults): data DSCP 26,
// CNP DSCP 48.
inline constexpr uint8_t kDscpRoce = 26;
inline constexpr uint8_t kDscpCnp = 48;

// The verbs a message can use (IBTA vol 1, 9.4): RDMA WRITE (optionally with immediate, which also completes
// at the responder) and SEND move data from requester to responder; RDMA READ moves data from the responder
// to the requester.
enum class Verb : uint8_t { kWrite, kSend, kRead, kWriteImm };

// The BTH opcode of a data packet of a `verb` message at position first/last (both: the only packet). For READ
// these are the responses.
constexpr uint8_t data_opcode(Verb v, bool first, bool last) {
  switch (v) {
    case Verb::kWrite:
      return first && last ? kWriteOnly : first ? kWriteFirst : last ? kWriteLast : kWriteMiddle;
    case Verb::kWriteImm:
      return first && last ? kWriteOnlyImm : first ? kWriteFirst : last ? kWriteLastImm : kWriteMiddle;
    case Verb::kSend:
      return first && last ? kSendOnly : first ? kSendFirst : last ? kSendLast : kSendMiddle;
    case Verb::kRead:
      return first && last ? kReadRespOnly : first ? kReadRespFirst : last ? kReadRespLast : kReadRespMiddle;
  }
  return kWriteOnly;
}
// Extended transport header bytes an opcode carries: RETH on WRITE first/only and READ request, ImmDt on the
// immediate forms, AETH on ACK/NAK and READ response first/last/only, none on SEND.
constexpr bool has_reth(uint8_t op) {
  return op == kWriteFirst || op == kWriteOnly || op == kWriteOnlyImm || op == kReadRequest;
}
constexpr bool has_immdt(uint8_t op) { return op == kWriteLastImm || op == kWriteOnlyImm; }
constexpr bool has_aeth(uint8_t op) {
  return op == kAcknowledge || op == kReadRespFirst || op == kReadRespLast || op == kReadRespOnly;
}
constexpr int ext_headers(uint8_t op) {
  return (has_reth(op) ? kReth : 0) + (has_immdt(op) ? kImmDt : 0) + (has_aeth(op) ? kAeth : 0);
}
// Frame bytes of a data packet of a `verb` message (without INT).
constexpr int data_frame(Verb v, int payload, bool first, bool last, Fabric f = Fabric::kRoceV2) {
  return rdma_frame(f, payload, ext_headers(data_opcode(v, first, last)));
}

// TCP over Ethernet/IPv4 (RFC 9293), as Linux sends it: a 20-byte header with the timestamps option (RFC 7323:
// NOP, NOP, 10 bytes) on every segment, and on ACKs of out-of-order data a SACK option (RFC 2018: NOP, NOP, 2 bytes
// and 8 per block, at most 3 blocks beside timestamps).
inline constexpr int kTcp = 20;
inline constexpr int kTcpTimestamps = 12;
inline constexpr int kMaxSackBlocks = 3;
constexpr int sack_option(int blocks) { return blocks > 0 ? 4 + 8 * blocks : 0; }
constexpr int tcp_frame(int payload, int sack_blocks = 0) {
  const int f = kEth + kIpv4 + kTcp + kTcpTimestamps + sack_option(sack_blocks) + payload + kFcs;
  return f < kMinFrame ? kMinFrame : f;
}
// iWARP (RFC 5040 RDMAP, RFC 5041 DDP, RFC 5044 MPA, markers off as RFC 6581 lets peers agree): each TCP segment
// carries one FPDU, the MPA length, the tagged DDP and RDMAP control, STag and tagged offset of an RDMA WRITE, the
// ULPDU padded to 4 bytes, and the MPA CRC32c.
inline constexpr int kMpaLength = 2;
inline constexpr int kDdpRdmapTagged = 14;
inline constexpr int kMpaCrc = 4;
inline constexpr int kIwarpOverhead = kMpaLength + kDdpRdmapTagged + kMpaCrc;
// The MPA Request and Reply that open an iWARP connection's stream in each direction (RFC 5044 7.1): a 16-byte
// key, the marker/CRC/reject flags, the revision and the private data length (none).
inline constexpr int kMpaStartFrame = 20;
constexpr int iwarp_frame(int payload) {
  return tcp_frame(kMpaLength + kDdpRdmapTagged + payload + pad_bytes(kMpaLength + kDdpRdmapTagged + payload) +
                   kMpaCrc);
}

// ECN field values (RFC 3168).
enum Ecn : uint8_t { kNotEct = 0, kEct1 = 1, kEct0 = 2, kCe = 3 };

}  // namespace rocesim::wire
