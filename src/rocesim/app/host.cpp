#include "rocesim/app/host.hpp"

#include <stdexcept>

namespace rocesim {

void Host::post(uint32_t qp, const WorkRequest& wr, Time at, uint32_t id) {
  const QpEnd& q = qps_[qp];
  const Time when = std::max(at, sim_.now());
  if (wr.op == RdmaOp::kRead) {
    if (q.read < 0) {
      throw std::logic_error(name_ + ": a READ on a queue pair connected without reads");
    }
    nics_[q.nic]->post_read(static_cast<uint32_t>(q.read), wr, when, id);
  } else {
    if (q.send < 0) {
      throw std::logic_error(name_ + ": a send on a queue pair connected without that direction");
    }
    nics_[q.nic]->post_send(static_cast<uint32_t>(q.send), wr, when, id);
  }
}

void Host::post_recv(uint32_t qp, int64_t count, Time at) {
  const QpEnd& q = qps_[qp];
  if (q.recv < 0) {
    throw std::logic_error(name_ + ": a receive on a queue pair the peer does not send on");
  }
  nics_[q.nic]->post_recv(static_cast<uint32_t>(q.recv), count, std::max(at, sim_.now()));
}

void Host::transfer(Place from, Place to, Bytes bytes, Time latency, uint32_t app, uint64_t cookie,
                    std::optional<uint16_t> extra) {
  std::vector<uint16_t> path = interconnect_->model().path(from, to);
  if (extra) {
    path.push_back(*extra);
  }
  interconnect_->start(path, bytes, latency, app, cookie);
}

void Host::after(Time delay, uint32_t app, uint64_t cookie) { sim_.after(delay, this, 0, timers_.put({app, cookie})); }

void Host::handle_event(uint32_t, uint64_t arg) {
  const auto [app, cookie] = timers_.take(arg);
  apps_[app]->on_timer(*this, cookie);
}

}  // namespace rocesim
