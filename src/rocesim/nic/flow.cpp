#include "rocesim/nic/flow.hpp"

namespace rocesim {

const char* to_string(RdmaOp op) {
  switch (op) {
    case RdmaOp::kWrite:
      return "write";
    case RdmaOp::kSend:
      return "send";
    case RdmaOp::kRead:
      return "read";
    case RdmaOp::kWriteImm:
      return "write_imm";
  }
  return "?";
}

const char* to_string(WcStatus s) {
  switch (s) {
    case WcStatus::kSuccess:
      return "success";
    case WcStatus::kRetryExceeded:
      return "retry_exceeded";
    case WcStatus::kFlushed:
      return "flushed";
  }
  return "?";
}

bool parse_op(const std::string& s, RdmaOp& op) {
  if (s == "write") {
    op = RdmaOp::kWrite;
  } else if (s == "send") {
    op = RdmaOp::kSend;
  } else if (s == "read") {
    op = RdmaOp::kRead;
  } else if (s == "write_imm") {
    op = RdmaOp::kWriteImm;
  } else {
    return false;
  }
  return true;
}

const char* to_string(Transport t) {
  switch (t) {
    case Transport::kRdma:
      return "rdma";
    case Transport::kTcp:
      return "tcp";
    case Transport::kIwarp:
      return "iwarp";
  }
  return "rdma";
}

bool parse_transport(const std::string& s, Transport& t) {
  for (Transport x : {Transport::kRdma, Transport::kTcp, Transport::kIwarp}) {
    if (s == to_string(x)) {
      t = x;
      return true;
    }
  }
  return false;
}

std::optional<std::string> flow_size_error(Bytes size) {
  if (size.count() <= 0) {
    return "a flow's size must be positive";
  }
  if (size.count() > kMaxFlowBytes) {
    return to_string(size) + " is above the largest flow the model carries exactly (512 GiB: 2^31 packets of the " +
           "smallest MTU, within the queue pair's 32-bit PSNs); split it into several flows";
  }
  return std::nullopt;
}

}  // namespace rocesim
