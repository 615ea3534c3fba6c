// What the workloads offer each receiver, checked before the run: a receiver offered more than its link can take
// over the run cannot finish its flows, which is rarely what the user meant (a load given per sender that a
// many-to-one pattern multiplies).
#pragma once

#include <string>
#include <vector>

#include "rocesim/cluster/network.hpp"

namespace rocesim {

// One warning per receiving NIC whose payload, from the run's first flow's start to `stop`, exceeds its link rate
// (the flows set up before the run, of every workload; a READ's payload goes to its requester), the most
// overloaded first; at most `shown` of them, then one line counting the rest.
std::vector<std::string> overload_warnings(const Network& net, Time stop, size_t shown = 5);

}  // namespace rocesim
