// Header sizes of RoCEv2 over Ethernet/IPv4, as they appear on the wire.
// Source: ../shared/reference/ground-truth.md section 6 (Linux include/rdma/ib_pack.h; IBTA RoCEv2 annex A17).
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
inline constexpr int kIcrc = 4;
inline constexpr int kCnpReserved = 16;  // CNP payload: 16 reserved bytes (scapy cnp())
inline constexpr int kMinFrame = 64;     // Ethernet minimum frame, FCS included
inline constexpr uint16_t kRoceUdpPort = 4791;

// BTH PadCnt: the payload is padded to a multiple of 4 bytes.
constexpr int pad_bytes(int payload) { return (4 - payload % 4) % 4; }
// Frame bytes (Ethernet header to FCS) of a RoCEv2 packet carrying `payload` bytes and `ext` bytes of extended
// transport headers.
constexpr int roce_frame(int payload, int ext) {
  const int f = kEth + kIpv4 + kUdp + kBth + ext + payload + pad_bytes(payload) + kIcrc + kFcs;
  return f < kMinFrame ? kMinFrame : f;
}
// An IEEE 802.1Qbb PFC frame is a minimum-size MAC control frame (ground-truth.md 5.1).
inline constexpr int kPfcFrame = 64;
inline constexpr int kAckFrame = roce_frame(0, kAeth);         // 66 B
inline constexpr int kCnpFrame = roce_frame(kCnpReserved, 0);  // 78 B
// Bytes the link spends on a frame: the frame plus preamble, SFD and inter-frame gap.
constexpr int on_wire(int frame) { return frame + kPreambleIfg; }

// BTH opcodes (ground-truth.md 6; IBTA vol 1 table 38).
enum Opcode : uint8_t {
  kSendFirst = 0x00,
  kSendMiddle = 0x01,
  kSendLast = 0x02,
  kSendOnly = 0x04,
  kWriteFirst = 0x06,
  kWriteMiddle = 0x07,
  kWriteLast = 0x08,
  kWriteOnly = 0x0A,
  kReadRequest = 0x0C,
  kReadRespFirst = 0x0D,
  kReadRespMiddle = 0x0E,
  kReadRespLast = 0x0F,
  kReadRespOnly = 0x10,
  kAcknowledge = 0x11,
  kCnp = 0x81,
};

// DSCP code points of the RoCE convention (ground-truth.md 2.2): data DSCP 26, CNP DSCP 48.
inline constexpr uint8_t kDscpRoce = 26;
inline constexpr uint8_t kDscpCnp = 48;

// ECN field values (RFC 3168).
enum Ecn : uint8_t { kNotEct = 0, kEct1 = 1, kEct0 = 2, kCe = 3 };

}  // namespace rocesim::wire
