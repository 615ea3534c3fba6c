#include "rocesim/net/credits.hpp"

#include <algorithm>

#include "rocesim/core/error.hpp"
#include "rocesim/net/wire.hpp"

namespace rocesim {

namespace {
// A buffer size of at least one credit.
void read_credit_size(const std::string& v) {
  if (parse_bytes(v) < Bytes(kCreditBlock)) {
    throw UnitError{"'" + v + "' is smaller"};
  }
}
}  // namespace

const Schema<InfinibandParams>& InfinibandParams::schema() {
  static const Schema<InfinibandParams> s = [] {
    Schema<InfinibandParams> sc("infiniband", "credit-based link flow control (fabric: infiniband)");
    sc.add(&InfinibandParams::vl_buffer, "vl_buffer", "auto",
           "receive buffer of every switch and NIC port per virtual lane, advertised as credits: auto (twice what "
           "the link needs for line rate, docs/model.md \"InfiniBand\") or a size",
           parses(read_credit_size, {"auto"}, "a size of at least one 64-byte credit"), "auto | size")
        .add(&InfinibandParams::credit_batch, "credit_batch", "auto",
             "space a port frees before it returns credits in a flow control packet: auto (an eighth of vl_buffer) "
             "or a size",
             parses(read_credit_size, {"auto"}, "a size of at least one 64-byte credit"), "auto | size")
        .add(&InfinibandParams::fecn_threshold, "fecn_threshold", "16KB",
             "congestion control (annex A10): a switch port whose queue on a VL exceeds this is congested and "
             "marks FECN on the packets joining it, unless it is waiting for credits (a victim, not a root)")
        .add(&InfinibandParams::marking_rate, "marking_rate", "0",
             "mean number of packets between FECN marks at a congested port (A10 Marking_Rate; 0: every packet)",
             in_range<int64_t>(0, 65535));
    return sc;
  }();
  return s;
}

Bytes credit_buffer_needed(Rate rate, Time delay, Time latency, Bytes max_frame, Bytes batch) {
  const Time frame = rate.tx_time(Bytes(max_frame.count() + wire::kIbDelimiters));
  const Time rtt = delay * 2 + latency + frame * 3 + rate.tx_time(Bytes(wire::kIbFlowControl + wire::kIbDelimiters));
  const int64_t frames = (rtt.ps() + frame.ps() - 1) / frame.ps();
  return Bytes(frames * credit_blocks(max_frame.count()) * kCreditBlock) + batch;
}

CreditConfig credit_config(const InfinibandParams& p, Rate rate, Time delay, Time latency, Bytes max_frame,
                           const std::string& file) {
  if (p.vl_buffer != "auto") {
    return credit_config(parse_bytes(p.vl_buffer), p.credit_batch, max_frame, file, "infiniband.vl_buffer");
  }
  // Twice the least, with its batch of an eighth: B = 2 x (B_min without batch + B / 8), B = 8/3 x that.
  const Bytes base = credit_buffer_needed(rate, delay, latency, max_frame, Bytes(0));
  return credit_config(Bytes((base.count() * 8 + 2) / 3), p.credit_batch, max_frame, file, "infiniband.vl_buffer");
}

Packet* credit_packet(PacketPool& pool, CreditRx& rx, uint8_t& owed) {
  const int vl = __builtin_ctz(owed);
  owed &= static_cast<uint8_t>(owed - 1);
  Packet* f = pool.acquire(PacketKind::kCredit);
  f->frame = wire::kIbFlowControl;
  f->flags = Packet::kFlagIb;
  f->priority = static_cast<uint8_t>(vl);
  f->psn = rx.advertise(vl);
  return f;
}

CreditConfig credit_config(Bytes buffer, const std::string& batch, Bytes max_frame, const std::string& file,
                           const std::string& buffer_key) {
  CreditConfig c;
  c.buffer_blocks = credit_blocks(buffer.count());
  c.batch_blocks =
      batch == "auto" ? std::max<uint32_t>(1, c.buffer_blocks / 8) : credit_blocks(parse_bytes(batch).count());
  const uint32_t frame = credit_blocks(max_frame.count());
  const std::string size = to_string(Bytes(int64_t{c.buffer_blocks} * kCreditBlock));
  if (c.buffer_blocks < frame) {
    throw InputError(file, 0, buffer_key, size + " holds no " + to_string(max_frame) + " packet (nic.mtu and headers)");
  }
  if (c.batch_blocks + frame > c.buffer_blocks) {
    throw InputError(file, 0, "infiniband.credit_batch",
                     batch + " leaves no room for a " + to_string(max_frame) + " packet in " + buffer_key + " " + size +
                         ": a sender could wait forever for credits held back; at most the buffer less one packet");
  }
  return c;
}

}  // namespace rocesim
