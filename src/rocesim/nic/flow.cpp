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

}  // namespace rocesim
