// Messages ("flows" in FCT studies): what a workload asks for, the work requests applications post, the
// completions they get back, and the record of what happened to each message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rocesim/core/units.hpp"
#include "rocesim/net/wire.hpp"

namespace rocesim {

// The verbs a message uses: RDMA WRITE, WRITE with immediate and SEND move data from the requester to the
// responder; RDMA READ moves data from the responder to the requester (IBTA vol 1, 9.4).
using RdmaOp = wire::Verb;
const char* to_string(RdmaOp op);
bool parse_op(const std::string& s, RdmaOp& op);

// How a flow's data crosses the network: the fabric's RDMA (RoCEv2 queue pairs), the kernel's TCP (its copies
// and protocol work on the servers' CPUs), or iWARP (RDMA over a TCP the NIC runs itself).
enum class Transport : uint8_t { kRdma, kTcp, kIwarp };
const char* to_string(Transport t);
bool parse_transport(const std::string& s, Transport& t);

// The largest RDMA message (IBTA vol 1, 9.4: a DMA length of up to 2^31 bytes).
inline constexpr int64_t kMaxMessageBytes = int64_t{1} << 31;
// The largest flow (512 GiB). A flow is one message on its own queue pair, whose packets carry 32-bit PSNs:
// 2^39 B is 2^31 packets at the smallest MTU (256 B), half the PSN space, so every PSN comparison stays exact.
// A flow may exceed the verbs limit above: FCT studies give flows, not work requests.
inline constexpr int64_t kMaxFlowBytes = int64_t{1} << 39;
// Why `size` cannot be a flow's size, or nothing if it can.
std::optional<std::string> flow_size_error(Bytes size);

// A flow as a workload asks for it. Endpoints are NIC indices (what outputs call hosts).
struct FlowSpec {
  uint32_t src = 0;  // the requester
  uint32_t dst = 0;  // the responder
  Bytes size;
  Time start;
  int priority = 3;
  RdmaOp op = RdmaOp::kWrite;
  uint16_t workload = 0;  // index of the workload that made it
  Time recv_posted;       // SEND only: when the responder posts the receive (before it: receiver not ready)
  int64_t after = -1;     // if >= 0: start when this flow (same requester) finishes, not at `start`
  uint16_t app_port = 0;  // the HPCC flow file's dport, echoed in fct.txt
  uint16_t sport = 0;     // the UDP source port (ECMP entropy) of its queue pair; 0: a random ephemeral port
  Transport transport = Transport::kRdma;
};

// What the applications installed on a network will post, estimated before the run (for memory and validate):
// messages, their payload bytes, and the records they take when grouped per call and queue pair.
struct ExpectedTraffic {
  double messages = 0, bytes = 0, groups = 0;  // collective messages, their payload, their records per call and QP
  double perftest_messages = 0, perftest_bytes = 0;  // perftest's messages (a record each) and their payload
  double packet_hops = 0;  // data packets times the links each crosses (on its ECMP path of the idle fabric)
  ExpectedTraffic& operator+=(const ExpectedTraffic& o) {
    messages += o.messages;
    bytes += o.bytes;
    groups += o.groups;
    perftest_messages += o.perftest_messages;
    perftest_bytes += o.perftest_bytes;
    packet_hops += o.packet_hops;
    return *this;
  }
};

// A work request (ibv_post_send): one message on a queue pair.
struct WorkRequest {
  uint64_t wr_id = 0;  // the application's own tag, returned in the completion
  RdmaOp op = RdmaOp::kWrite;
  Bytes size;
  bool signaled = true;   // the requester gets a completion (IBV_SEND_SIGNALED)
  uint16_t workload = 0;  // for outputs: the workload the application belongs to
  uint16_t app_port = 0;
  // For outputs: the call (a collective instance) the message belongs to, or kNoGroup. When the run keeps
  // message groups (output.flows: aggregate), a call's messages on one queue pair share one record.
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  uint32_t group = kNoGroup;
};

// What a completion reports (ibv_wc). kSend: the requester's message completed (the last ACK of a WRITE or
// SEND, the last response of a READ). kRecv: a SEND or WRITE with immediate landed at the responder. kLanded:
// the last byte of a plain WRITE landed in the responder's memory: not a verbs completion, but what an
// application polling its buffer (as perftest's ib_write_lat does) sees, for QPs that ask for it.
enum class WcKind : uint8_t { kSend, kRecv, kLanded };
// kRetryExceeded: the queue pair's transport retries ran out (IBV_WC_RETRY_EXC_ERR) and it went to the error
// state; kFlushed: a work request on a queue pair in the error state (IBV_WC_WR_FLUSH_ERR). Error completions
// are reported whether the request was signaled or not.
enum class WcStatus : uint8_t { kSuccess, kRetryExceeded, kFlushed };
const char* to_string(WcStatus s);
struct Completion {
  uint64_t wr_id = 0;  // kSend: the work request's; kRecv, kLanded: the n-th message received on the QP
  uint32_t qp = 0;     // the application's queue-pair handle
  WcKind kind = WcKind::kSend;
  WcStatus status = WcStatus::kSuccess;
  RdmaOp op = RdmaOp::kWrite;
  int64_t bytes = 0;
  Time at;
};

// A message's record, kept by the requester's NIC (the component that owns the message): what was asked, and
// what happened. Outputs gather the records of every NIC after the run (Network::flows()).
struct FlowRecord {
  FlowSpec spec;
  uint32_t id = 0;  // flows.csv's flow_id (see Network::flows for how ids are given)
  uint16_t sport = 0;
  Time posted;     // when the work request was posted (spec.start unless it waited for another flow)
  Time ideal_fct;  // alone on an idle fabric (see Network::ideal_fct)
  Time base_rtt;   // one full packet out and its ACK back, on the idle fabric
  Time end;        // when the requester saw the completion (or the failure); zero while unfinished
  bool done = false;
  bool failed = false;      // its queue pair went to the error state before it completed
  int64_t retransmits = 0;  // packets sent again (go-back-N or timeout)
  int64_t cnps = 0;         // CNPs received by the data sender
  int64_t timeouts = 0;
  int64_t delivered = 0;  // payload bytes the data receiver has taken in order
  int64_t naks = 0;
  int64_t rnr_naks = 0;      // SEND only: receiver-not-ready NAKs
  int64_t out_of_order = 0;  // data packets of its queue pair that reached the receiver out of order (the first
                             // record of a queue pair carries the queue pair's count)
  // Where the message ran, for gathering: the requester's connection and the message's byte offset on it.
  uint32_t conn = 0;
  int64_t offset = 0;
  // A group's record (output.flows: aggregate): the messages of call `group` on this queue pair, `spec.size` their
  // bytes, `posted` the first one's post, `end` the last completion; `done` while none of them is open.
  uint32_t group = WorkRequest::kNoGroup;
  uint32_t messages = 1;
  uint32_t open = 1;  // messages not yet completed or failed
};

}  // namespace rocesim
