// The NIC's notification point: which CE-marked data packets its receive halves answer with a CNP.
#pragma once

#include <optional>

#include "rocesim/core/units.hpp"

namespace rocesim {

// The notification point of DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015,
// section 3.1): the receive half of a queue pair answers a data packet marked CE with a CNP to its sender, at most
// one per interval per queue pair (NVIDIA's min_time_between_cnps, 4 us by default; 50 us in the paper). The interval
// is the congestion control's (CcAlgorithm::cnp_interval): zero answers every mark (InfiniBand's BECN for each FECN,
// IBTA vol 1, annex A10); none, as with HPCC or Swift, sends no CNPs.
//
// Contract: the NIC keeps one QpState per receive half, initialised by default, and calls on_ce for each data packet
// that arrives marked CE; true means the NIC sends one CNP for it now. The answer depends on the queue pair's state
// and the time alone.
class NotificationPoint {
 public:
  // A receive half's part of the notification point.
  struct QpState {
    Time next_allowed;  // the earliest time its next CNP may go out
  };

  explicit NotificationPoint(std::optional<Time> interval) : interval_(interval) {}

  bool on_ce(QpState& qp, Time now) const {
    if (!interval_ || now < qp.next_allowed) {
      return false;
    }
    qp.next_allowed = now + *interval_;
    return true;
  }

 private:
  std::optional<Time> interval_;
};

}  // namespace rocesim
