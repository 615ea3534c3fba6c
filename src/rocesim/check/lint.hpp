// Configuration lint for lossless RoCE: the settings that make PFC drop, fire before ECN, or put traffic in the
// wrong class, each found from the scenario alone (nothing is simulated) with the value that would fix it.
#pragma once

#include <string>
#include <vector>

#include "rocesim/io/scenario.hpp"

namespace rocesim {

struct Finding {
  std::string severity;  // "error": packets can be lost or paused for nothing; "warning": likely not meant
  std::string code;      // stable name of the rule, e.g. headroom_short
  std::string key;       // the scenario key to change
  std::string where;     // the switches, ports or priorities concerned
  std::string reason;
  std::string fix;  // the value that would fix it
};

// Every rule, in a fixed order (docs/check.md lists them):
//   headroom_short         explicit PFC headroom below what rate x (2 x cable delay + response time) and two
//                          frames need (IEEE 802.1Qbb annex N; docs/model.md, "PFC headroom")
//   mtu_exceeds_headroom   the headroom covers the cable but not frames of the NIC's MTU
//   buffer_too_small       reserves and headroom of every lossless priority leave no shared pool
//   ecn_after_pfc          ECN Kmin at or above the XOFF point: PFC pauses before ECN marks
//   ecn_kmax_above_xoff    ECN Kmax at or above the XOFF point: PFC pauses before marking reaches Pmax
//   cnp_unprotected        CNPs on a class neither strict nor lossless: delayed behind data, or dropped
//   dscp_mismatch          a NIC's DSCP for a priority lands in another priority at the switches
//   no_dscp_for_priority   a priority the NICs use that no DSCP of the switches' map selects
//   watchdog_below_refresh PFC watchdog poll or restore time shorter than the XOFF refresh interval
std::vector<Finding> lint(const Scenario& sc);

}  // namespace rocesim
